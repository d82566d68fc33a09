"""The live page (issues 31 and 47) in Debian's Chromium: a player against a computer, with
their seat page open, sees each move (theirs by the API, the computer's reply) put in place
on the page, pushed by `pbem live`, and gets no "your move" mail for it (mails counted at
a real SMTP server); the time from the reply's commit to the page showing it is printed.
A choice under way is kept: a talk draft stays while moves come, and a bar offers what
would replace it. With the stream down the page polls, answered 304 until the game moves.
With the page closed, the mail held while it was open goes at once, and so does the next
reply. axe-core finds nothing at 375 and 1280
px in each state."""

from __future__ import annotations

import re
import statistics
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect
from sqlmodel import select

from pbem import play
from pbem.clock.scheduler import computer_moves
from pbem.config import settings_of
from pbem.models import Game, Seat
from pbem.players import talk
from pbem.present.forms import TalkForm
from pbem.storage.db import read_session, write_session
from tests.app import Inbox
from tests.browser.helpers import VIEWPORTS, LiveServer, tap_a_move
from tests.web.helpers import headline

ANA = ("Ana", "ana@example.org")
COMPUTER_INTERVAL = 0.2  # seconds between the computer sweeps of the thread below
NEVER = 5000  # ms: a reply not shown by then is not shown at all (the figure is printed)
AXE = Axe()
WCAG = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
# When each log entry first showed on the page, in ms since the epoch (the browser's clock
# is the machine's, as the commit's is): entries are put in place, not loaded.
SHOWN_AT = """
window.pbemShownAt = {};
new MutationObserver(() => {
  document.querySelectorAll("ol.log > li[value]").forEach((li) => {
    const value = li.getAttribute("value");
    if (!(value in window.pbemShownAt)) {
      window.pbemShownAt[value] = performance.timeOrigin + performance.now();
    }
  });
}).observe(document, { childList: true, subtree: true });
"""


@pytest.fixture
def live_config(smtpd: Inbox) -> dict[str, Any]:
    """Mail to the test SMTP server, where it is counted; a computer that waits a second."""
    return {
        "MAIL_BACKEND": "smtp",
        "SMTP_HOST": "127.0.0.1",
        "SMTP_PORT": smtpd.port,  # type: ignore[attr-defined]
        "SMTP_TIMEOUT": 5.0,
        "COMPUTER_DELAY": 1.0,
    }


class Computers:
    """The clock's computer sweep in a thread, and when each of its moves was committed."""

    def __init__(self) -> None:
        self.errors: list[BaseException] = []
        self.committed: dict[int, float] = {}  # log entry value (the new ply): epoch ms


@pytest.fixture
def computers(live_server: LiveServer) -> Iterator[Computers]:
    """The clock's computer sweep, run as the clock runs it (pbem.clock.scheduler), every
    0.2 s in a thread; what went wrong in it, and when each move was committed (the sweep
    returns once its transaction has committed)."""
    found = Computers()
    stop = threading.Event()

    def sweep() -> None:
        while not stop.wait(COMPUTER_INTERVAL):
            try:
                if computer_moves(live_server.app):
                    found.committed[ply_of(live_server)] = time.time() * 1000
            except Exception as exc:  # kept for the test to report, not lost in a thread
                found.errors.append(exc)

    thread = threading.Thread(target=sweep, name="pbem-computers", daemon=True)
    thread.start()
    try:
        yield found
    finally:
        stop.set()
        thread.join(timeout=10)


def new_game_against_the_computer(live: LiveServer) -> str:
    """Ana against a casual computer, Ana first, as the lobby makes it; her seat link."""
    ext = live.app.extensions["pbem"]
    invitees = [play.Invitee(*ANA), play.Invitee("Casual", "", "en", "casual")]
    with write_session(ext["engine"]) as session:
        game = play.create_game(
            session,
            ext["site"],
            "colour-bazaar",
            invitees,
            {"first": 0},
            live.app.config["CLOCK"](),
        )
        seat = session.exec(select(Seat).where(Seat.game_id == game.id, Seat.seat == 0)).one()
        return str(ext["site"].seat_url(seat))


def ply_of(live: LiveServer) -> int:
    """How far the game has gone."""
    with read_session(live.app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, 1)
        assert game is not None
        return game.ply


