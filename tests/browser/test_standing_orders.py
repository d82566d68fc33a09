"""The "Standing orders" part of a Fantasy Business page on a phone and a desktop, in
Chromium: tick "pass on every lot above", give N, tick "price at base", keep them; they are
shown kept ("Kept: ...", in place, the page not reloaded; without JavaScript, on the page
after the POST) and cancelled; it sits next to the step it settles; it fits the screen and
axe-core finds no WCAG 2.1 AA violation at each step. Screenshots land in test-artifacts/
(standing-<step>-<viewport>.png)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from sqlmodel import select

from pbem.games import GAMES
from pbem.models import Game, Seat
from pbem.moves import submit_move
from pbem.play import Invitee, create_game, join
from pbem.storage.db import read_session, write_session
from pbem.storage.store import seats_of
from tests.browser.helpers import VIEWPORTS, LiveServer, check, too_wide

PLAYERS = [
    Invitee("Ana", "ana@example.org"),
    Invitee("Léo", "leo@example.org"),
    Invitee("Zoé", "zoe@example.org"),
]


RULES = GAMES["fantasy-business"]
KEPT = "Kept: pass on every lot above 4 écus; price each article at its base price."


def a_link(live: LiveServer, auction: str = "open") -> tuple[str, int]:
    """A three-player Fantasy Business just started (fixed seed): seat 1's link."""
    ext = live.app.extensions["pbem"]
    clock = live.app.config["CLOCK"]
    with write_session(ext["engine"]) as session:
        game = create_game(
            session, ext["site"], "fantasy-business", PLAYERS, {"auction": auction}, clock(), 5
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
        row = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == 1)).one()
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
    before = page.url
    page.get_by_role("button", name="Keep these orders").click()
    expect(page.get_by_role("button", name="Cancel my standing orders")).to_be_visible()
    # The answer in place (static/standing.js): the same page, its status line says so.
    expect(section.get_by_role("status")).to_have_text(KEPT)
    assert page.url == before
    page.screenshot(path=str(artifacts / f"standing-2-kept-{viewport}.png"), full_page=True)
    check(page, "standing orders, kept", viewport)
    assert kept(live_server, game_id) == {"pass_above": 4, "base_prices": True}

    page.get_by_role("button", name="Cancel my standing orders").click()
    expect(page.get_by_role("button", name="Cancel my standing orders")).to_have_count(0)
    expect(section.get_by_role("status")).to_contain_text("cancelled")
    page.screenshot(path=str(artifacts / f"standing-3-cancelled-{viewport}.png"), full_page=True)
    check(page, "standing orders, cancelled", viewport)
    assert kept(live_server, game_id) is None


def at_limits(live: LiveServer) -> tuple[str, int]:
    """Orders auction, the order of sale given: seat 1 sets limits, a step orders settle."""
    link, game_id = a_link(live, "orders")
    ext, clock = live.app.extensions["pbem"], live.app.config["CLOCK"]
    with write_session(ext["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.state is not None
        (first,) = RULES.to_act(game.state)
        order = RULES.legal_moves(game.state, first)[0]
        token = RULES.turn_token(game.state, first)
        submit_move(session, ext["site"], game_id, first, order, token, clock())
    return link, game_id


@pytest.mark.parametrize("viewport", ["phone"])
def test_orders_that_settle_the_step_play_it_and_the_page_shows_it(
    page: Any, viewport: str, live_server: LiveServer
) -> None:
    # Passing on every lot above 0 settles the limits at once: the page comes back with the
    # limits sent (the step's heading says so) and the orders kept.
    link, game_id = at_limits(live_server)
    page.goto(live_server.url + link + "?lang=en")
    expect(page.locator("#turn h2")).to_have_text("Your turn")
    page.locator("#standing summary").click()
    page.get_by_label("Pass on every lot above").check()
    page.locator("#standing-above").fill("0")
    page.get_by_role("button", name="Keep these orders").click()
    expect(page.locator("#turn h2")).to_have_text("Your limits")
    expect(page.locator("#standing").get_by_role("status")).to_have_text(
        "Kept: pass on every lot above 0 écus."
    )
    assert kept(live_server, game_id) == {"pass_above": 0}


@pytest.mark.parametrize("viewport", ["phone"])
def test_kept_without_javascript_and_next_to_the_step(
    chromium: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    link, game_id = at_limits(live_server)
    context = chromium.new_context(**VIEWPORTS[viewport], java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(live_server.url + link + "?lang=en")
        # Right under the step's form, not at the foot of the page.
        assert page.locator("#turn + #standing").count() == 1
        page.locator("#standing summary").click()
        page.get_by_label("Pass on every lot above").check()
        page.locator("#standing-above").fill("4")
        page.get_by_label("Price each article at its base price").check()
        page.get_by_role("button", name="Keep these orders").click()
        # Without JavaScript the page after the POST says what was kept.
        assert "standing=kept" in page.url
        expect(page.locator("#standing").get_by_role("status")).to_have_text(KEPT)
        page.screenshot(path=str(artifacts / f"standing-4-kept-no-js-{viewport}.png"))
        assert not (why := too_wide(page)), why  # (axe-core needs JavaScript: checked above)
        assert kept(live_server, game_id) == {"pass_above": 4, "base_prices": True}
    finally:
        context.close()
