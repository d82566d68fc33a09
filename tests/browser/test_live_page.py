"""The live page (issue 31) in Debian's Chromium: a player against a computer, with their
seat page open, gets each computer reply on the page within seconds and no "your move"
mail for it (mails counted at a real SMTP server); a choice under way is kept and a bar
offers the new moves; with the page closed, the reply is mailed at once."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from sqlmodel import select

from pbem import play
from pbem.clock.scheduler import computer_moves
from pbem.models import Game, Seat
from pbem.storage.db import read_session, write_session
from tests.browser.conftest import VIEWPORTS, LiveServer
from tests.conftest import Inbox
from tests.web.helpers import headline

ANA = ("Ana", "ana@example.org")
COMPUTER_INTERVAL = 0.2  # seconds between the computer sweeps of the thread below


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


@pytest.fixture
def computers(live_server: LiveServer) -> Iterator[list[BaseException]]:
    """The clock's computer sweep, run as the clock runs it (pbem.clock.scheduler), every
    0.2 s in a thread; what went wrong in it, for the test to report."""
    errors: list[BaseException] = []
    stop = threading.Event()

    def sweep() -> None:
        while not stop.wait(COMPUTER_INTERVAL):
            try:
                computer_moves(live_server.app)
            except Exception as exc:  # kept for the test to report, not lost in a thread
                errors.append(exc)

    thread = threading.Thread(target=sweep, name="pbem-computers", daemon=True)
    thread.start()
    try:
        yield errors
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


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_computers_reply_shows_on_the_open_page_and_sends_no_mail(
    page: Any,
    viewport: str,
    live_server: LiveServer,
    computers: list[BaseException],
    smtpd: Inbox,
    artifacts: Path,
) -> None:
    link = new_game_against_the_computer(live_server)
    expect_mails = 1  # the first "your move", sent as the game started
    page.goto(link)
    expect(page.get_by_text("Your move.", exact=False).first).to_be_visible()
    for _ in range(3):
        before = ply_of(live_server)
        move_by_api(page, link)
        # The computer answers after its second (the log's entry for ply p has value p + 1);
        # the page shows the reply, marked as just arrived, within 5 s of Ana's move.
        reply = page.locator(f'ol.log > li[value="{before + 2}"]')
        expect(reply).to_be_visible(timeout=5000)
        expect(reply).to_have_class(re.compile(r"\barrived\b"))
    page.screenshot(path=str(artifacts / f"live-reply-{viewport}.png"))
    page.locator("#log").screenshot(path=str(artifacts / f"live-reply-log-{viewport}.png"))
    # A choice under way is never thrown away: the page offers the new moves instead.
    draft = page.locator("#talk textarea").first
    draft.fill("Well played")
    move_by_api(page, link)
    bar = page.get_by_role("status").filter(has_text="The game has moved on")
    expect(bar).to_be_visible(timeout=5000)
    expect(draft).to_have_value("Well played")  # not reloaded
    page.screenshot(path=str(artifacts / f"live-moved-on-{viewport}.png"))
    bar.get_by_role("link", name="Show").click()
    expect(page.locator("ol.log > li.arrived").first).to_be_visible()
    # The sender has drained the outbox many times since the replies: none was mailed.
    assert turn_mails(smtpd) == expect_mails, "a computer's reply was mailed to an open page"

    # Page closed: the next reply is mailed at once.
    page.goto(f"{live_server.url}/")
    before = ply_of(live_server)
    move_by_api(page, link)
    expect_mails += 1
    deadline = time.monotonic() + 10
    while turn_mails(smtpd) < expect_mails and time.monotonic() < deadline:
        time.sleep(0.1)  # the computer's second, and the sender's next drain
    assert ply_of(live_server) == before + 2
    assert turn_mails(smtpd) == expect_mails, "the reply was not mailed to a closed page"
    assert not computers and not live_server.sender_errors
