"""A move played by a plan ahead or by standing orders says so in words, in English and French,
on the seat page, the replay and the turn mail: never as a raw key ("play.source.ahead")."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import select

from pbem.games.fantasy_business import engine
from pbem.models import Seat
from pbem.storage.db import read_session
from tests.plans import ahead_game, orders_game
from tests.web.helpers import deliver, html_of, text_of

SAID = {
    "ahead": {"en": "(planned ahead)", "fr": "(prévu d'avance)"},
    "standing": {"en": "(standing order)", "fr": "(ordre permanent)"},
}


def seat_link(app: Any, game_id: int, seat_no: int) -> str:
    site = app.extensions["pbem"]["site"]
    with read_session(app.extensions["pbem"]["engine"]) as session:
        seat = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == seat_no)).one()
        return "/p/" + site.seat_url(seat).rsplit("/", 1)[1]


def pages(client: Any, link: str, lang: str) -> list[str]:
    """The seat page and its replay at the last move, in `lang`."""
    shown = [client.get(f"{link}?lang={lang}"), client.get(f"{link}/replay?lang={lang}")]
    assert [r.status_code for r in shown] == [200, 200]
    return [r.get_data(as_text=True).replace("&#39;", "'") for r in shown]


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_move_played_ahead_says_so(
    client: Any, app: Any, clock: Any, smtpd: Any, lang: str
) -> None:
    game_id = ahead_game.started(app, clock)
    state = ahead_game.game_of(app, game_id).state
    assert state is not None
    them = state["turn"]
    me = 1 - them
    theirs = ahead_game.a_play(state, them)
    mine = ahead_game.a_play(ahead_game.RULES.apply(state, them, theirs), me)
    ahead_game.leave_plan(app, clock, game_id, me, [{"if": theirs, "then": mine}])
    ahead_game.move(app, clock, game_id, them, theirs)
    assert [m.source for m in ahead_game.logged(app, game_id)] == ["web", "ahead"]
    for page in pages(client, seat_link(app, game_id, them), lang):
        assert SAID["ahead"][lang] in page
        assert "play.source" not in page
    # The turn mail to the other player tells the two moves since, in the language the page
    # was last read in (a seat page chosen in French keeps the player's mails in French).
    deliver(app)
    email = ahead_game.PEOPLE[them].email
    (mail,) = [m for m in smtpd.messages if email in m["To"]][-1:]
    for part in (text_of(mail), html_of(mail).replace("&#39;", "'")):
        assert SAID["ahead"][lang] in part and "play.source" not in part


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_move_played_by_standing_order_says_so(
    client: Any, app: Any, clock: Any, lang: str
) -> None:
    game_id = orders_game.started(app, clock, {"auction": "open"})
    orders_game.order(app, clock, game_id, 2, {"pass_above": 0, "base_prices": True})
    for _ in range(60):
        if any(m.source == "standing" for m in orders_game.logged(app, game_id)):
            break
        state = orders_game.state_of(app, game_id)
        seat = engine.to_act(state)[0]
        orders_game.move(app, clock, game_id, seat, orders_game.RULES.legal_moves(state, seat)[-1])
    assert any(m.source == "standing" for m in orders_game.logged(app, game_id))
    for page in pages(client, seat_link(app, game_id, 0), lang):
        assert SAID["standing"][lang] in page
        assert "play.source" not in page
