"""Reporting a player in Debian's Chromium, on a phone and a desktop: the Report button on a
player's page and on another player's message in table talk, its reason form, the refusal
of an empty and of an over-long reason, and the thanks. axe-core finds no WCAG 2.1 AA
violation, nothing scrolls sideways, the buttons are big enough to tap; without an
operator address there is no button. One server for it all: the browser suite is long."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from sqlmodel import select

from pbem.models import Player, Report, Seat
from pbem.players import talk
from pbem.present.forms import TalkForm
from pbem.storage.db import read_session, write_session
from tests.browser.helpers import ANA, LEO, VIEWPORTS, LiveServer, check, sign_in
from tests.ratings.helpers import make_game

SAID = "You all play like snails."
# The smallest tap target WCAG 2.2 asks for (2.5.8, AA), in CSS pixels.
TAP = 24


@pytest.fixture
def live_config() -> dict[str, Any]:
    """Reports go somewhere: the report buttons show."""
    return {"OPERATOR_EMAIL": "ops@pbem.test"}


@contextmanager
def tab(chromium: Any, viewport: str, artifacts: Path) -> Iterator[Any]:
    """A browser tab sized for `viewport`; its last state saved as failure-<viewport>.png
    if what runs in it fails (as the `page` fixture does for a test of one viewport)."""
    context = chromium.new_context(**VIEWPORTS[viewport])
    context.set_default_timeout(10_000)
    page = context.new_page()
    try:
        yield page
    except BaseException:
        page.screenshot(path=str(artifacts / f"failure-{viewport}.png"), full_page=True)
        raise
    finally:
        context.close()


def tappable(locator: Any, what: str) -> None:
    """The control is at least TAP pixels each way."""
    box = locator.bounding_box()
    assert box is not None and min(box["width"], box["height"]) >= TAP, f"{what}: {box}"


def open_report(page: Any, within: Any, what: str) -> Any:
    """Unfold the report form in `within`; its reason box."""
    summary = within.locator("details.report > summary")
    tappable(summary, f"{what}: the Report button")
    summary.click()
    reason = within.get_by_role("textbox", name="Why do you report this player?")
    expect(reason).to_be_visible()
    tappable(within.get_by_role("button", name="Send the report"), f"{what}: Send")
    return reason


def send(page: Any, within: Any, reason: str) -> None:
    within.get_by_role("textbox", name="Why do you report this player?").fill(reason)
    within.get_by_role("button", name="Send the report").click()
    expect(page.get_by_role("heading", name="Report", exact=True)).to_be_visible()


def test_reporting_from_a_players_page_and_from_table_talk(
    chromium: Any, live_server: LiveServer, artifacts: Path
) -> None:
    ext = live_server.app.extensions["pbem"]
    engine, url = ext["engine"], live_server.url
    game_id = make_game(engine, "colour-bazaar", [ANA, LEO], rated=False)
    with write_session(engine) as session:
        said = TalkForm.read({"to": "all", "text": SAID})
        talk.post(session, game_id, 0, said, live_server.app.config["CLOCK"]())
        seat = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == 1)).one()
        seat_link = ext["site"].seat_url(seat)
        ids = {p.name: p.id or 0 for p in session.exec(select(Player))}
    ana, leo = ids["Ana"], ids["Léo"]
    player_page = f"{url}/players/{ana}"

    for viewport in VIEWPORTS:
        with tab(chromium, viewport, artifacts) as page:
            sign_in(page, live_server, leo)
            # A player's page: the form, folded until asked for.
            page.goto(player_page)
            open_report(page, page, "player page")
            check(page, "player page with the report form open", viewport)
            page.screenshot(path=str(artifacts / f"report-form-{viewport}.png"), full_page=True)
            # Blank, then one character too long: refused with the reason, nothing sent.
            send(page, page, "   ")
            expect(page.get_by_role("alert")).to_have_text("Say why you report this player.")
            check(page, "report refused", viewport)
            page.screenshot(path=str(artifacts / f"report-refused-{viewport}.png"))
            page.goto(player_page)
            reason = open_report(page, page, "player page")
            reason.fill("x" * 1001)
            assert len(reason.input_value()) == 1000  # the box takes no more
            # A browser that lets more through (the attribute gone) meets the server's refusal.
            reason.evaluate("box => box.removeAttribute('maxlength')")
            send(page, page, "x" * 1001)
            expect(page.get_by_role("alert")).to_have_text("Say why in at most 1000 characters.")
            # Sent: thanks, and the way back to the page.
            page.goto(player_page)
            open_report(page, page, "player page")
            send(page, page, "Rude names in every game.")
            expect(page.get_by_text("the operator of this server has your report")).to_be_visible()
            check(page, "report sent", viewport)
            page.screenshot(path=str(artifacts / f"report-thanks-{viewport}.png"))
            page.get_by_role("link", name="Back").click()
            expect(page).to_have_url(player_page)

            # Table talk: Ana's message to the table carries its own report button.
            page.goto(seat_link)
            message = page.locator("#talk li").filter(has_text=SAID)
            open_report(page, message, "talk message")
            check(page, "table with a talk report form open", viewport)
            page.locator("#talk").screenshot(path=str(artifacts / f"report-talk-{viewport}.png"))
            send(page, message, "Insults at the table.")
            expect(page.get_by_text("the operator of this server has your report")).to_be_visible()
            page.get_by_role("link", name="Back").click()
            expect(page).to_have_url(f"{seat_link}#talk")

    with read_session(engine) as session:
        rows = session.exec(select(Report).order_by(Report.id)).all()
    assert [(r.reporter_id, r.reported_id, r.talk_id is not None) for r in rows] == [
        (leo, ana, False),
        (leo, ana, True),
    ] * len(VIEWPORTS)

    # Without an operator address (PBEM_OPERATOR_EMAIL empty) there is no button at all.
    ext["site"] = dataclasses.replace(ext["site"], operator_email="")
    with tab(chromium, "phone", artifacts) as page:
        sign_in(page, live_server, leo)
        page.goto(player_page)
        expect(page.get_by_role("button", name="Block")).to_be_visible()
        expect(page.locator("details.report")).to_have_count(0)
        page.goto(seat_link)
        expect(page.locator("#talk li").filter(has_text=SAID)).to_be_visible()
        expect(page.locator("details.report")).to_have_count(0)
