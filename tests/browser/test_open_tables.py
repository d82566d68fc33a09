"""Open tables in Debian's Chromium, on a phone and a desktop: Ana posts a table, Léo (in a
browser of his own) joins it with one press and the game starts; every page fits the screen
and axe-core finds no WCAG 2.1 AA violation."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from pbem.models import Game, Player
from pbem.storage.db import read_session, write_session
from pbem.web.signin import GENERATION, PLAYER
from tests.browser.helpers import VIEWPORTS, LiveServer, check


def players(live: LiveServer, *names: str) -> list[int]:
    ids = []
    with write_session(live.app.extensions["pbem"]["engine"]) as session:
        for name in names:
            player = Player(
                email=f"{name.lower()}@example.org",
                name=name,
                created_at=datetime(2026, 3, 2, tzinfo=UTC),
            )
            session.add(player)
            session.flush()
            assert player.id is not None
            ids.append(player.id)
    return ids


def sign_in(context: Any, live: LiveServer, player_id: int) -> None:
    """The browser's session cookie for the player, as pressing a sign-in link sets it."""
    app = live.app
    serializer = app.session_interface.get_signing_serializer(app)
    value = serializer.dumps({PLAYER: player_id, GENERATION: 0, "_permanent": True})
    cookie = {"name": app.config["SESSION_COOKIE_NAME"], "value": value, "url": live.url}
    context.add_cookies([cookie])


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_post_a_table_and_join_it_in_one_press(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path, chromium: Any
) -> None:
    url = live_server.url
    ana, leo = players(live_server, "Ana", "Léo")
    sign_in(page.context, live_server, ana)
    page.goto(f"{url}/games/open")
    expect(page.get_by_text("No open table just now.")).to_be_visible()
    check(page, "open tables (empty)", viewport)
    post = page.locator("#post")
    post.get_by_label("Colour Bazaar").check()
    post.get_by_label("Joiners' rating, at least").fill("1200")
    post.get_by_role("button", name="Post the table").click()
    expect(page.get_by_text("Your table is open.")).to_be_visible()
    expect(page.get_by_text("1 of 2 seats taken")).to_be_visible()
    expect(page.get_by_role("button", name="Withdraw")).to_be_visible()
    check(page, "open tables (posted)", viewport)
    page.screenshot(path=str(artifacts / f"open-tables-posted-{viewport}.png"), full_page=True)

    # Léo, in a browser of his own, sees Ana's table with her rating and joins it.
    other = chromium.new_context(**VIEWPORTS[viewport])
    try:
        sign_in(other, live_server, leo)
        tab = other.new_page()
        tab.goto(f"{url}/games/open")
        card = tab.locator("li.open-table")
        expect(card.get_by_text("Ana 1500")).to_be_visible()
        expect(card.get_by_text("rating 1200 or more")).to_be_visible()
        check(tab, "open tables (to join)", viewport)
        tab.screenshot(path=str(artifacts / f"open-tables-join-{viewport}.png"), full_page=True)
        card.get_by_role("button", name="Join").click()
        expect(tab.get_by_role("heading", name="Colour Bazaar #1")).to_be_visible()
        check(tab, "seat page after joining", viewport)
        tab.goto(f"{url}/games/open")
        expect(tab.get_by_text("No open table just now.")).to_be_visible()
    finally:
        other.close()
    with read_session(live_server.app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, 1)
        assert game is not None and game.status == "active"
