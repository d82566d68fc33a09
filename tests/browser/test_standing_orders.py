"""The "Standing orders" part of a Fantasy Business page on a phone and a desktop, in
Chromium: tick "pass on every lot above", give N, tick "price at base", keep them; they are
shown kept and cancelled; it fits the screen and axe-core finds no WCAG 2.1 AA violation at
each step. Screenshots land in test-artifacts/ (standing-<step>-<viewport>.png)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from pbem.models import Game, Seat
from pbem.play import Invitee, create_game, join
from pbem.storage.db import read_session, write_session
from pbem.storage.store import seats_of
from tests.browser.conftest import VIEWPORTS, LiveServer
from tests.browser.test_home_and_pages import check

PLAYERS = [
    Invitee("Ana", "ana@example.org"),
    Invitee("Léo", "leo@example.org"),
    Invitee("Zoé", "zoe@example.org"),
]


def a_link(live: LiveServer) -> tuple[str, int]:
    """A three-player Fantasy Business just started (fixed seed): seat 1's link."""
    ext = live.app.extensions["pbem"]
    clock = live.app.config["CLOCK"]
    with write_session(ext["engine"]) as session:
        game = create_game(
            session, ext["site"], "fantasy-business", PLAYERS, {"auction": "open"}, clock(), seed=5
        )
        for seat in (1, 2):
            join(session, ext["site"], game.id, seat, clock())
        game_id = game.id
    with read_session(ext["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None
        seat = next(s for s in seats_of(session, game) if s.seat == 1)
        return ext["site"].seat_url(seat).removeprefix(live.url), game_id


def kept(live: LiveServer, game_id: int) -> Any:
    with read_session(live.app.extensions["pbem"]["engine"]) as session:
        row = session.query(Seat).filter(Seat.game_id == game_id, Seat.seat == 1).one()
        return (row.ahead or {}).get("standing")


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_standing_orders_in_a_few_taps(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    link, game_id = a_link(live_server)
    page.goto(live_server.url + link + "?lang=en")
    section = page.locator("#standing")
    section.scroll_into_view_if_needed()
    section.locator("summary").click()  # behind one tap, as the page's other settings
    page.screenshot(path=str(artifacts / f"standing-1-none-{viewport}.png"), full_page=True)
    check(page, "standing orders, none", viewport)

    page.get_by_label("Pass on every lot above").check()
    page.locator("#standing-above").fill("4")
    page.get_by_label("Price each article at its base price").check()
    page.get_by_role("button", name="Keep these orders").click()
    expect(page.get_by_role("button", name="Cancel my standing orders")).to_be_visible()
    page.screenshot(path=str(artifacts / f"standing-2-kept-{viewport}.png"), full_page=True)
    check(page, "standing orders, kept", viewport)
    assert kept(live_server, game_id) == {"pass_above": 4, "base_prices": True}

    page.get_by_role("button", name="Cancel my standing orders").click()
    expect(page.get_by_role("button", name="Cancel my standing orders")).to_have_count(0)
    page.locator("#standing summary").click()
    page.screenshot(path=str(artifacts / f"standing-3-cancelled-{viewport}.png"), full_page=True)
    check(page, "standing orders, cancelled", viewport)
    assert kept(live_server, game_id) is None
