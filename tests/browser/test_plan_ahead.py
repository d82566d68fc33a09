"""The "Plan ahead" part of a two-player Colour Bazaar page on a phone and a desktop, in
Chromium: while the other is to move, pick their move (the answers show at once), pick the
answer, add it; the plan is
listed and removed; it fits the screen and axe-core finds no WCAG 2.1 AA violation at each
step. Screenshots land in test-artifacts/ (plan-<step>-<viewport>.png)."""

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

PLAYERS = [Invitee("Ana", "ana@example.org"), Invitee("Léo", "leo@example.org")]


def waiting_link(live: LiveServer) -> tuple[str, int]:
    """A two-player game just started (fixed seed): the link of the seat not to move."""
    ext = live.app.extensions["pbem"]
    clock = live.app.config["CLOCK"]
    with write_session(ext["engine"]) as session:
        game = create_game(session, ext["site"], "colour-bazaar", PLAYERS, {}, clock(), seed=5)
        join(session, ext["site"], game.id, 1, clock())
        game_id = game.id
    with read_session(ext["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.state is not None
        waiting = 1 - game.state["turn"]
        seat = next(s for s in seats_of(session, game) if s.seat == waiting)
        return ext["site"].seat_url(seat).removeprefix(live.url), game_id


def kept(live: LiveServer, game_id: int) -> Any:
    with read_session(live.app.extensions["pbem"]["engine"]) as session:
        return [s.ahead for s in session.query(Seat).filter(Seat.game_id == game_id)]


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_plan_ahead_in_a_few_taps(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    link, game_id = waiting_link(live_server)
    page.goto(live_server.url + link + "?lang=en")
    section = page.locator("#plan")
    expect(section).to_be_visible()
    section.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / f"plan-1-their-move-{viewport}.png"), full_page=True)
    check(page, "plan ahead, their move", viewport)

    # With JavaScript, picking their move is the tap that shows the answers.
    page.select_option("#plan-if", index=1)
    expect(page.get_by_label("Your answer")).to_be_visible()
    page.screenshot(path=str(artifacts / f"plan-2-answer-{viewport}.png"), full_page=True)
    check(page, "plan ahead, your answer", viewport)

    page.get_by_role("button", name="Add to the plan").click()
    expect(page.locator(".plan-list li")).to_have_count(1)
    page.screenshot(path=str(artifacts / f"plan-3-kept-{viewport}.png"), full_page=True)
    check(page, "plan ahead, kept", viewport)
    assert any(row and row.get("tree") for row in kept(live_server, game_id))

    page.locator(".plan-list").get_by_role("button", name="Remove").click()
    expect(page.locator(".plan-list")).to_have_count(0)
    page.screenshot(path=str(artifacts / f"plan-4-removed-{viewport}.png"), full_page=True)
    check(page, "plan ahead, removed", viewport)
