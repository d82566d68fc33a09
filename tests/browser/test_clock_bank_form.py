"""A time bank chosen on the new-game form, in Debian's Chromium on a phone and a desktop:
the seat page says what clock the game has and what is in each player's bank, before and
after a move that leaves time unused. axe-core finds no WCAG 2.1 AA violation; screenshots
of each step land in test-artifacts/ (clock-bank-<step>-<viewport>.png)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import VIEWPORTS, LiveServer, check, fill_creator, tap_a_move


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_time_bank_from_the_form_to_the_table(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    page.goto(f"{live_server.url}/")
    fill_creator(page)
    guest = page.get_by_role("group", name="Player 2", exact=True)
    guest.get_by_label("Played by").select_option("beginner")
    page.get_by_label("Who plays first").select_option(value="0")
    page.get_by_label("Time for each move").select_option("1")
    page.get_by_text("Clock and days off").click()
    page.get_by_label("Time bank: unused time is kept").check()
    page.get_by_label("Most days in the bank").fill("3")
    check(page, "new-game form with a time bank", viewport)
    # The form's time part alone: a full-page shot before the click leaves the desktop tab
    # with its button out of reach of the click (the click then sends nothing).
    time_part = page.locator("section", has=page.get_by_role("heading", name="Time"))
    time_part.screenshot(path=str(artifacts / f"clock-bank-form-{viewport}.png"))
    page.get_by_role("button", name="Start the game").click()
    # The machine may be busy: a game's creation has longer than expect's 5 s to answer.
    page.wait_for_url(
        re.compile(r"/p/[A-Za-z0-9_.\-]+$"), timeout=20_000, wait_until="domcontentloaded"
    )
    kind = "Clock: 1 day per move, and unused time kept in a bank of up to 3 days."
    expect(page.get_by_text(kind)).to_be_visible()
    expect(page.get_by_text("Ana has nothing in the bank.")).to_be_visible()
    check(page, "seat page with a time bank", viewport)
    page.screenshot(path=str(artifacts / f"clock-bank-table-{viewport}.png"), full_page=True)
    tap_a_move(page)  # at once: the whole day goes to the bank
    page.reload()
    expect(page.get_by_text("Ana has 24 hours in the bank.")).to_be_visible()
    check(page, "seat page with time in the bank", viewport)
    page.screenshot(path=str(artifacts / f"clock-bank-moved-{viewport}.png"), full_page=True)
    assert not live_server.sender_errors
