"""A league's page in Chromium, on a phone and a desktop: a round robin of five with some
games over, its standings and games fit the screen and pass axe-core; and a league made
through the form with JavaScript off."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from sqlmodel import col, select

from pbem.leagues.mails import queue_digest
from pbem.models import League, Outbox
from pbem.storage.db import read_session, write_session
from tests.browser.helpers import VIEWPORTS, LiveServer, check, signed_in, too_wide
from tests.leagues.helpers import add_players, league_games, league_key, make_league, play_people


def league_mails_fit(
    page: Any, live: LiveServer, league_id: int, viewport: str, artifacts: Path
) -> None:
    """The league's mails as sent (invitations, the round mail, and a digest queued now)
    fit the screen."""
    engine, site = live.app.extensions["pbem"]["engine"], live.app.extensions["pbem"]["site"]
    with write_session(engine) as session:
        league = session.get(League, league_id)
        assert league is not None
        assert queue_digest(session, site, league, live.app.config["CLOCK"]()) == 5
    deadline = time.monotonic() + 10
    while True:
        with read_session(engine) as session:
            rows = session.exec(select(Outbox).where(col(Outbox.event).startswith("league_"))).all()
            sent = [r for r in rows if r.sent_at is not None]
        if len(sent) == len(rows) == 14 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    # Four invitations, five round mails (one each, listing their four games), five digests.
    events = {"league_invitation", "league_round", "league_digest"}
    assert {r.event for r in sent} == events and len(sent) == 14
    for row in sent:
        page.set_content(row.body_html)
        assert not (why := too_wide(page)), f"the {row.event} mail is too wide: {why}"
        if row.event == "league_digest":
            digest = row.body_html
    page.set_content(digest)
    page.screenshot(path=str(artifacts / f"league-digest-{viewport}.png"), full_page=True)


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_league_page_fits_the_screen_and_a_league_is_made_without_javascript(
    page: Any, viewport: str, live_server: LiveServer, artifacts: Path, chromium: Any
) -> None:
    app, url = live_server.app, live_server.url
    ids = add_players(app, 5)
    league_id = make_league(app, ids, name="Spring league of the Grand Bazaar")
    games = league_games(app, league_id)
    play_people(app, league_id, only={g.id for _, g, _ in games[:4] if g})
    key = league_key(app, league_id)
    signed_in(page.context, live_server, ids[0])
    page.goto(f"{url}/leagues/{key}")
    expect(page.get_by_role("heading", name="Spring league of the Grand Bazaar")).to_be_visible()
    standings = page.locator("#standings tbody tr")
    expect(standings).to_have_count(5)
    expect(page.locator("#games li")).to_have_count(10)
    expect(page.locator("#games").get_by_text("won.").first).to_be_visible()
    # Its length and pace under its name, in the first screen: five players, five rounds
    # (one sits each out), all begun at once; the first games of some are over.
    pace = page.locator("#pace")
    expect(pace).to_have_text(re.compile(r"^\d rounds? played of 5 · Clock: 3 days per move\.$"))
    box = pace.bounding_box()
    assert box is not None and box["y"] + box["height"] <= page.viewport_size["height"]
    assert "@example.org" not in page.content()
    check(page, "league page", viewport)
    page.screenshot(path=str(artifacts / f"league-{viewport}.png"), full_page=True)
    page.get_by_role("link", name="Leave the league").click()
    check(page, "leave confirmation", viewport)
    league_mails_fit(page, live_server, league_id, viewport, artifacts)

    # A league made through the form, JavaScript off: a plain form and a redirect.
    context = chromium.new_context(**VIEWPORTS[viewport], java_script_enabled=False)
    try:
        signed_in(context, live_server, ids[1])
        tab = context.new_page()
        tab.goto(f"{url}/leagues/new")
        # (axe-core needs timers, which do not run without JavaScript: checked below.)
        assert not (why := too_wide(tab)), f"the new league form scrolls sideways: {why}"
        tab.get_by_label("Name of the league").fill("Bea's open cup")
        tab.get_by_label("Swiss: a set number of rounds").check()
        tab.get_by_label("Rounds (Swiss").fill("3")
        tab.get_by_label("Open: anyone signed in").check()
        tab.get_by_label("Invite by address").fill("cleo@example.org")
        tab.get_by_role("button", name="Make the league").click()
        expect(tab.get_by_role("heading", name="Bea's open cup")).to_be_visible()
        expect(tab.get_by_text("Invited, not answered yet: Cleo.")).to_be_visible()
        expect(tab.locator("#pace")).to_have_text("3 rounds · Clock: 3 days per move.")
        made = tab.url
    finally:
        context.close()
    # The same pages with JavaScript on, for axe-core.
    page.goto(f"{url}/leagues/new")
    check(page, "new league form", viewport)
    page.screenshot(path=str(artifacts / f"league-new-{viewport}.png"), full_page=True)
    page.goto(made)
    check(page, "new league's page", viewport)
    page.goto(f"{url}/leagues")
    expect(page.get_by_role("link", name="Bea's open cup")).to_be_visible()
    check(page, "open leagues", viewport)
