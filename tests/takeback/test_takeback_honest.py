"""An honest take back: the card the move drew, which its mover saw, goes back into the pile
at a place drawn from the game's committed seed, and the replay, `pbem check` and the
verify check still hold for the whole game."""

from __future__ import annotations

import json
from typing import Any

from pbem import play
from pbem.games import fairdeal
from pbem.storage.db import read_session
from pbem.storage.store import shuffles_of
from tests.takeback.helpers import answer, ask, game_of, move, started, to_act


def test_the_card_seen_goes_back_to_a_place_drawn_from_the_seed(app: Any, clock: Any) -> None:
    game_id = started(app, clock)
    move(app, game_id, clock)
    mover = to_act(app, game_id)
    before = game_of(app, game_id)
    assert before.state is not None
    move(app, game_id, clock, pick=1)
    after = game_of(app, game_id)
    assert after.state is not None
    seen = after.state["hands"][mover][-1]  # the card the move drew, now in the mover's hand
    assert seen == before.state["deck"][-1]
    nxt = to_act(app, game_id)
    ask(app, game_id, mover, clock)
    answer(app, game_id, nxt, True, clock)
    back = game_of(app, game_id)
    assert back.state is not None
    # The hand, markets and chips are as before the move; the pile holds the same cards...
    assert {**back.state, "deck": []} == {**before.state, "deck": []}
    assert sorted(back.state["deck"]) == sorted(before.state["deck"])
    # ...shuffled by the first take back's share of the seed: the card seen is not on top.
    assert back.state["deck"] == fairdeal.reshuffled(before.state, before.seed, 1)["deck"]
    assert back.state["deck"][-1] != seen
    # The same move again draws the card now on top, not the one the mover saw.
    move(app, game_id, clock, pick=1)
    again = game_of(app, game_id)
    assert again.state is not None and again.state["hands"][mover][-1] == back.state["deck"][-1]
    with read_session(app.extensions["pbem"]["engine"]) as session:
        assert play.replay_problem(session, again) is None  # `pbem check` replays it


def test_a_game_with_take_backs_replays_and_verifies_to_its_end(
    client: Any, app: Any, clock: Any
) -> None:
    game_id = started(app, clock)
    site = app.extensions["pbem"]["site"]
    rounds, done = 0, set()
    while game_of(app, game_id).status == "active":
        mover = to_act(app, game_id)
        move(app, game_id, clock)
        game = game_of(app, game_id)
        if game.status != "active":
            break
        if game.ply in (3, 8, 13) and game.ply not in done:
            done.add(game.ply)
            # Take backs at several plies, one undoing an earlier one's move as well.
            ask(app, game_id, mover, clock)
            answer(app, game_id, to_act(app, game_id), True, clock)
            rounds += 1
            if rounds == 2:
                earlier = 1 - mover
                ask(app, game_id, earlier, clock)
                answer(app, game_id, mover, True, clock)
        with read_session(app.extensions["pbem"]["engine"]) as session:
            assert play.replay_problem(session, game_of(app, game_id)) is None
    assert rounds == 3
    game = game_of(app, game_id)
    with read_session(app.extensions["pbem"]["engine"]) as session:
        assert len(shuffles_of(session, game)) >= 2
    exported = client.get(site.watch_url(game) + "/export.json")
    data = json.loads(exported.get_data(as_text=True))
    assert data["reshuffles"]
    checks = fairdeal.check(data)
    assert checks and all(c.ok for c in checks), [c.say for c in checks]
    # Without the shuffles the log does not replay to the same end: they are checked.
    del data["reshuffles"]
    assert not all(c.ok for c in fairdeal.check(data))
