"""Mail that bounces, in Debian's Chromium on a phone and a desktop (issue 46): the other
seat's notice and the bouncing player's prompt fit the screen with no axe-core violation;
the player changes their address through the link mailed to the new one, and turns their
mail back on with one tap, with scripts off too."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from sqlmodel import select

from pbem import play
from pbem.models import MailAddress, Player, Seat
from pbem.storage.db import read_session, write_session
from tests.browser.helpers import VIEWPORTS, LiveServer, check, open_mail

ANA, LEO = (
    ("Ana", "ana@example.org"),
    ("Léopoldine-Marguerite", "leopoldine.marguerite@example.org"),
)
# A long report, as Postfix writes it, and a long name: both must wrap on a phone.
REASON = (
    "550 5.1.1 <leopoldine.marguerite@example.org>: Recipient address rejected: User unknown "
    "in virtual mailbox table (in reply to RCPT TO command)"
)
NEW = "leopoldine.marguerite.new@example.net"


def new_table(live: LiveServer) -> tuple[str, str]:
    """Ana (the creator, to move) and Léopoldine, both joined; their seat links."""
    ext = live.app.extensions["pbem"]
    invitees = [play.Invitee(*ANA), play.Invitee(*LEO)]
    now = live.app.config["CLOCK"]()
    with write_session(ext["engine"]) as session:
        game = play.create_game(session, ext["site"], "colour-bazaar", invitees, {"first": 0}, now)
        game_id = game.id or 0
    with write_session(ext["engine"]) as session:
        play.join(session, ext["site"], game_id, 1, now)
    with read_session(ext["engine"]) as session:
        seats = session.exec(select(Seat).where(Seat.game_id == game_id).order_by(Seat.seat))
        return tuple(str(ext["site"].seat_url(seat)) for seat in seats)  # type: ignore[return-value]


def bounce(live: LiveServer, address: str) -> None:
    """The address turned bouncing, as the scoring sweep leaves it."""
    since = datetime(2026, 3, 3, 7, 30, tzinfo=UTC)
    with write_session(live.app.extensions["pbem"]["engine"]) as session:
        row = session.get(MailAddress, address) or MailAddress(address=address, updated_at=since)
        row.state, row.since, row.last_reason, row.score, row.updated_at = (
            "bouncing",
            since,
            REASON,
            4,
            since,
        )
        session.add(row)


def email_of(live: LiveServer, name: str) -> str:
    with read_session(live.app.extensions["pbem"]["engine"]) as session:
        return session.exec(select(Player.email).where(Player.name == name)).one()


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_notice_and_the_prompt_fit_and_mail_comes_back(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path, chromium: Any
) -> None:
    url = live_server.url
    ana, leo = new_table(live_server)
    bounce(live_server, LEO[1])

    # Ana's page says Léopoldine's mail bounces, and since when; never the report's words.
    page.goto(ana)
    notice = page.locator(".mail-note")
    expect(notice).to_contain_text(
        f"Mail to {LEO[0]} has bounced since Tuesday 3 March: "
        "they may not know when it is their turn."
    )
    expect(notice).not_to_contain_text("550")
    notice.screenshot(path=str(artifacts / f"bounce-notice-{viewport}.png"))
    page.screenshot(path=str(artifacts / f"bounce-notice-page-{viewport}.png"))
    check(page, "the other seat's notice", viewport)

    # Léopoldine's page asks her; she gives a new address, behind one tap.
    page.goto(leo)
    prompt = page.locator("#mail-prompt")
    expect(prompt.get_by_role("heading", name="Is your address right?")).to_be_visible()
    expect(prompt).to_contain_text(f"Mail to you ({LEO[1]}) has bounced since Tuesday 3 March")
    prompt.screenshot(path=str(artifacts / f"bounce-prompt-{viewport}.png"))
    page.screenshot(path=str(artifacts / f"bounce-prompt-page-{viewport}.png"))
    check(page, "the bouncing player's prompt", viewport)
    prompt.get_by_text("Use another address").click()
    check(page, "the prompt with its address form open", viewport)
    prompt.get_by_label("Your new address").fill(NEW)
    prompt.get_by_role("button", name="Mail me a link to confirm it").click()
    expect(page.get_by_role("status")).to_contain_text("A link is on its way to the new address")
    check(page, "the mail page after asking for a new address", viewport)

    # The link comes to the new address; opening it shows a button, which changes it.
    open_mail(page, url, "pbem: confirm your new address", to=NEW)
    page.get_by_role("link", name=re.compile(r"\/address\/")).first.click()
    check(page, "the confirmation page", viewport)
    assert email_of(live_server, LEO[0]) == LEO[1]  # opening changed nothing
    page.get_by_role("button", name="Yes, use this address").click()
    expect(page.get_by_role("status")).to_contain_text(f"your game mail goes to {NEW}")
    check(page, "the address changed", viewport)
    assert email_of(live_server, LEO[0]) == NEW
    page.goto(ana)
    expect(page.locator(".mail-note")).to_have_count(0)

    # Bouncing again: with scripts off, one tap on "Mail me a test" turns mail back on.
    bounce(live_server, NEW)
    plain = chromium.new_context(java_script_enabled=False, **VIEWPORTS[viewport])
    try:
        tab = plain.new_page()
        tab.goto(leo)
        tab.get_by_role("button", name="Mail me a test").click()  # the one tap
        expect(tab.get_by_role("status")).to_contain_text(
            f"A test mail is on its way to {NEW}, and your mail is back on."
        )
        tab.screenshot(path=str(artifacts / f"bounce-test-sent-{viewport}.png"), full_page=True)
        tab.goto(leo)
        expect(tab.locator("#mail-prompt")).to_have_count(0)
    finally:
        plain.close()
    open_mail(page, url, "pbem: the test mail you asked for", to=NEW)
    check(page, "the test mail", viewport)
