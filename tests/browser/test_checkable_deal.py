"""A checkable deal in Debian's Chromium, on a phone and a desktop: the invitation shows the
seal and the join form holds a share the browser made; once dealt the page shows the seed's
commitment; at the end the values are shown and the verify page checks the export. axe-core
finds no WCAG 2.1 AA violation on the invitation, the verify page or its answer."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from sqlmodel import select

from pbem import play
from pbem.games import fairdeal
from pbem.models import Game, Seat
from pbem.storage.db import read_session, write_session
from tests.browser.helpers import VIEWPORTS, LiveServer, check, finish


def invited(live: LiveServer) -> tuple[int, str]:
    """Ana invites Léo to a game with a checkable deal; the game and Léo's link."""
    ext = live.app.extensions["pbem"]
    people = [play.Invitee("Ana", "ana@example.org"), play.Invitee("Léo", "leo@example.org")]
    with write_session(ext["engine"]) as session:
        now = live.app.config["CLOCK"]()
        game = play.create_game(session, ext["site"], "colour-bazaar", people, {}, now)
        leo = session.exec(select(Seat).where(Seat.game_id == game.id, Seat.seat == 1)).one()
        return int(game.id or 0), str(ext["site"].seat_url(leo))


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_join_with_a_share_then_check_the_finished_game(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path
) -> None:
    game_id, link = invited(live_server)
    page.goto(link)
    share = page.get_by_label("Your share of the deal (optional)")
    expect(share).to_have_value(re.compile(r"^[0-9a-f]{32}$"))  # made by the browser
    made = share.input_value()
    page.locator("#deal summary").click()
    expect(page.locator("#deal code").first).to_be_visible()
    page.screenshot(path=str(artifacts / f"deal-invitation-{viewport}.png"), full_page=True)
    check(page, "invitation with a sealed deal", viewport)
    page.get_by_role("button", name="Join the game").click()
    with read_session(live_server.app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, game_id)
        seats = session.exec(select(Seat).where(Seat.game_id == game_id).order_by(Seat.seat))
        shares = [s.share for s in seats]
        assert game is not None and shares == ["", made]
        assert game.seed == fairdeal.seed_of(game.deal_secret or "", shares)
        committed = fairdeal.committed(game.seed, game.deal_salt or "")
    page.locator("#deal summary").click()
    expect(page.locator("#deal")).to_contain_text(committed)

    finish(live_server, game_id)
    page.reload()
    expect(page.locator("#deal")).to_contain_text(made)  # shown to all at the end
    page.locator("#deal").screenshot(path=str(artifacts / f"deal-revealed-{viewport}.png"))
    export = page.request.get(f"{link}/export.json").text()
    page.goto(f"{live_server.url}/verify")
    check(page, "verify page", viewport)
    page.get_by_label("The exported log (JSON)").fill(export)
    page.get_by_role("button", name="Check").click()
    expect(page.get_by_role("heading", name="This game checks out.")).to_be_visible()
    page.screenshot(path=str(artifacts / f"deal-verified-{viewport}.png"), full_page=True)
    check(page, "verify answer", viewport)
