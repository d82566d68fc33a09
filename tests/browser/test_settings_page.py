"""The settings page in Debian's Chromium, on a phone and a desktop: reached from the header's
gear once signed in, the seat's settings and /settings the same page, EN/FR switching each,
a change saved. axe-core finds no WCAG 2.1 AA violation."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from sqlmodel import select

from pbem.models import Player
from pbem.storage.db import read_session
from tests.browser.helpers import VIEWPORTS, LiveServer, check, new_game, sign_in


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_settings_from_the_header_in_english_and_french(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    url = live_server.url
    seat = new_game(live_server)  # Ana against the computer
    page.goto(f"{seat}/settings")
    expect(page.get_by_role("heading", name="Your settings")).to_be_visible()
    page.get_by_role("link", name="FR", exact=True).click()
    expect(page.get_by_role("heading", name="Vos réglages")).to_be_visible()
    assert page.url.endswith("/settings?lang=fr")
    check(page, "a seat's settings in French", viewport)
    page.get_by_role("link", name="EN", exact=True).click()
    expect(page.get_by_role("heading", name="Your settings")).to_be_visible()

    with read_session(live_server.app.extensions["pbem"]["engine"]) as session:
        ana = session.exec(select(Player).where(Player.email == "ana@example.org")).one()
    sign_in(page, live_server, ana.id or 0)
    page.goto(f"{url}/")
    header = page.get_by_role("navigation", name="Your account")
    box = page.locator("header.site").bounding_box()
    assert box is not None and box["height"] < 60  # one line, the gear beside My games
    header.get_by_role("link", name="Settings").click()
    expect(page).to_have_url(re.compile(r"/settings$"))
    expect(page.get_by_role("heading", name="Your settings")).to_be_visible()
    expect(page.get_by_role("link", name="← My games")).to_be_visible()
    check(page, "settings, signed in", viewport)
    page.screenshot(path=str(artifacts / f"settings-signed-in-{viewport}.png"), full_page=True)
    page.get_by_label("Time zone").select_option("Europe/Paris")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text("Saved.")).to_be_visible()
    page.get_by_role("link", name="FR", exact=True).click()
    expect(page.get_by_role("heading", name="Vos réglages")).to_be_visible()
    expect(page.get_by_label("Langue des pages et des e-mails")).to_have_value("fr")
    check(page, "settings, signed in, in French", viewport)
