"""Private notes on the table page in Debian's Chromium, on a phone and a desktop: opened
with one tap, kept without a reload (the page's script), there again after a reload, and
with scripts off the plain form keeps them too. axe-core finds no WCAG 2.1 AA violation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from sqlmodel import select

from pbem import play
from pbem.models import Seat
from pbem.storage.db import write_session
from tests.browser.helpers import VIEWPORTS, LiveServer, check, new_game


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_notes_are_kept_with_a_tap_and_without_scripts(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path, chromium: Any
) -> None:
    link = new_game(live_server)
    page.goto(link)
    notes = page.locator("#notes")
    notes.locator("summary").click()  # one tap opens the box
    box = notes.get_by_role("textbox")
    box.fill("Casual likes Moons: keep the 9 of Moons for the end.")
    notes.get_by_role("button", name="Save my notes").click()
    expect(notes.get_by_role("status")).to_have_text("Notes saved.")
    assert page.url == link  # kept without a reload
    notes.screenshot(path=str(artifacts / f"notes-saved-{viewport}.png"))
    check(page, "table with notes open", viewport)
    page.reload()
    expect(page.locator("#notes textarea")).to_have_value(
        "Casual likes Moons: keep the 9 of Moons for the end."
    )
    # Leaving the box keeps what was typed too.
    page.locator("#notes textarea").fill("Changed my mind.")
    page.locator("body").click(position={"x": 2, "y": 2})
    expect(page.locator("#notes [role=status]")).to_have_text("Notes saved.")
    page.reload()
    expect(page.locator("#notes textarea")).to_have_value("Changed my mind.")

    # Without scripts: the form posts and the page comes back at the notes, said saved.
    plain = chromium.new_context(java_script_enabled=False, **VIEWPORTS[viewport])
    try:
        tab = plain.new_page()
        tab.goto(link)
        # Notes already written: the box comes open.
        expect(tab.locator("#notes textarea")).to_have_value("Changed my mind.")
        tab.locator("#notes textarea").fill("Written without scripts.")
        tab.get_by_role("button", name="Save my notes").click()
        expect(tab.locator("#notes [role=status]")).to_have_text("Notes saved.")
        expect(tab.locator("#notes textarea")).to_have_value("Written without scripts.")
        tab.screenshot(path=str(artifacts / f"notes-no-script-{viewport}.png"))
    finally:
        plain.close()


def fantasy_business(live: LiveServer) -> str:
    """Ana against three computers at Fantasy Business; her seat link."""
    ext = live.app.extensions["pbem"]
    invitees = [play.Invitee("Ana", "ana@example.org")] + [
        play.Invitee(f"Casual {n}", "", "en", "casual") for n in (2, 3, 4)
    ]
    with write_session(ext["engine"]) as session:
        now = live.app.config["CLOCK"]()
        game = play.create_game(session, ext["site"], "fantasy-business", invitees, {}, now)
        seat = session.exec(select(Seat).where(Seat.game_id == game.id, Seat.seat == 0)).one()
        return str(ext["site"].seat_url(seat))


def in_first_screen(page: Any, locator: Any) -> bool:
    box = locator.bounding_box()
    return box is not None and 0 <= box["y"] and box["y"] < page.viewport_size["height"]


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_my_notes_at_the_top_opens_the_notes_in_one_tap(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path, chromium: Any
) -> None:
    for name, link in (("cb", new_game(live_server)), ("fb", fantasy_business(live_server))):
        page.goto(link)
        to_notes = page.get_by_role("link", name="My notes")
        # On the line of the rules, in the first screen: the table's first step stays where
        # it was (the first-screen tests of each game hold it there).
        assert in_first_screen(page, to_notes), name
        if name == "cb":
            assert in_first_screen(page, page.locator("#turn")), name
        to_notes.click()
        box = page.locator("#note-text")
        expect(box).to_be_visible()
        expect(box).to_be_focused()
        assert in_first_screen(page, box), name
        check(page, f"{name} notes opened from the top", viewport)
        page.screenshot(path=str(artifacts / f"notes-from-top-{name}-{viewport}.png"))
        box.fill(f"A note on {name}.")
        page.get_by_role("button", name="Save my notes").click()
        expect(page.locator("#notes [role=status]")).to_have_text("Notes saved.")

    # Without scripts: the link loads the page with the notes (and what holds them) open.
    plain = chromium.new_context(java_script_enabled=False, **VIEWPORTS[viewport])
    try:
        tab = plain.new_page()
        tab.goto(fantasy_business(live_server))
        tab.get_by_role("link", name="My notes").click()
        expect(tab.locator("#note-text")).to_be_visible()
        assert in_first_screen(tab, tab.locator("#note-text"))
    finally:
        plain.close()
