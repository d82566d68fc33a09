"""What the web app gives the live page (issue 47): a seat's, spectator's and league's page
name their stream, poll and version on their .live element while the game (or league) is
under way; the poll answers 304 to the version the page shows, from one read, and the
new version once it moved; PBEM_LIVE_URL off leaves the page to its poll, and a stream on
another origin is allowed by the page's Content-Security-Policy."""

from __future__ import annotations

import re
from typing import Any

from pbem.models import Game
from pbem.storage.db import read_session
from tests.app import make_test_app
from tests.leagues.helpers import add_players, league_key, make_league
from tests.web.helpers import deliver, link_in, play_turn, start_game

LIVE = re.compile(r'<div class="live" ([^>]*)>')


def live_of(html: str) -> dict[str, str]:
    """The .live element's data attributes ({} when the page has none)."""
    found = LIVE.search(html)
    if found is None:
        return {}
    return dict(re.findall(r'data-([\w-]+)="([^"]*)"', found.group(1)))


def version_of(app: Any, game_id: int = 1) -> int:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None
        return game.version


def test_the_seat_and_spectator_pages_name_their_stream_poll_and_version(
    client: Any, app: Any, smtpd: Any
) -> None:
    links, _ = start_game(client, app, smtpd)
    ana = links["ana@example.org"]
    html = client.get(ana).get_data(as_text=True)
    live = live_of(html)
    token = ana.removeprefix("/p/")
    assert live["stream"] == f"/live/p/{token}" and live["poll"] == f"{ana}/ply"
    assert live["page"] == ana and live["version"] == str(version_of(app))
    assert live["ply"] == "0" and "live.js" in html and "poll.js" not in html
    assert 'class="away" method="post" action="' + ana + '/away"' in html
    (watch,) = set(re.findall(r'href="http://pbem\.test(/w/[^"]+)"', html))
    shown = client.get(watch).get_data(as_text=True)
    spectator = live_of(shown)
    assert spectator["stream"] == f"/live{watch}" and spectator["poll"] == f"{watch}/ply"
    assert 'class="away"' not in shown  # a spectator is nobody's seat


def test_the_poll_answers_304_while_the_version_holds(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    ana, leo = links["ana@example.org"], links["leo@example.org"]
    first = client.get(f"{ana}/ply")
    assert first.status_code == 200 and first.headers["ETag"] == f'"{version_of(app)}"'
    assert first.get_json() == {"ply": 0, "status": "active", "version": version_of(app)}
    same = client.get(f"{ana}/ply", headers={"If-None-Match": first.headers["ETag"]})
    assert same.status_code == 304 and same.data == b""
    assert same.headers["ETag"] == first.headers["ETag"]
    # The game moves on (a move by either seat): the poll says so, with the new version.
    seat = 0 if _to_act(app) == 0 else 1
    play_turn(client, ana if seat == 0 else leo)
    moved = client.get(f"{ana}/ply", headers={"If-None-Match": first.headers["ETag"]})
    assert moved.status_code == 200 and moved.get_json()["ply"] == 1
    assert moved.headers["ETag"] == f'"{version_of(app)}"' != first.headers["ETag"]
    # A wrong link is a 404, as the page's.
    assert client.get(f"{ana}x/ply", headers={"If-None-Match": '"1"'}).status_code == 404


def _to_act(app: Any) -> int:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, 1)
        assert game is not None and game.state is not None
        return int(game.state["turn"])


def test_a_forming_game_is_live_a_called_off_one_not(client: Any, app: Any, smtpd: Any) -> None:
    form = {"game": "colour-bazaar", "name_0": "Ana", "email_0": "ana@example.org"}
    form |= {"name_1": "Léo", "email_1": "leo@example.org"}
    assert client.post("/games", data=form).status_code == 303
    deliver(app)
    leo = link_in(smtpd.to("leo@example.org")[-1])
    ana = link_in(smtpd.to("ana@example.org")[-1])
    before = live_of(client.get(ana).get_data(as_text=True))
    assert before["version"] == "0"  # still forming: who joins shows as it happens
    assert client.post(f"{leo}/decline").status_code == 303  # calls the game off
    assert version_of(app) == 1
    assert live_of(client.get(ana).get_data(as_text=True)) == {}


def test_live_url_off_leaves_the_page_to_its_poll_and_another_origin_is_allowed(
    database_url: str, clock: Any, smtpd: Any, tmp_path: Any
) -> None:
    off = make_test_app(database_url, clock, smtpd, tmp_path, LIVE_URL="off")
    client = off.test_client()
    links, _ = start_game(client, off, smtpd)
    page = client.get(links["ana@example.org"])
    assert live_of(page.get_data(as_text=True))["stream"] == ""
    assert "connect-src" not in page.headers["Content-Security-Policy"]
    off.extensions["pbem"]["engine"].dispose()

    elsewhere = make_test_app(
        database_url, clock, smtpd, tmp_path, LIVE_URL="https://live.pbem.test/live"
    )
    page = elsewhere.test_client().get(links["ana@example.org"])
    token = links["ana@example.org"].removeprefix("/p/")
    assert live_of(page.get_data(as_text=True))["stream"] == (
        f"https://live.pbem.test/live/p/{token}"
    )
    policy = page.headers["Content-Security-Policy"]
    assert policy.endswith("; connect-src 'self' https://live.pbem.test")
    elsewhere.extensions["pbem"]["engine"].dispose()


def test_the_league_page_is_live_while_under_way_and_polls_by_its_version(
    client: Any, app: Any
) -> None:
    ids = add_players(app, 4)
    league_id = make_league(app, ids)
    key = league_key(app, league_id)
    html = client.get(f"/leagues/{key}").get_data(as_text=True)
    live = live_of(html)
    assert live["stream"] == f"/live/leagues/{key}" and live["poll"] == f"/leagues/{key}/ply"
    polled = client.get(live["poll"])
    assert polled.status_code == 200 and polled.get_json()["version"] == int(live["version"])
    assert polled.get_json()["status"] == "running"
    again = client.get(live["poll"], headers={"If-None-Match": polled.headers["ETag"]})
    assert again.status_code == 304
    assert client.get(f"/leagues/{key}x/ply").status_code == 404
