"""The Colour Bazaar table on a phone and a desktop, in Debian's Chromium: from a turn mail's
link a move is four taps on one screen (card, market, chip, Send) with no scrolling and no
reload; without JavaScript the review is a page of its own, in view, that reloads and
switches language; axe-core finds no WCAG 2.1 AA violation in any state, greyed cards
included. Screenshots of each step land in test-artifacts/ (cb-<step>-<viewport>.png)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from pbem import play
from pbem.games.colour_bazaar import allowed_plays
from pbem.models import Game
from pbem.play import Invitee, create_game, join
from pbem.storage.db import read_session, write_session
from pbem.storage.store import seats_of
from tests.app import FormClient
from tests.browser.helpers import (
    VIEWPORTS,
    LiveServer,
    check,
    follow_seat_link,
    game_state,
    open_mail,
    tap_a_move,
    wait_until_left,
)
from tests.web.helpers import play_turn

PLAYERS = [Invitee("Ana", "ana@example.org"), Invitee("Léo", "leo@example.org")]


def late_game(live: LiveServer, moves: int) -> list[str]:
    """A two-player game (Courts in), started and played `moves` moves through the pages
    outside the browser, stopped where Ana is to move holding a card she cannot play (a
    greyed card); each seat's link. Fixed seeds deal the same cards in every run."""
    ext = live.app.extensions["pbem"]
    with write_session(ext["engine"]) as session:
        game = create_game(
            session,
            ext["site"],
            "colour-bazaar",
            PLAYERS,
            {"courts": True},
            live.app.config["CLOCK"](),
            # A seed given (the tests' seeded one): the deal this test's screens are made for.
            seed=play.new_seed(),
        )
        join(session, ext["site"], game.id, 1, live.app.config["CLOCK"]())
        links = [ext["site"].seat_url(s).removeprefix(live.url) for s in seats_of(session, game)]
    live.app.test_client_class = FormClient
    client = live.app.test_client()
    for _ in range(40):
        state = game_state(live).state
        assert state is not None and not state["over"]
        playable = {card for card, _ in allowed_plays(state, 0)} if state["turn"] == 0 else set()
        greyed = playable and any(c not in playable for c in state["hands"][0])
        if state["ply"] >= moves and greyed:
            return links
        play_turn(client, links[state["turn"]])
    raise AssertionError("no late turn of Ana's with a greyed card")


def boxes(page: Any, selector: str) -> list[dict[str, float]]:
    """The boxes (in the viewport, CSS pixels) of the elements matching `selector`."""
    return page.eval_on_selector_all(
        selector,
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; })",
    )


