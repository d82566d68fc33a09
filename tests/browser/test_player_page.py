"""A player's page in Debian's Chromium, on a phone and a desktop: ratings with their chart,
finished games, head-to-head, and the block button pressed without JavaScript; axe-core
finds no WCAG 2.1 AA violation."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from sqlmodel import select

from pbem.models import Block, Player
from pbem.storage.db import read_session
from tests.browser.helpers import ANA, LEO, VIEWPORTS, ZOE, LiveServer, check, sign_in
from tests.ratings.helpers import play_game


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_players_page_and_blocking(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    engine = live_server.app.extensions["pbem"]["engine"]
    for seed, people in enumerate(([ANA, LEO], [LEO, ANA], [ANA, ZOE], [ZOE, ANA], [ANA, LEO])):
        play_game(engine, "colour-bazaar", people, seed=seed + 1)
    play_game(engine, "fantasy-business", [ANA, LEO, ZOE], seed=7)
    with read_session(engine) as session:
        ids = {p.name: p.id or 0 for p in session.exec(select(Player))}
    ana, leo = ids["Ana"], ids["Léo"]

    url = live_server.url
    page.goto(f"{url}/players/{ana}")
    assert page.get_by_role("heading", name="Ana", exact=True).is_visible()
    assert page.get_by_role("img", name="Colour Bazaar rating after each rated game").is_visible()
    assert page.get_by_role(
        "img", name="Fantasy Business rating after each rated game"
    ).is_visible()
    assert page.get_by_text("5 rated games").is_visible()
    check(page, "player page", viewport)
    page.screenshot(path=str(artifacts / f"player-page-{viewport}.png"), full_page=True)

    # Léo, signed in, looks at Ana's page, at their games together, and blocks her.
    sign_in(page, live_server, leo)
    page.goto(f"{url}/players/{ana}")
    page.get_by_role("link", name="Your games against Ana").click()
    assert page.get_by_role("heading", name="Against Ana").is_visible()
    check(page, "head-to-head", viewport)
    page.screenshot(path=str(artifacts / f"player-head-to-head-{viewport}.png"), full_page=True)
    page.goto(f"{url}/players/{ana}")
    page.get_by_role("button", name="Block").click()
    page.get_by_role("button", name="Unblock").wait_for()
    check(page, "player page, blocked", viewport)
    page.screenshot(path=str(artifacts / f"player-blocked-{viewport}.png"), full_page=True)
    with read_session(engine) as session:
        assert [(b.player_id, b.blocked_id) for b in session.exec(select(Block))] == [(leo, ana)]


@pytest.mark.parametrize("viewport", ["phone"])
def test_the_block_button_needs_no_javascript(
    chromium: Any, viewport: str, live_server: LiveServer
) -> None:
    engine = live_server.app.extensions["pbem"]["engine"]
    play_game(engine, "colour-bazaar", [ANA, LEO], seed=1)
    with read_session(engine) as session:
        ids = {p.name: p.id or 0 for p in session.exec(select(Player))}
    context = chromium.new_context(**VIEWPORTS[viewport], java_script_enabled=False)
    try:
        page = context.new_page()
        sign_in(page, live_server, ids["Léo"])
        page.goto(f"{live_server.url}/players/{ids['Ana']}")
        page.get_by_role("button", name="Block").click()
        page.get_by_role("button", name="Unblock").click()
        page.get_by_role("button", name="Block").wait_for()
        assert page.url.endswith(f"/players/{ids['Ana']}")
    finally:
        context.close()
    with read_session(engine) as session:
        assert session.exec(select(Block)).all() == []


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_players_games_open_as_the_viewer_may_see_them(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    engine = live_server.app.extensions["pbem"]["engine"]
    play_game(engine, "colour-bazaar", [ANA, ZOE], seed=1)
    # Fantasy Business, seed 2: Ana and Léo share the first place on 129 points.
    play_game(engine, "fantasy-business", [ANA, LEO, ZOE], seed=2)
    with read_session(engine) as session:
        ids = {p.name: p.id or 0 for p in session.exec(select(Player))}
    url = live_server.url
    page.goto(f"{url}/players/{ids['Ana']}")
    expect(page.get_by_text("Shared first place of 3 with Léo, with 129 points.")).to_be_visible()
    check(page, "player page with a shared first place", viewport)
    page.screenshot(path=str(artifacts / f"player-games-{viewport}.png"), full_page=True)
    # Anyone: the game's spectator page.
    page.get_by_role("link", name="Colour Bazaar #1").click()
    expect(page).to_have_url(re.compile(r"/w/[^/]+$"))
    expect(page.get_by_role("heading", name=re.compile("Colour Bazaar #1"))).to_be_visible()
    check(page, "a finished game from a player page", viewport)
    # Léo, signed in: his own seat of the game he played, the watch page of the other.
    sign_in(page, live_server, ids["Léo"])
    page.goto(f"{url}/players/{ids['Ana']}")
    page.get_by_role("link", name="Fantasy Business #2").click()
    expect(page).to_have_url(re.compile(r"/p/[^/]+$"))
    page.go_back()
    page.get_by_role("link", name="Colour Bazaar #1").click()
    expect(page).to_have_url(re.compile(r"/w/[^/]+$"))
