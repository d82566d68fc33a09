"""The "Plan ahead" part of a two-player Colour Bazaar page on a phone and a desktop, in
Chromium. The plan opens with one tap (a link, in place); with JavaScript a line is then made
the way a move is, without a reload: a tap on a market of the card you expect them to play,
then your answer tapped on the table as it would be (card, lit market, chip): at most four taps
a line (five with a Court's suit), one level and the next; listed, removed. Without JavaScript
the same link opens it, their moves are listed by card, each card with its markets, and the
answer is a form like the turn form. The cards offered are only the ones the planner cannot
place. Each step fits the screen, axe-core finds no WCAG 2.1 AA violation; screenshots land in
test-artifacts/ (plan-<step>-<viewport>.png)."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect
from sqlmodel import select

from pbem.games import ahead
from pbem.models import Game, Seat
from pbem.play import Invitee, create_game, join
from pbem.storage.db import read_session, write_session
from pbem.storage.store import seats_of
from tests.browser.helpers import _REACH, VIEWPORTS, LiveServer, check, out_of_reach, tap_a_move

PLAYERS = [Invitee("Ana", "ana@example.org"), Invitee("Léo", "leo@example.org")]


def waiting_link(live: LiveServer) -> tuple[str, int, int]:
    """A two-player game just started (fixed seed): the link of the seat not to move, the
    game and that seat."""
    ext = live.app.extensions["pbem"]
    clock = live.app.config["CLOCK"]
    with write_session(ext["engine"]) as session:
        game = create_game(session, ext["site"], "colour-bazaar", PLAYERS, {}, clock(), seed=5)
        join(session, ext["site"], game.id, 1, clock())
        game_id = game.id
    with read_session(ext["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.state is not None
        waiting = 1 - game.state["turn"]
        seat = next(s for s in seats_of(session, game) if s.seat == waiting)
        return ext["site"].seat_url(seat).removeprefix(live.url), game_id, waiting


def kept(live: LiveServer, game_id: int, seat: int) -> Any:
    with read_session(live.app.extensions["pbem"]["engine"]) as session:
        found = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == seat))
        return found.one().ahead


def game_state(live: LiveServer, game_id: int) -> dict[str, Any]:
    with read_session(live.app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.state is not None
        return game.state


def offered_cards(page: Any) -> set[str]:
    """The cards of theirs the page offers, read from its links."""
    hrefs = page.locator("#plan a.their").evaluate_all("els => els.map(e => e.href)")
    return {parse_qs(urlsplit(h).query)["ahead_their"][0].split("@")[0] for h in hrefs}


def open_plan(page: Any) -> None:
    """Open the plan (one tap, in place): their moves are listed from then on."""
    page.locator("#plan a.open-plan").click()
    expect(page.locator("#plan a.their").first).to_be_visible()


def tap(page: Any, target: Any, missed: list[str], what: str) -> None:
    """Tap `target`, noting it when it was out of reach (under the bar, off the screen)."""
    # The plan is below the table: the page is scrolled to it, its taps on one screen.
    if out_of_reach({**target.evaluate(_REACH), "scrolled": 0}):
        missed.append(what)
    target.click()


def tap_a_line(page: Any, rng: random.Random, missed: list[str]) -> int:
    """A plan line tapped: their card on a market, then my card, a lit market (a suit for a
    Court) and a chip; the taps it took. Their move may need a scroll down the list (it is
    not counted as out of reach); the answer's taps are in view."""
    theirs = page.locator("#plan a.their")
    theirs.nth(rng.randrange(theirs.count())).click()
    taps = 1
    form = page.locator("#plan-form")
    expect(form).to_be_visible()
    cards = form.locator("button.pick:not([disabled])")
    tap(page, cards.nth(rng.randrange(cards.count())), missed, "card")
    taps += 1
    here = form.locator("button.here:visible")
    if here.count():
        tap(page, here.nth(rng.randrange(here.count())), missed, "market")
        taps += 1
    suits = page.locator(".tapbar .suit-pick button")
    if suits.count():
        tap(page, suits.first, missed, "suit")
        taps += 1
    chips = form.locator("label.chip")
    tap(page, chips.nth(rng.randrange(chips.count())), missed, "chip")
    taps += 1
    expect(page.locator("#plan-form")).to_have_count(0)
    return taps


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_plan_line_is_made_like_a_move(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    link, game_id, me = waiting_link(live_server)
    page.goto(live_server.url + link + "?lang=en")
    page.evaluate("window.notReloaded = true")
    section = page.locator("#plan")
    expect(section).to_be_visible()
    expect(section.locator("a.their")).to_have_count(0)
    section.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / f"plan-0-closed-{viewport}.png"))
    open_plan(page)
    # Only cards the planner cannot place: none of its hand, none on the markets.
    state = game_state(live_server, game_id)
    seen = set(state["hands"][me]) | {c for market in state["markets"] for c in market}
    cards = offered_cards(page)
    assert cards and not cards & seen
    assert cards == {m["card"] for m in ahead.their_moves(state, me) if "card" in m}
    links = page.locator("#plan a.their").count()
    print(f"\n{viewport}: their moves as {len(cards)} cards with {links} market links")
    section.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / f"plan-1-their-move-{viewport}.png"))
    page.screenshot(path=str(artifacts / f"plan-1-their-move-whole-{viewport}.png"), full_page=True)
    check(page, "plan ahead, their moves", viewport)

    rng = random.Random(3)
    missed: list[str] = []
    # Their move: the answer's table comes in place, in view.
    page.locator("#plan a.their").nth(rng.randrange(links)).click()
    expect(page.locator("#plan-form")).to_be_visible()
    page.screenshot(path=str(artifacts / f"plan-2-answer-{viewport}.png"))
    check(page, "plan ahead, the table after their move", viewport)
    form = page.locator("#plan-form")
    tap(page, form.locator("button.pick:not([disabled])").first, missed, "card")
    page.screenshot(path=str(artifacts / f"plan-3-card-{viewport}.png"))
    check(page, "plan ahead, my card picked", viewport)
    tap(page, form.locator("button.here:visible").first, missed, "market")
    tap(page, form.locator("label.chip").first, missed, "chip")
    expect(page.locator(".plan-list > li")).to_have_count(1)
    assert page.evaluate("window.notReloaded === true"), "the page reloaded"
    page.screenshot(path=str(artifacts / f"plan-4-kept-{viewport}.png"))
    check(page, "plan ahead, a line kept", viewport)
    tree = kept(live_server, game_id, me)["tree"]
    assert len(tree) >= 5 and len({str(ahead.chipless(b["if"])) for b in tree}) == 1

    # More lines, and one more level: each at most four taps (five with a Court's suit).
    taps = [4]
    for _ in range(2):
        taps.append(tap_a_line(page, rng, missed))
    page.locator("#plan a.next-link").first.click()
    expect(page.locator(".plan-under")).to_be_visible()
    page.screenshot(path=str(artifacts / f"plan-5-next-level-{viewport}.png"))
    check(page, "plan ahead, their move after a line", viewport)
    taps.append(tap_a_line(page, rng, missed))
    expect(page.locator(".plan-next li")).to_have_count(1)
    page.screenshot(path=str(artifacts / f"plan-6-two-levels-{viewport}.png"))
    check(page, "plan ahead, two levels", viewport)
    assert page.evaluate("window.notReloaded === true"), "the page reloaded"
    print(f"{viewport}: taps per plan line: {taps}; answer taps out of reach: {len(missed)}")
    assert max(taps) <= 5 and all(t <= 4 for t in taps if t != 5), taps
    assert not missed, missed

    page.locator(".plan-list").get_by_role("button", name="Remove").first.click()
    expect(page.locator(".plan-list > li")).to_have_count(2)
    page.get_by_role("button", name="Clear the plan").click()
    expect(page.locator(".plan-list")).to_have_count(0)
    page.screenshot(path=str(artifacts / f"plan-7-cleared-{viewport}.png"))
    check(page, "plan ahead, cleared", viewport)
    assert kept(live_server, game_id, me) is None


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_without_javascript_their_moves_are_listed_by_card(
    chromium: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    link, game_id, me = waiting_link(live_server)
    context = chromium.new_context(**VIEWPORTS[viewport], java_script_enabled=False)
    context.set_default_timeout(10_000)
    page = context.new_page()
    try:
        page.goto(live_server.url + link + "?lang=fr")
        plan = page.locator("#plan")
        expect(plan.get_by_role("heading", name="Prévoir ses coups")).to_be_visible()
        plan.get_by_role("link", name="Prévoir votre réponse à leur coup").click()
        # One entry a card, its markets as links: no list of hundreds of options.
        cards = plan.locator("ul.their-cards > li")
        assert plan.locator("option").count() == 0 and cards.count() == len(offered_cards(page))
        plan.scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / f"plan-nojs-1-their-move-{viewport}.png"))
        cards.first.locator("a.their").first.click()
        form = page.locator("#plan-form")
        expect(form).to_be_visible()
        expect(form.get_by_text(re.compile(r"^S'ils jouent .+ sur le marché \d"))).to_be_visible()
        form.locator('input[name="play"]').first.check()
        form.locator('input[name="chip"]').first.check()
        plan.screenshot(path=str(artifacts / f"plan-nojs-2-answer-{viewport}.png"))
        form.get_by_role("button", name="Ajouter au plan").click()
        expect(page.locator(".plan-list > li")).to_have_count(1)
        plan.screenshot(path=str(artifacts / f"plan-nojs-3-kept-{viewport}.png"))
        assert kept(live_server, game_id, me)["tree"]
    finally:
        context.close()


@pytest.mark.parametrize("viewport", ["phone"])
def test_after_sending_a_move_the_plan_is_made_on_the_same_page(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    waiting, game_id, me = waiting_link(live_server)
    with read_session(live_server.app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None
        site = live_server.app.extensions["pbem"]["site"]
        mover = next(s for s in seats_of(session, game) if s.seat != me)
        link = site.seat_url(mover).removeprefix(live_server.url)
    page.goto(live_server.url + link + "?lang=en")
    page.evaluate("window.notReloaded = true")
    assert tap_a_move(page) == 4
    # The page after the move, put in place by table.js: now the other is to move, and a
    # plan line is four taps more once the plan is opened, the page still not reloaded.
    open_plan(page)
    missed: list[str] = []
    assert tap_a_line(page, random.Random(5), missed) <= 5
    expect(page.locator(".plan-list > li")).to_have_count(1)
    assert page.evaluate("window.notReloaded === true"), "the page reloaded"
    assert kept(live_server, game_id, 1 - me)["tree"]
    page.screenshot(path=str(artifacts / f"plan-8-after-a-move-{viewport}.png"))
