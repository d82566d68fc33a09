"""Helpers for the browser tests: read the local mailbox and follow links as a person would."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from axe_playwright_python.sync_playwright import Axe
from sqlmodel import select

from pbem import play
from pbem.models import Game, Player, Seat
from pbem.play import Invitee
from pbem.storage.db import read_session, write_session
from pbem.web.signin import GENERATION, PLAYER
from tests.app import FormClient
from tests.web.helpers import play_turn

# Where an element is, and the top of the fixed bar (the screen's foot for what is in the
# bar, or with no bar): what a thumb reaches without scrolling.
_REACH = """(el) => {
  const box = el.getBoundingClientRect();
  const bar = document.querySelector(".tapbar");
  const under = bar && !bar.contains(el);
  const foot = under ? bar.getBoundingClientRect().top : window.innerHeight;
  return {top: box.top, bottom: box.bottom, foot: foot, scrolled: window.scrollY};
}"""

ANA, LEO, ZOE = (
    Invitee("Ana", "ana@example.org"),
    Invitee("Léo", "leo@example.org"),
    Invitee("Zoé Marguerite-Delacroix", "zoe@example.org"),
)

AXE = Axe()
WCAG = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}

SENDER_INTERVAL = 0.2  # seconds between the live server's mail sender runs
VIEWPORTS: dict[str, dict[str, Any]] = {
    "phone": {
        "viewport": {"width": 375, "height": 812},
        "device_scale_factor": 2,
        "is_mobile": True,
        "has_touch": True,
    },
    "desktop": {"viewport": {"width": 1280, "height": 900}},
}


def open_mail(
    page: Any,
    server_url: str,
    subject: str | re.Pattern[str],
    to: str = "",
    wait: float = 10.0,
    count: int = 1,
) -> str:
    """Open the local mailbox and click the newest mail whose subject or first line matches
    `subject` (and, if given, sent to `to`), reloading until `count` such mails are there;
    return the text of the mail clicked in the list."""
    page.goto(f"{server_url}/mailbox/")
    deadline = time.monotonic() + wait
    while True:
        mails = page.get_by_role("listitem")
        if to:
            mails = mails.filter(has_text=to)
        links = mails.get_by_role("link", name=subject)
        if links.count() >= count:
            title = links.first.inner_text()
            links.first.click()
            page.wait_for_load_state()
            return title
        if time.monotonic() > deadline:
            raise AssertionError(f"no mail {subject!r} for {to or 'anyone'} after {wait} s")
        time.sleep(0.1)
        page.reload()


def follow_seat_link(page: Any, server_url: str) -> None:
    """In an open mail, click the player's own game link (not the settings or
    unsubscribe links that follow it)."""
    # Slashes escaped: Playwright hands the pattern to JavaScript as /source/.
    own = re.compile("^" + re.escape(server_url).replace("/", r"\/") + r"\/p\/[^\/\s]+$")
    page.get_by_role("link", name=own).first.click()
    page.wait_for_load_state()


# The page's width against the screen's. Under phone emulation window.innerWidth grows to
# the page's width when the page is too wide (the browser zooms out), so the screen's
# width is the root element's clientWidth. The culprits are the innermost elements that
# stick out, outside containers that scroll on their own (like the score tables),
# longest unbreakable word first.
_TOO_WIDE = """() => {
  const root = document.documentElement, screen = root.clientWidth;
  if (root.scrollWidth <= screen) return [];
  const sticksOut = (el) => el.getBoundingClientRect().right > screen + 0.5;
  const scrolls = (el) => ["auto", "scroll", "hidden"].includes(getComputedStyle(el).overflowX);
  const culprits = [...document.body.querySelectorAll("*")].filter((el) =>
    sticksOut(el) && ![...el.children].some(sticksOut) && !el.parentElement.closest(".scroll"));
  const describe = (el) => `<${el.tagName.toLowerCase()}${el.className ? "." + el.className : ""}>`
    + ` ${Math.round(el.getBoundingClientRect().right)} px: `
    + JSON.stringify((el.textContent || "").replace(/\\s+/g, " ").trim().slice(0, 50));
  const longestWord = (el) =>
    Math.max(...(el.textContent || "").split(/\\s+/).map((word) => word.length));
  culprits.sort((a, b) => longestWord(b) - longestWord(a));
  return [`${root.scrollWidth} px wide on a ${screen} px screen`,
          ...culprits.filter((el) => !scrolls(el)).slice(0, 3).map(describe)];
}"""


def too_wide(page: Any) -> str:
    """Why the page scrolls sideways ("" when it does not): its width and what sticks out."""
    page.wait_for_load_state()
    return "; ".join(page.evaluate(_TOO_WIDE))


def final_scores(mail_text: str) -> list[tuple[str, int]]:
    """(name, points) of each player in a game-over mail's "Final scores" list."""
    return [
        (name, int(points))
        for name, points in re.findall(r"^\d+\. (.+): (\d+) points$", mail_text, re.MULTILINE)
    ]


