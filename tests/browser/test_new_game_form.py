"""The new-game form and playing the computer (issue 31), in Debian's Chromium on a phone and
a desktop: a computer seat hides the person's fields, "Who plays first" names the seats, the
button says "Start the game" when nobody is invited, and a game against the computer opens
its creator's seat page with no mail to them. axe-core finds no WCAG 2.1 AA violation."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from sqlmodel import select

from pbem.models import Outbox
from pbem.storage.db import read_session
from tests.browser.helpers import ANA, SENDER_INTERVAL, VIEWPORTS, LiveServer, check, fill_creator


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_computer_seat_on_the_new_game_form(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    page.goto(f"{live_server.url}/")
    guest = page.get_by_role("group", name="Player 2", exact=True)
    expect(guest.get_by_label("Name")).to_be_visible()
    expect(page.get_by_role("button", name="Send the invitations")).to_be_visible()
    fill_creator(page)
    guest.get_by_label("Played by").select_option("casual")
    for field in ("Name", "Email", "Language"):
        expect(guest.get_by_label(field)).to_be_hidden()
    expect(page.get_by_role("button", name="Start the game")).to_be_visible()
    first = page.get_by_label("Who plays first")
    expect(first.locator("option[data-seat='0']")).to_have_text(ANA.name)
    expect(first.locator("option[data-seat='1']")).to_have_text("Player 2 (computer, casual)")
    expect(first.locator("option[data-seat='2']")).to_have_text("Player 3")
    check(page, "new-game form with a computer seat", viewport)
    page.screenshot(path=str(artifacts / f"new-game-computer-{viewport}.png"), full_page=True)
    # A friend in the third row: invitations again, and the friend's name in "Who plays first".
    third = page.get_by_role("group", name="Player 3", exact=True)
    third.get_by_label("Name").fill("Léo")
    expect(page.get_by_role("button", name="Send the invitations")).to_be_visible()
    expect(first.locator("option[data-seat='2']")).to_have_text("Léo")
    third.get_by_label("Name").fill("")
    expect(page.get_by_role("button", name="Start the game")).to_be_visible()


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_playing_the_computer_opens_the_seat_with_no_mail(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    page.goto(f"{live_server.url}/")
    fill_creator(page)
    guest = page.get_by_role("group", name="Player 2", exact=True)
    guest.get_by_label("Played by").select_option("beginner")
    page.get_by_label("Who plays first").select_option(value="0")
    page.get_by_role("button", name="Start the game").click()
    expect(page).to_have_url(re.compile(r"/p/[A-Za-z0-9_.\-]+$"))
    expect(page.locator("p.status")).to_contain_text("Your move")
    check(page, "seat page against the computer", viewport)
    page.screenshot(path=str(artifacts / f"play-the-computer-{viewport}.png"), full_page=True)
    time.sleep(SENDER_INTERVAL * 5)  # the sender has run several times since
    with read_session(live_server.app.extensions["pbem"]["engine"]) as session:
        assert session.exec(select(Outbox)).all() == []  # no mail to Ana, nor to anyone
    assert not live_server.sender_errors


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_only_the_chosen_clock_kinds_fields_show(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    page.goto(f"{live_server.url}/")
    page.get_by_text("Clock and days off").click()
    fischer = page.get_by_role("group", name="Fischer: days added after each move")
    bank = page.get_by_role("group", name="Time bank: unused time is kept")
    fischer_fields = [
        fischer.get_by_label("Days added after each move (Fischer)"),
        fischer.get_by_label("Most days on the clock"),
    ]
    bank_field = bank.get_by_label("Most days in the bank")
    # "Days per move", the default: no Fischer or bank field beside it.
    expect(page.get_by_label("Days per move")).to_be_checked()
    for field in [*fischer_fields, bank_field]:
        expect(field).to_be_hidden()
    check(page, "new-game form, days per move", viewport)
    page.get_by_label("Fischer: days added after each move").check()
    for field in fischer_fields:
        expect(field).to_be_visible()
    expect(bank_field).to_be_hidden()
    check(page, "new-game form, a Fischer clock", viewport)
    time_part = page.locator("section", has=page.get_by_role("heading", name="Time"))
    time_part.screenshot(path=str(artifacts / f"new-game-fischer-{viewport}.png"))
    page.get_by_label("Time bank: unused time is kept").check()
    expect(bank_field).to_be_visible()
    for field in fischer_fields:
        expect(field).to_be_hidden()
    time_part.screenshot(path=str(artifacts / f"new-game-bank-{viewport}.png"))
    page.goto(f"{live_server.url}/?lang=fr")
    page.get_by_text("Pendule et jours de repos").click()
    expect(page.get_by_label("Jours par coup")).to_be_checked()
    expect(page.get_by_label("Jours au plus en réserve")).to_be_hidden()
    page.get_by_label("Réserve de temps : le temps non utilisé est gardé").check()
    expect(page.get_by_label("Jours au plus en réserve")).to_be_visible()
    check(page, "new-game form in French, a time bank", viewport)