def move_by_api(page: Any, link: str) -> None:
    """Ana plays her first legal move through the JSON API of her link (as her phone's app
    would, the page staying open as it is)."""
    api = link.replace("/p/", "/api/v1/seat/")
    view = page.request.get(api).json()
    sent = page.request.post(
        f"{api}/move", data={"turn": view["turn"], "move": view["legal_moves"][0]}
    )
    assert sent.ok, sent.text()


def turn_mails(smtpd: Inbox) -> int:
    """The "your move" mails the SMTP server got for Ana."""
    return sum("your move" in headline(m) for m in smtpd.to(ANA[1]))


def wait_for_mails(smtpd: Inbox, count: int) -> None:
    """Wait (10 s at most) for Ana's "your move" mails to reach `count`: the computer's
    second, the page's beacon, the sender's next drain."""
    deadline = time.monotonic() + 10
    while turn_mails(smtpd) < count and time.monotonic() < deadline:
        time.sleep(0.1)


def seen_at(live: LiveServer) -> Any:
    """When Ana's seat was last seen looking (None: not looking)."""
    with read_session(live.app.extensions["pbem"]["engine"]) as session:
        seat = session.exec(select(Seat).where(Seat.game_id == 1, Seat.seat == 0)).one()
        return seat.seen_at


def check(page: Any, what: str) -> None:
    """axe-core finds no WCAG 2.1 AA violation."""
    results = AXE.run(page, options=WCAG)
    assert results.violations_count == 0, f"{what}:\n{results.generate_report()}"


def database_of(live: LiveServer) -> str:
    return live.app.extensions["pbem"]["engine"].dialect.name


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_computers_reply_is_put_in_place_and_sends_no_mail(
    page: Any,
    viewport: str,
    live_server: LiveServer,
    computers: Computers,
    smtpd: Inbox,
    artifacts: Path,
) -> None:
    link = new_game_against_the_computer(live_server)
    expect_mails = 1  # the first "your move", sent as the game started
    page.add_init_script(SHOWN_AT)
    page.goto(link)
    expect(page.get_by_text("Your move.", exact=False).first).to_be_visible()
    loads = []
    page.on("load", lambda _: loads.append(1))
    shown_after: list[float] = []
    for _ in range(4):
        before = ply_of(live_server)
        move_by_api(page, link)
        # Ana's move, then the computer's after its second (the log's entry for ply p has
        # value p + 1), each marked as just arrived, with no reload of the page.
        mine = page.locator(f'ol.log > li[value="{before + 1}"]')
        reply = page.locator(f'ol.log > li[value="{before + 2}"]')
        expect(mine).to_be_visible(timeout=NEVER)
        expect(reply).to_be_visible(timeout=NEVER + 2000)
        expect(reply).to_have_class(re.compile(r"\barrived\b"))
        expect(page.locator(".tapbar")).to_have_count(1)  # tap to play, set up anew
        shown = page.evaluate("(value) => window.pbemShownAt[value]", str(before + 2))
        shown_after.append(shown - computers.committed[before + 2])
    assert loads == [], "the page reloaded instead of putting the moves in place"
    assert max(shown_after) < NEVER, f"a reply took {max(shown_after):.0f} ms to show"
    print(
        f"\n{viewport}, {database_of(live_server)}: each computer reply shown "
        + ", ".join(f"{ms:.0f}" for ms in shown_after)
        + f" ms after its commit (median {statistics.median(shown_after):.0f} ms)"
    )
    page.screenshot(path=str(artifacts / f"live-reply-{viewport}.png"))
    page.locator("#log").screenshot(path=str(artifacts / f"live-reply-log-{viewport}.png"))
    check(page, "the page after replies put in place")

    # A choice under way is kept: the moves come around a talk draft...
    draft = page.locator("#talk textarea").first
    draft.fill("Well played")
    before = ply_of(live_server)
    move_by_api(page, link)
    expect(page.locator(f'ol.log > li[value="{before + 2}"]')).to_be_visible(timeout=NEVER)
    expect(draft).to_have_value("Well played")
    # ...and what would replace it waits behind a bar: here a message to the table.
    with write_session(live_server.app.extensions["pbem"]["engine"]) as session:
        said = TalkForm.read({"to": "all", "text": "Thank you, Ana"})
        talk.post(session, 1, 1, said, live_server.app.config["CLOCK"]())
    bar = page.get_by_role("status").filter(has_text="The game has moved on")
    expect(bar).to_be_visible(timeout=NEVER)
    expect(draft).to_have_value("Well played")  # not replaced
    expect(page.get_by_text("Thank you, Ana")).to_have_count(0)
    page.screenshot(path=str(artifacts / f"live-moved-on-{viewport}.png"))
    check(page, "the page with the bar")
    assert loads == []
    bar.get_by_role("link", name="Show").click()
    expect(page.get_by_text("Thank you, Ana")).to_be_visible()
    # The sender has drained the outbox many times since the replies: none was mailed.
    assert turn_mails(smtpd) == expect_mails, "a computer's reply was mailed to an open page"

    # Page closed: the mail held while it was open goes at once (she left without moving)...
    page.goto(f"{live_server.url}/")
    expect_mails += 1
    wait_for_mails(smtpd, expect_mails)
    assert turn_mails(smtpd) == expect_mails, "the held mail stayed held after the page closed"
    assert seen_at(live_server) is None
    # ...and the next reply is mailed at once.
    before = ply_of(live_server)
    move_by_api(page, link)
    expect_mails += 1
    wait_for_mails(smtpd, expect_mails)
    assert ply_of(live_server) == before + 2
    assert turn_mails(smtpd) == expect_mails, "the reply was not mailed to a closed page"
    assert not computers.errors and not live_server.sender_errors


