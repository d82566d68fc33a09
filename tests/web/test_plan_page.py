"""The "Plan ahead" part of a two-player Colour Bazaar page, with plain forms: pick their
move, pick the answer, add; the plan is listed to its seat alone, removed, cleared; a plan
that cannot be kept says why."""

from __future__ import annotations

import json
from typing import Any

from pbem.games import ahead
from pbem.present.colour_bazaar_text import text_of as move_text
from tests.test_ahead import RULES, a_play, game_of, plan_kept, started
from tests.web.test_api_plan import links


def pages(app: Any, game_id: int) -> list[str]:
    return [path.replace("/api/v1/seat/", "/p/") for path in links(app, game_id)]


def test_plan_ahead_on_the_page(client: Any, app: Any, clock: Any) -> None:
    game_id = started(app, clock)
    state = game_of(app, game_id).state
    assert state is not None
    them = state["turn"]
    me = 1 - them
    mine_page, their_page = pages(app, game_id)[me], pages(app, game_id)[them]
    theirs = a_play(state, them)
    mine = a_play(RULES.apply(state, them, theirs), me)

    page = client.get(mine_page, query_string={"lang": "en"}).get_data(as_text=True)
    assert "Plan ahead" in page and "Choose your answer" in page
    assert "Plan ahead" not in client.get(their_page).get_data(as_text=True)

    picked = client.get(mine_page, query_string={"ahead_if": json.dumps(theirs), "lang": "en"})
    text = picked.get_data(as_text=True)
    assert f"If their move is “{move_text(theirs, 'en')}”:" in text
    assert move_text(mine, "en") in text

    added = client.post(
        f"{mine_page}/plan", data={"if": json.dumps(theirs), "then": json.dumps(mine)}
    )
    assert added.status_code == 303
    kept = plan_kept(app, game_id, me)
    assert kept is not None and kept["tree"] == [{"if": theirs, "then": mine}]
    shown = client.get(mine_page, query_string={"lang": "en"}).get_data(as_text=True)
    line = f"If their move is “{move_text(theirs, 'en')}”, you answer “{move_text(mine, 'en')}”."
    assert line in shown
    # The other seat's page never shows it.
    assert move_text(mine, "en") not in client.get(their_page).get_data(as_text=True)

    # One level more: their move after that, and my answer to it.
    after = ahead.imagined_after(state, me, theirs, mine)
    theirs2 = ahead.their_moves(after, me)[0]
    mine2 = next(
        m for m in ahead.my_answers(after, me, theirs2) if m.get("card") in state["hands"][me]
    )
    deeper = client.get(
        mine_page, query_string={"ahead_at": "0", "ahead_if": json.dumps(theirs2), "lang": "en"}
    ).get_data(as_text=True)
    assert "their next move:" in deeper and move_text(mine2, "en") in deeper
    client.post(
        f"{mine_page}/plan",
        data={"if": json.dumps(theirs2), "then": json.dumps(mine2), "under": "0"},
    )
    kept = plan_kept(app, game_id, me)
    assert kept is not None and kept["tree"][0]["next"] == [{"if": theirs2, "then": mine2}]

    wrong = client.post(
        f"{mine_page}/plan", data={"if": json.dumps(theirs), "then": json.dumps(theirs)}
    )
    assert wrong.status_code == 303 and "plan_error=answer" in wrong.headers["Location"]
    said = client.get(wrong.headers["Location"] + "&lang=en").get_data(as_text=True)
    assert "not a move you could make" in said

    assert client.post(f"{mine_page}/plan/remove", data={"index": "0"}).status_code == 303
    assert plan_kept(app, game_id, me) is None
    client.post(f"{mine_page}/plan", data={"if": json.dumps(theirs), "then": json.dumps(mine)})
    assert client.post(f"{mine_page}/plan/remove", data={"all": "1"}).status_code == 303
    assert plan_kept(app, game_id, me) is None
