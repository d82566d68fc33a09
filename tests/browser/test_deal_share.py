"""The share of a checkable deal in Chromium (static/deal.js): an open league's Join form and
an invitation's get a random share from the browser; when the live page puts a fresh copy of
the form in place (another player joined), the fresh field is filled too, so the press still
gives one (issue 48, item 8)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from pbem.leagues import setup
from pbem.play import Invitee, create_game, join
from pbem.storage.db import read_session, write_session
from pbem.storage.store import id_of, seat_of
from tests.browser.helpers import LiveServer, signed_in
from tests.leagues.helpers import add_players, league_key, make_league, member_rows

RANDOM_SHARE = re.compile(r"^[0-9a-f]{32}$")  # 16 bytes from crypto.getRandomValues


@pytest.mark.parametrize("viewport", ["desktop"])
def test_a_join_form_put_in_place_by_the_live_page_still_gives_a_share(
    page: Any, viewport: str, live_server: LiveServer
) -> None:
    app, url = live_server.app, live_server.url
    ana, bea, cleo, dan = add_players(app, 4)
    league_id = make_league(app, [ana, bea], start=False, is_open="1", most_players="4")
    key = league_key(app, league_id)
    signed_in(page.context, live_server, cleo)
    page.goto(f"{url}/leagues/{key}")
    share = page.locator('#about input[name="share"]')
    expect(share).to_have_value(RANDOM_SHARE)
    # Dan joins: the page's "In:" line changes, and the live page puts a fresh #about in place.
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    with write_session(engine) as session:
        setup.join(session, site, league_id, dan, app.config["CLOCK"]())
    expect(page.locator("#about")).to_contain_text("In: Ana, Bea, Dan.")
    expect(share).to_have_value(RANDOM_SHARE)
    given = share.input_value()
    page.get_by_role("button", name="Join the league").click()
    expect(page.locator("#about")).to_contain_text("Every game has started")  # it was full
    shares = {m.player_id: m.share for m in member_rows(app, league_id)}
    assert shares[cleo] == given


@pytest.mark.parametrize("viewport", ["desktop"])
def test_an_invitation_put_in_place_by_the_live_page_still_gives_a_share(
    page: Any, viewport: str, live_server: LiveServer
) -> None:
    """The invitation page's share field sits apart from its script: the fresh field is
    filled when the live page says it put the new part in place ("pbem:page")."""
    app, url = live_server.app, live_server.url
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    now = app.config["CLOCK"]()
    people = [Invitee("Ana", "ana@example.org"), Invitee("Léo", "leo@example.org"),
              Invitee("Zoé", "zoe@example.org")]  # fmt: skip
    with write_session(engine) as session:
        game = create_game(session, site, "colour-bazaar", people, {}, now)
        game_id = id_of(game)
        leo_link = urlsplit(site.seat_url(seat_of(session, game_id, 1))).path
    page.goto(url + leo_link)
    share = page.locator('input[name="share"]')
    expect(share).to_have_value(RANDOM_SHARE)
    with write_session(engine) as session:
        join(session, site, game_id, 2, now, share="zoe-share")
    expect(page.get_by_text("Zoé — in")).to_be_visible()
    expect(share).to_have_value(RANDOM_SHARE)
    given = share.input_value()
    page.get_by_role("button", name="Join the game").click()
    expect(page.get_by_text("Your move").or_(page.get_by_text("Waiting for"))).to_be_visible()
    with read_session(engine) as session:
        assert seat_of(session, game_id, 1).share == given
