"""A whole Colour Bazaar game in Debian's Chromium: created from the home page, joined and
played by following the mails in the local mailbox, on a phone and on a desktop screen."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    VIEWPORTS,
    LiveServer,
    final_scores,
    follow_seat_link,
    open_mail,
    tap_a_move,
    too_wide,
)

PLAYERS = [("Ana", "ana@example.org"), ("Léo", "leo@example.org")]
MOVES = 30  # one chip taken per move, thirty chips
SCREENSHOT_AT = 15  # the move whose page is kept as play-<viewport>.png


@pytest.fixture
def live_config() -> dict[str, Any]:
    """A turn mail held while its player's page counts as open (issue 31) goes a second
    later: this test reads every player's mail in one tab, and the server may hear that a
    player's page was left only after the next move (on a loaded machine, it did)."""
    return {"TURN_MAIL_DELAY": 1.0}


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_whole_game_through_the_pages(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    url = live_server.url
    failures: list[str] = []
    page.on(
        "response",
        lambda r: (
            failures.append(f"{r.status} {r.url}")
            if r.status >= 400 and not r.url.endswith("/favicon.ico")
            else None
        ),
    )
    play_shot = artifacts / f"play-{viewport}.png"
    results_shot = artifacts / f"results-{viewport}.png"
    for old in (play_shot, results_shot):
        old.unlink(missing_ok=True)

    def fits(what: str) -> None:
        """No page may need sideways scrolling, on the phone least of all."""
        assert not (why := too_wide(page)), f"the {what} scrolls sideways on the {viewport}: {why}"

    # Start the game from the home page: Colour Bazaar, Ana first, one friend.
    page.goto(f"{url}/")
    fits("home page")
    page.get_by_label("Colour Bazaar").check()
    page.get_by_label("Who plays first").select_option(label="You")
    for legend, (name, email) in zip(("You", "Player 2"), PLAYERS, strict=True):
        row = page.get_by_role("group", name=legend, exact=True)
        row.get_by_label("Name").fill(name)
        row.get_by_label("Email").fill(email)
    page.get_by_role("button", name="Send the invitations").click()
    expect(page.get_by_role("heading", name="Invitations sent")).to_be_visible()
    fits("page after the invitations")
    page.get_by_role("link", name="Open the local mailbox").click()
    fits("mailbox")

    # Each friend opens their invitation, follows its link and joins.
    for _, email in PLAYERS[1:]:
        open_mail(page, url, re.compile("invites you to a game"), to=email)
        fits("invitation mail")
        follow_seat_link(page, url)
        fits("invitation page")
        page.get_by_role("button", name="Join the game").click()
        expect(page.get_by_role("button", name="Join the game")).to_have_count(0)

    # Whoever has a "your move" mail plays the first card and the first chip offered.
    started = time.monotonic()
    move = 1
    while True:
        # Ana moves first: move k is Ana's or Léo's, their ((k + 1) // 2)-th "your move" mail.
        mover = PLAYERS[(move - 1) % 2][1]
        subject = open_mail(
            page, url, re.compile(r"Your move, |Game over"), to=mover, count=(move + 1) // 2
        )
        fits("mail")
        if "Game over" in subject:
            break
        assert move <= MOVES, "the game should be over after thirty moves"
        follow_seat_link(page, url)
        expect(page.get_by_text(re.compile(r"Your move\. You must move by "))).to_be_visible()
        fits(f"play page at move {move}")
        if move == SCREENSHOT_AT:
            page.screenshot(path=str(play_shot), full_page=True)
        # Card, market, chip, Send: four taps (a Court adds its suit), on one screen.
        assert tap_a_move(page) <= 5
        fits(f"page after move {move}")
        move += 1
    played = move - 1
    print(f"\n{viewport}: {played} moves, {(time.monotonic() - started) / played:.2f} s a move")
    assert played == MOVES

    # The game-over mail lists the final scores, and its link shows them on the page.
    scores = final_scores(page.locator("pre.mail").inner_text())
    assert sorted(name for name, _ in scores) == sorted(name for name, _ in PLAYERS)
    follow_seat_link(page, url)
    expect(page.get_by_role("heading", name="Final scores")).to_be_visible()
    expect(
        page.get_by_text(re.compile(r"The game is over\. Winner|You win\.|You share the win"))
    ).to_be_visible()
    for name, points in scores:
        standing = page.get_by_role("listitem").filter(has_text=f"{name}: {points} points")
        expect(standing).to_be_visible()
    fits("results page")
    # Nor does any table on it scroll sideways in its own box (market 4, the totals).
    boxed = page.eval_on_selector_all(
        "#results .scroll", "els => els.filter(e => e.scrollWidth > e.clientWidth + 1).length"
    )
    assert boxed == 0, f"{boxed} result tables scroll sideways on the {viewport}"
    page.screenshot(path=str(results_shot), full_page=True)

    for shot in (play_shot, results_shot):
        assert shot.exists() and shot.stat().st_size > 0, shot
    assert not failures, failures
    assert not live_server.sender_errors, live_server.sender_errors
