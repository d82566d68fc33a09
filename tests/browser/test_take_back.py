"""Undo with consent in Chromium, on a phone and a desktop: the mover taps "Ask to take back
my move", the next player taps "Allow", and the mover has their turn again; each step fits
the screen, axe-core finds no WCAG 2.1 AA violation, and a screenshot of each lands in
test-artifacts/ (takeback-<step>-<viewport>.png). The buttons are plain forms: no script
is needed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from pbem.play import Invitee, create_game, join
from pbem.storage.db import write_session
from pbem.storage.store import seats_of
from tests.app import FormClient
from tests.browser.helpers import VIEWPORTS, LiveServer, check, game_state, new_game, tap_a_move
from tests.web.helpers import play_turn

PLAYERS = [Invitee("Ana", "ana@example.org"), Invitee("Léo", "leo@example.org")]


def first_move_played(live: LiveServer) -> tuple[list[str], int]:
    """A two-player game with its first move played outside the browser: each seat's link
    and the mover's seat."""
    ext = live.app.extensions["pbem"]
    now = live.app.config["CLOCK"]()
    with write_session(ext["engine"]) as session:
        game = create_game(session, ext["site"], "colour-bazaar", PLAYERS, {}, now)
        join(session, ext["site"], game.id, 1, now)
        links = [ext["site"].seat_url(s).removeprefix(live.url) for s in seats_of(session, game)]
    live.app.test_client_class = FormClient
    state = game_state(live).state
    assert state is not None
    mover = state["turn"]
    play_turn(live.app.test_client(), links[mover])
    return links, mover


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_ask_then_allow(page: Any, viewport: str, live_server: LiveServer, artifacts: Path) -> None:
    url = live_server.url
    links, mover = first_move_played(live_server)
    before = game_state(live_server).ply
    shot = lambda step: page.screenshot(  # noqa: E731
        path=str(artifacts / f"takeback-{step}-{viewport}.png"), full_page=True
    )

    page.goto(url + links[mover])
    ask = page.get_by_role("button", name="Ask to take back my move")
    expect(ask).to_be_visible()
    check(page, "the mover's page with the take-back button", viewport)
    shot("1-ask")
    ask.click()
    expect(page.get_by_text("has not answered yet")).to_be_visible()
    check(page, "the mover's page while the request waits", viewport)
    shot("2-waiting")

    page.goto(url + links[1 - mover])
    question = f"{PLAYERS[mover].name} asks to take back their move."
    expect(page.get_by_text(question)).to_be_visible()
    allow = page.get_by_role("button", name="Allow")
    expect(allow).to_be_in_viewport()  # the question comes first on the page, above the board
    check(page, "the next player's page with the question", viewport)
    shot("3-question")
    allow.click()
    expect(page.get_by_text("took back their move (agreed by")).to_be_attached()
    check(page, "the next player's page after allowing", viewport)
    shot("4-allowed")

    page.goto(url + links[mover])
    expect(page.locator("form.move-form")).to_be_attached()  # the move form is back
    check(page, "the mover's page with their turn again", viewport)
    shot("5-turn-again")
    assert game_state(live_server).ply == before - 1


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_no_take_back_against_the_computer(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    page.goto(new_game(live_server))  # Ana against a casual computer, Ana first
    tap_a_move(page)
    page.reload()
    # The computer plays next: nobody to ask, so no button (README: with consent).
    expect(page.locator("p.status")).to_contain_text("Waiting for")
    expect(page.get_by_role("button", name="Ask to take back my move")).to_have_count(0)
    check(page, "seat page after a move against the computer", viewport)
    page.screenshot(path=str(artifacts / f"takeback-computer-{viewport}.png"))