@pytest.mark.parametrize("viewport", ["phone"])
def test_with_the_stream_down_the_page_polls_and_is_answered_304(
    page: Any, viewport: str, live_server: LiveServer, computers: Computers, smtpd: Inbox
) -> None:
    link = new_game_against_the_computer(live_server)
    page.route("**/live/**", lambda route: route.abort())  # `pbem live` unreachable
    polls: list[int] = []
    page.on("response", lambda r: polls.append(r.status) if r.url.endswith("/ply") else None)
    page.goto(link)
    expect(page.get_by_text("Your move.", exact=False).first).to_be_visible()
    deadline = time.monotonic() + 10
    while polls.count(304) < 2 and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    assert polls.count(304) >= 2, f"polls answered {polls}"  # nothing new: no body
    before = ply_of(live_server)
    move_by_api(page, link)
    reply = page.locator(f'ol.log > li[value="{before + 2}"]')
    expect(reply).to_be_visible(timeout=NEVER + 3000)  # the computer's second, 2.5 s polls
    expect(reply).to_have_class(re.compile(r"\barrived\b"))
    assert 200 in polls
    # Looking by its polls: the reply was not mailed.
    assert turn_mails(smtpd) == 1
    assert not computers.errors and not live_server.sender_errors


@pytest.mark.parametrize("viewport", ["phone"])
def test_your_own_move_stays_yours_when_the_stream_tells_it_first(
    page: Any, viewport: str, live_server: LiveServer, computers: Computers, smtpd: Inbox
) -> None:
    """The stream tells of Ana's own move before her Send is answered; the page it makes
    the live page fetch comes back after the answer is in place. That page is dropped:
    "Your move is in" stays, her move is not shown as news, and the computer's reply,
    when it comes, is put in place under it ("it is your turn again")."""
    link = new_game_against_the_computer(live_server)
    path = urlsplit(link).path
    # The computer answers after the held answer and the held fetch are through.
    settings_of(live_server.app).computer_delay = 5.0

    def slowly(route: Any) -> None:
        # Handlers run one after the other. The Send's answer (its redirect) is held 2 s,
        # time for the stream's news of the move; the live page's fetch that news starts
        # gets the page as it is then, and is answered only after the Send's answer.
        request = route.request
        if request.method == "POST" and request.url.endswith("/move"):
            answer = route.fetch(max_redirects=0)
            time.sleep(2)
            route.fulfill(response=answer)
        elif request.method == "GET" and request.resource_type == "fetch":
            answer = route.fetch()
            time.sleep(1.5)
            route.fulfill(response=answer)
        else:
            route.continue_()

    page.route(lambda url: urlsplit(url).path in (path, f"{path}/move"), slowly)
    page.goto(link)
    expect(page.get_by_text("Your move.", exact=False).first).to_be_visible()
    before = ply_of(live_server)
    tap_a_move(page)  # waits for "Your move is in"
    reply = page.locator(f'ol.log > li[value="{before + 2}"]')
    expect(reply).to_be_visible(timeout=NEVER + 4000)
    expect(page.get_by_text("Your move is in, and it is your turn again")).to_be_visible()
    expect(reply).to_have_class(re.compile(r"\barrived\b"))
    mine = page.locator(f'ol.log > li[value="{before + 1}"]')
    expect(mine).not_to_have_class(re.compile(r"\barrived\b"))
    assert not computers.errors and not live_server.sender_errors