def tap_a_move(page: Any) -> int:
    """Play a Colour Bazaar move by tapping, as static/table.js offers it: the first card
    that may be played, the first market lit for it (and the first suit, for a Court), the
    first chip, then Send in the bar. Returns the number of taps."""
    from playwright.sync_api import expect

    taps = 0
    page.locator("button.pick:not([disabled])").first.click()
    taps += 1
    here = page.locator("button.here:visible")
    if here.count():  # a discard has no market to tap
        here.first.click()
        taps += 1
    suit = page.locator(".tapbar .suit-pick button")
    if suit.count():
        suit.first.click()
        taps += 1
    page.locator("label.chip").first.click()
    taps += 1
    send = page.locator(".tapbar button.send")
    expect(send).to_be_visible()
    send.click()
    taps += 1
    expect(page.get_by_text("Your move is in", exact=False)).to_be_visible()
    return taps


def wait_until_left(app: Any, game_id: int, seat: int, wait: float = 5.0) -> None:
    """Wait until the server knows the seat's page was left (its script says so as the tab
    goes): a move then mails the player at once, where a page still open would have its
    mail held (issue 31, quiet while you look)."""
    deadline = time.monotonic() + wait
    while True:
        with read_session(app.extensions["pbem"]["engine"]) as session:
            row = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == seat))
            if row.one().seen_at is None:
                return
        if time.monotonic() > deadline:
            raise AssertionError(f"seat {seat}'s page still counts as open after {wait} s")
        time.sleep(0.05)


@dataclass
class LiveServer:
    """A running pbem: its address, its Flask app, and what went wrong in its mail sender."""

    url: str
    app: Any
    sender_errors: list[BaseException] = field(default_factory=list)


def check(page: Any, what: str, viewport: str) -> None:
    """The page fits the screen and axe-core finds no WCAG 2.1 AA violation."""
    assert not (why := too_wide(page)), f"the {what} scrolls sideways on the {viewport}: {why}"
    results = AXE.run(page, options=WCAG)
    assert results.violations_count == 0, f"{what}:\n{results.generate_report()}"


def seat_links(live: LiveServer, game_id: int) -> list[str]:
    site = live.app.extensions["pbem"]["site"]
    with read_session(live.app.extensions["pbem"]["engine"]) as session:
        seats = session.exec(select(Seat).where(Seat.game_id == game_id).order_by(Seat.seat))
        return [site.seat_url(s).removeprefix(live.url) for s in seats]


def finish(live: LiveServer, game_id: int) -> None:
    """Play the rest of a game through the pages, outside the browser (it is not under test)."""
    live.app.test_client_class = FormClient
    client = live.app.test_client()
    links = seat_links(live, game_id)
    for _ in range(40):
        with read_session(live.app.extensions["pbem"]["engine"]) as session:
            game = session.get(Game, game_id)
            status, turn = game.status, (game.state or {}).get("turn")
        if status == "over":
            return
        play_turn(client, links[turn])
    raise AssertionError("the game did not end")


def signed_in(context: Any, live: LiveServer, player_id: int) -> None:
    """Give the browser the session cookie a sign-in link would have set."""
    app = live.app
    with read_session(app.extensions["pbem"]["engine"]) as session:
        player = session.get(Player, player_id)
        assert player is not None
        generation = player.session_generation
    serializer = app.session_interface.get_signing_serializer(app)  # type: ignore[attr-defined]
    value = serializer.dumps({PLAYER: player_id, GENERATION: generation, "_permanent": True})
    context.add_cookies(
        [{"name": app.config["SESSION_COOKIE_NAME"], "value": value, "url": live.url}]
    )


def fill_creator(page: Any) -> None:
    me = page.get_by_role("group", name="You", exact=True)
    me.get_by_label("Name").fill(ANA.name)
    me.get_by_label("Email").fill(ANA.email)


def new_game(live: LiveServer, slug: str = "colour-bazaar", computers: int = 1) -> str:
    """Ana against casual computers (one by default, in Colour Bazaar); her seat link."""
    ext = live.app.extensions["pbem"]
    invitees = [
        play.Invitee("Ana", "ana@example.org"),
        *(play.Invitee("Casual", "", "en", "casual") for _ in range(computers)),
    ]
    options: dict[str, Any] = {"first": 0} if slug == "colour-bazaar" else {}
    with write_session(ext["engine"]) as session:
        now = live.app.config["CLOCK"]()
        game = play.create_game(session, ext["site"], slug, invitees, options, now)
        seat = session.exec(select(Seat).where(Seat.game_id == game.id, Seat.seat == 0)).one()
        return str(ext["site"].seat_url(seat))


def out_of_reach(where: dict[str, float]) -> bool:
    """Whether a box lies outside the screen above the bar, or the page had scrolled."""
    return where["top"] < 0 or where["bottom"] > where["foot"] + 0.5 or where.get("scrolled", 0) > 0


def game_state(live: LiveServer, game_id: int = 1) -> Game:
    with read_session(live.app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None
        return game


def sign_in(page: Any, live: LiveServer, player_id: int) -> None:
    """The browser holds the player's session cookie, as pressing a sign-in link gives."""
    app = live.app
    with read_session(app.extensions["pbem"]["engine"]) as session:
        player = session.get(Player, player_id)
        assert player is not None
        generation = player.session_generation
    serializer = app.session_interface.get_signing_serializer(app)
    value = serializer.dumps({PLAYER: player_id, GENERATION: generation, "_permanent": True})
    page.context.add_cookies(
        [{"name": app.config["SESSION_COOKIE_NAME"], "value": value, "url": live.url}]
    )
