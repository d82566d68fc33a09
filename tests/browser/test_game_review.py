"""A game's review in Debian's Chromium, on a phone (375x812) and a desktop (1280x900): one
tap on the game-over page asks for it (a plain form, no script), the page says it is being
worked out until a computer worker has done it, then shows the costliest moments first,
each a tap from the board as the player saw it; the review mail in the mailbox. Nothing
scrolls sideways and axe-core finds no WCAG 2.1 AA violation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from pbem.clock.scheduler import computer_moves
from tests.browser.helpers import (
    VIEWPORTS,
    LiveServer,
    check,
    game_state,
    new_game,
    open_mail,
    too_wide,
)
from tests.web.helpers import play_out


@pytest.fixture
def live_config() -> dict[str, Any]:
    """Reviews worked out with few simulations: the pages are under test, not the play."""
    return {"REVIEW_SIMULATIONS": 8}


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_review_asked_with_one_tap_then_read_beside_the_replay(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    link = new_game(live_server)
    play_out(live_server.app)
    assert game_state(live_server).status == "over"
    page.goto(link)
    offer = page.locator(".review-offer")
    expect(offer).to_be_visible()
    offer.screenshot(path=str(artifacts / f"review-offer-{viewport}.png"))
    offer.get_by_label("Mail it to me too").check()
    offer.get_by_role("button", name="Review my game").click()  # the one tap that asks
    expect(page.get_by_role("status")).to_contain_text("being worked out")
    assert page.locator("script").count() == 0  # a plain page: it reloads by itself
    page.screenshot(path=str(artifacts / f"review-waiting-{viewport}.png"), full_page=True)
    check(page, "review being worked out", viewport)

    assert computer_moves(live_server.app) >= 1  # a worker does it (and queues its mail)
    page.get_by_role("link", name="Reload the page").click()
    expect(page.get_by_role("heading", name="All your decisions")).to_be_visible()
    moments = page.locator(".moments > li")
    assert 1 <= moments.count() <= 3
    page.screenshot(path=str(artifacts / f"review-{viewport}.png"), full_page=True)
    page.screenshot(path=str(artifacts / f"review-first-screen-{viewport}.png"))
    check(page, "review", viewport)

    # The costliest moment, a tap from the board as the player saw it then.
    moments.first.get_by_role("link", name="See the board as you saw it").click()
    expect(page.locator(".replay .status")).to_contain_text("As Ana saw it.")
    expect(page.get_by_role("heading", name="Your hand")).to_be_visible()
    page.screenshot(path=str(artifacts / f"review-replay-{viewport}.png"), full_page=True)
    check(page, "replay at a costly moment", viewport)
    page.get_by_role("link", name="See my review").click()
    expect(page.get_by_role("heading", name="All your decisions")).to_be_visible()

    open_mail(page, live_server.url, "Your review of")
    page.screenshot(path=str(artifacts / f"review-mail-{viewport}.png"), full_page=True)
    expect(page.get_by_text("See the board as you saw it").first).to_be_visible()
    assert not (why := too_wide(page)), f"the review mail is too wide: {why}"


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_fantasy_business_review_reads_on_a_phone(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    # Four players by orders: limits, lists and prices are decisions the review judges too.
    link = new_game(live_server, "fantasy-business", computers=3)
    play_out(live_server.app)
    page.goto(link)
    page.locator(".review-offer").get_by_role("button", name="Review my game").click()
    assert computer_moves(live_server.app) >= 1
    page.get_by_role("link", name="Reload the page").click()
    expect(page.get_by_role("heading", name="All your decisions")).to_be_visible()
    decisions = page.locator(".decisions > li")
    assert decisions.count() >= 10  # a limit set, a price list... each round
    page.screenshot(path=str(artifacts / f"review-fb-{viewport}.png"), full_page=True)
    page.screenshot(path=str(artifacts / f"review-fb-first-screen-{viewport}.png"))
    check(page, "Fantasy Business review", viewport)
    decisions.first.get_by_role("link").click()
    expect(page.locator(".replay .status")).to_contain_text("As Ana saw it.")
    check(page, "Fantasy Business replay from the review", viewport)
