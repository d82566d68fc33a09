"""A move played by a plan ahead or by standing orders says so in words, in English and French,
on the seat page, the replay and the turn mail: never as a raw key ("play.source.ahead")."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import select

from pbem.models import Seat
from pbem.storage.db import read_session
from tests import test_ahead, test_standing
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
    game_id = test_ahead.started(app, clock)
    state = test_ahead.game_of(app, game_id).state
    assert state is not None
    them = state["turn"]
    me = 1 - them
    theirs = test_ahead.a_play(state, them)
    mine = test_ahead.a_play(test_ahead.RULES.apply(state, them, theirs), me)
    test_ahead.leave_plan(app, clock, game_id, me, [{"if": theirs, "then": mine}])
    test_ahead.move(app, clock, game_id, them, theirs)
    assert [m.source for m in test_ahead.logged(app, game_id)] == ["web", "ahead"]
    for page in pages(client, seat_link(app, game_id, them), lang):
        assert SAID["ahead"][lang] in page
        assert "play.source" not in page
    # The turn mail to the other player tells the two moves since, in the language the page
    # was last read in (a seat page chosen in French keeps the player's mails in French).
    deliver(app)
    email = test_ahead.PEOPLE[them].email
    (mail,) = [m for m in smtpd.messages if email in m["To"]][-1:]
    for part in (text_of(mail), html_of(mail).replace("&#39;", "'")):
        assert SAID["ahead"][lang] in part and "play.source" not in part


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_move_played_by_standing_order_says_so(
    client: Any, app: Any, clock: Any, lang: str
) -> None:
    game_id = test_standing.started(app, clock, {"auction": "open"})
    test_standing.order(app, clock, game_id, 2, {"pass_above": 0, "base_prices": True})
    for _ in range(60):
        if any(m.source == "standing" for m in test_standing.logged(app, game_id)):
            break
        state = test_standing.state_of(app, game_id)
        seat = test_standing.engine.to_act(state)[0]
        test_standing.move(
            app, clock, game_id, seat, test_standing.RULES.legal_moves(state, seat)[-1]
        )
    assert any(m.source == "standing" for m in test_standing.logged(app, game_id))
    for page in pages(client, seat_link(app, game_id, 0), lang):
        assert SAID["standing"][lang] in page
        assert "play.source" not in page