def height(page: Any) -> int:
    return int(page.evaluate("document.documentElement.scrollHeight"))


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_move_is_four_taps_on_one_screen(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    url = live_server.url
    late_game(live_server, moves=14)
    before = game_state(live_server).ply
    screen = VIEWPORTS[viewport]["viewport"]["height"]

    # From Ana's latest turn mail to her seat page.
    open_mail(page, url, re.compile("Your move, "), to=PLAYERS[0].email, count=before // 2 + 1)
    follow_seat_link(page, url)
    page.evaluate("window.notReloaded = true")
    bar = page.locator(".tapbar")
    expect(bar).to_be_visible()
    page.screenshot(path=str(artifacts / f"cb-1-turn-{viewport}.png"), full_page=False)
    page.screenshot(path=str(artifacts / f"cb-1-turn-whole-{viewport}.png"), full_page=True)
    print(f"\n{viewport}: the seat page is {height(page)} px tall")
    expect(page.locator(".at-card .card.dim").first).to_be_attached()
    check(page, "turn page with a greyed card", viewport)

    # The board's top cards, the hand, the chips and the bar all in the first screen, the
    # hand and chips above the bar (nothing to scroll to, nothing hidden under the bar).
    bar_top = boxes(page, ".tapbar")[0]["top"]
    for what, selector, limit in (
        ("top card", ".market .card.big", screen),
        ("hand card", "button.pick", bar_top),
        ("chip", "label.chip", bar_top),
    ):
        found = boxes(page, selector)
        assert found, what
        for box in found:
            assert 0 <= box["top"] and box["bottom"] <= limit, (what, box, limit)

    # Tap a card: only its legal markets light up.
    ana = game_state(live_server).state
    page.locator("button.pick:not([disabled])").first.click()
    lit = page.locator(".market.legal")
    expect(lit.first).to_be_visible()
    card = page.locator("button.pick[aria-pressed=true] .card").get_attribute("class")
    assert card is not None
    legal = {market + 1 for c, market in allowed_plays(ana, 0)}
    assert {int(n) for n in lit.evaluate_all("els => els.map(e => e.dataset.market)")} <= legal
    page.screenshot(path=str(artifacts / f"cb-2-card-{viewport}.png"))
    check(page, "a card picked, its markets lit", viewport)
    page.locator("button.here:visible").first.click()
    suit = page.locator(".tapbar .suit-pick button")
    if suit.count():
        suit.first.click()
    page.locator("label.chip").first.click()
    send = bar.get_by_role("button", name="Send")
    expect(send).to_be_visible()
    # The bar says the move as it will be made, to the one who makes it (issue 47: not "Ana
    # played" to Ana).
    said = re.compile(r"^You play .+ and take an? .+ chip\.$")
    expect(bar.locator(".say")).to_contain_text(said)
    page.screenshot(path=str(artifacts / f"cb-3-confirm-{viewport}.png"))
    check(page, "the move in the bar", viewport)
    assert page.evaluate("window.scrollY") == 0, "a tap needed scrolling"
    send.click()
    expect(page.get_by_text("Your move is in.", exact=False)).to_be_visible()
    assert page.evaluate("window.notReloaded === true"), "the page reloaded"
    assert game_state(live_server).ply == before + 1
    page.screenshot(path=str(artifacts / f"cb-4-sent-{viewport}.png"), full_page=True)
    check(page, "the page after the move", viewport)

    # Léo's next move, then Ana taps a whole move from her mail in 4 taps (5 with a Court).
    # She leaves her page first: while it is open, Léo's move shows there, not by mail.
    page.goto(f"{url}/")
    wait_until_left(live_server.app, 1, 0)
    play_turn(live_server.app.test_client(), _links(live_server)[1])
    open_mail(page, url, re.compile("Your move, "), to=PLAYERS[0].email, count=before // 2 + 2)
    follow_seat_link(page, url)
    taps = tap_a_move(page)
    assert taps <= 5 and game_state(live_server).ply == before + 3
    print(f"{viewport}: a move took {taps} taps")
    assert not live_server.sender_errors, live_server.sender_errors


def _links(live: LiveServer) -> list[str]:
    ext = live.app.extensions["pbem"]
    with read_session(ext["engine"]) as session:
        game = session.get(Game, 1)
        assert game is not None
        return [ext["site"].seat_url(s).removeprefix(live.url) for s in seats_of(session, game)]


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_without_javascript_the_review_is_a_page_in_view(
    chromium: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    url = live_server.url
    links = late_game(live_server, moves=14)
    before = game_state(live_server).ply
    # axe-core needs scripts: the same pages with only the table's own script kept out.
    context = chromium.new_context(**VIEWPORTS[viewport])
    page = context.new_page()
    page.route("**/static/table.js", lambda route: route.abort())
    try:
        page.goto(url + links[0])
        expect(page.get_by_role("button", name="Review the move")).to_be_visible()
        page.screenshot(path=str(artifacts / f"cb-nojs-1-turn-{viewport}.png"), full_page=True)
        print(f"\n{viewport}: without JavaScript the seat page is {height(page)} px tall")
        expect(page.locator(".at-card .card.dim").first).to_be_visible()
        check(page, "turn page without JavaScript, a greyed card in hand", viewport)
        page.get_by_role("group", name=re.compile(r"^1\. ")).get_by_role("radio").first.check()
        page.get_by_role("group", name="2. Take a chip").get_by_role("radio").first.check()
        page.get_by_role("button", name="Review the move").click()
        expect(page.locator("#confirm")).to_be_in_viewport()
        page.screenshot(path=str(artifacts / f"cb-nojs-2-review-{viewport}.png"))
        check(page, "review without JavaScript", viewport)
    finally:
        context.close()

    context = chromium.new_context(**VIEWPORTS[viewport], java_script_enabled=False)
    context.set_default_timeout(10_000)
    page = context.new_page()
    try:
        page.goto(url + links[0])
        expect(page.locator(".tapbar")).to_have_count(0)
        # Each choice names the top card it would cover.
        expect(page.get_by_text(re.compile(r"on market \d \(on .+\)")).first).to_be_visible()
        page.get_by_role("group", name=re.compile(r"^1\. ")).get_by_role("radio").first.check()
        page.get_by_role("group", name="2. Take a chip").get_by_role("radio").first.check()
        page.get_by_role("button", name="Review the move").click()
        # The review lands in view, at its own address.
        expect(page.locator("#confirm")).to_be_in_viewport()
        assert page.url.endswith("?review=1#confirm"), page.url
        # A reload and the language switch keep the review.
        page.reload()
        expect(page.get_by_role("heading", name="Check your move")).to_be_in_viewport()
        page.get_by_role("link", name="FR", exact=True).click()
        expect(page.get_by_role("heading", name="Vérifiez votre coup")).to_be_visible()
        page.get_by_role("link", name="EN", exact=True).click()
        # "Change it" brings the form back with the choices kept, then the move is sent.
        page.get_by_role("link", name="Change it").click()
        first = page.get_by_role("group", name=re.compile(r"^1\. ")).get_by_role("radio").first
        expect(first).to_be_checked()
        page.get_by_role("button", name="Review the move").click()
        page.get_by_role("button", name="Send this move").click()
        expect(page.get_by_text("Your move is in.", exact=False)).to_be_visible()
        assert game_state(live_server).ply == before + 1
        # The review is gone with the move: the old review address shows the table.
        page.goto(url + links[0] + "?review=1")
        expect(page.get_by_role("heading", name="Check your move")).to_have_count(0)
    finally:
        context.close()
