"""A player's home in Debian's Chromium, on a phone and a desktop: sign in by mail, /me, next
game, replay with the keyboard, rematch, the rules pages in both languages; and an axe-core
check of every page (WCAG 2.1 A and AA) with no violation."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    VIEWPORTS,
    LiveServer,
    check,
    finish,
    follow_seat_link,
    open_mail,
    seat_links,
    tap_a_move,
)

PLAYERS = [("Ana", "ana@example.org"), ("Léo", "leo@example.org")]


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_home_replay_rematch_and_rules(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    url = live_server.url
    # Ana starts a game with Léo from the home page; Léo joins from his mail.
    page.goto(f"{url}/")
    check(page, "home page", viewport)
    page.get_by_label("Colour Bazaar").check()
    page.get_by_label("Who plays first").select_option(label="You")
    for legend, (name, email) in zip(("You", "Player 2"), PLAYERS, strict=True):
        row = page.get_by_role("group", name=legend, exact=True)
        row.get_by_label("Name").fill(name)
        row.get_by_label("Email").fill(email)
    page.get_by_role("button", name="Send the invitations").click()
    open_mail(page, url, re.compile("invites you to a game"), to=PLAYERS[1][1])
    check(page, "invitation mail", viewport)
    follow_seat_link(page, url)
    check(page, "invitation page", viewport)
    page.get_by_role("button", name="Join the game").click()

    # Ana signs in by mail and finds the game on /me, where it is her move.
    page.goto(f"{url}/signin")
    check(page, "sign-in page", viewport)
    page.get_by_label("Email").fill(PLAYERS[0][1])
    page.get_by_role("button", name="Mail me a sign-in link").click()
    expect(page.get_by_text("a sign-in link is on its way")).to_be_visible()
    open_mail(page, url, re.compile("sign-in link"), to=PLAYERS[0][1])
    page.get_by_role("link", name=re.compile(r"\/signin\/")).first.click()
    check(page, "sign-in button page", viewport)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="My games")).to_be_visible()
    check(page, "my games", viewport)
    mine = page.locator("#my-move")
    expect(mine.get_by_text(re.compile(r"You must move by .* left\)"))).to_be_visible()

    # She plays from there; her page then offers the next game (none left: My games).
    mine.get_by_role("link", name="Colour Bazaar #1").click()
    check(page, "play page", viewport)
    tap_a_move(page)
    check(page, "page after the move", viewport)
    page.get_by_role("link", name="My games").last.click()
    expect(page.locator("#waiting").get_by_text(re.compile("Léo must move by"))).to_be_visible()

    # The rest of the game, then the replay stepped through with the keys.
    finish(live_server, 1)
    page.goto(url + seat_links(live_server, 1)[0])
    check(page, "results page", viewport)
    page.get_by_role("link", name="Replay the game move by move").click()
    expect(page.get_by_text(re.compile(r"Replay: after move 30 of 30\."))).to_be_visible()
    check(page, "replay", viewport)
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_text(re.compile(r"Replay: after move 29 of 30\."))).to_be_visible()
    # The text shows while the page still loads; the keys work once replay.js has run.
    page.wait_for_load_state("load")
    page.keyboard.press("Home")
    expect(page.get_by_text("Replay: the deal, before the first move.")).to_be_visible()
    page.get_by_role("link", name="Next", exact=True).click()
    expect(page.get_by_text(re.compile(r"Replay: after move 1 of 30\."))).to_be_visible()

    # A rematch: Léo's invitation to it is joined in one press.
    page.goto(url + seat_links(live_server, 1)[0])
    page.get_by_role("button", name=re.compile("^Rematch")).click()
    expect(page.get_by_role("heading", name="Colour Bazaar #2")).to_be_visible()
    open_mail(page, url, re.compile("invites you to a game"), to=PLAYERS[1][1], count=2)
    follow_seat_link(page, url)
    expect(page.get_by_role("heading", name="Colour Bazaar #2")).to_be_visible()
    page.get_by_role("button", name="Join the game").click()
    expect(page.get_by_text("Waiting for Ana.")).to_be_visible()

    # Ana, still signed in, signs out on every device from her settings: /me then asks
    # her to sign in again.
    page.goto(url + seat_links(live_server, 1)[0])
    page.get_by_role("link", name=re.compile("^Your settings")).click()
    check(page, "settings page", viewport)
    page.get_by_role("button", name="Sign out everywhere").click()
    expect(page.get_by_text("You are signed out on every device.")).to_be_visible()
    check(page, "settings page, signed out", viewport)
    page.screenshot(path=str(artifacts / f"signed-out-{viewport}.png"), full_page=True)
    page.goto(f"{url}/me")
    expect(page.get_by_role("button", name="Mail me a sign-in link")).to_be_visible()

    # The rules pages, in English and in French.
    for lang, heading in (("en", "How to play"), ("fr", "Comment jouer")):
        for slug in ("colour-bazaar", "fantasy-business"):
            page.goto(f"{url}/rules/{slug}?lang={lang}")
            expect(page.get_by_role("heading", name=heading)).to_be_visible()
            check(page, f"rules of {slug} in {lang}", viewport)
