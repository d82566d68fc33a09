"""Every seat a league gives a person gives their share of the deal (issue 48, item 8): the
share their browser made when they made or joined the league (static/deal.js fills the
forms' hidden field) goes to each game its rounds seat them at, so its deal section names
nobody and the finished game checks out; a member without JavaScript still joins, and their
games say they gave none."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

from sqlmodel import select

from pbem.games import fairdeal
from pbem.leagues.table import invitation_url
from pbem.models import Game, League, Seat
from pbem.storage.db import read_session
from tests.leagues.helpers import add_players, engine_site, league_games, member_rows, play_people
from tests.web.helpers import form_with, hidden, sign_in_as

NO_SHARE = "gave no share: this deal rests on the server's secret"
SHARES = {"Ana": "ana-browser-share", "Bea": "bea-browser-share", "Cleo": "cleo-browser-share"}


def make_by_form(client: Any, app: Any, organiser: int, share: str, **fields: str) -> str:
    """The organiser's new-league form as the page gives it, its share field filled (as
    deal.js fills it, or left empty as without JavaScript): the league's key."""
    sign_in_as(client, app, organiser)
    form = form_with(client.get("/leagues/new").get_data(as_text=True), "/leagues")
    data = hidden(form)
    assert "share" in data  # the field deal.js fills, as on the join and seek forms
    data.update(name="Share cup", game="colour-bazaar", format="round_robin", share=share)
    made = client.post(form["action"], data={**data, **fields})
    assert made.status_code == 303, made.get_data(as_text=True)
    found = re.search(r"/leagues/([\w-]+)$", made.headers["Location"])
    assert found
    return found.group(1)


def press_join(client: Any, page_path: str, share: str | None) -> Any:
    """Press "Join the league" on the page as it comes; `share` as deal.js fills the field
    (None: without JavaScript, the field is sent as the page wrote it, empty)."""
    form = form_with(client.get(page_path).get_data(as_text=True), "/join")
    data = hidden(form)
    assert data.get("share") == ""  # the page itself never holds a share
    if share is not None:
        data["share"] = share
    return client.post(form["action"], data=data)


def seat_path(app: Any, seat: Seat) -> str:
    _, site = engine_site(app)
    return urlsplit(site.seat_url(seat)).path


def test_a_league_rounds_games_carry_its_members_shares_and_check_out(
    client: Any, app: Any
) -> None:
    ana, bea, cleo = add_players(app, 3)
    key = make_by_form(client, app, ana, SHARES["Ana"], most_players="3", is_open="1",
                       invites="bea@example.org")  # fmt: skip
    engine, site = engine_site(app)
    with read_session(engine) as session:
        league = session.exec(select(League)).one()
        invitation = urlsplit(invitation_url(site, league, bea)).path
    # Bea by her invitation's link (no sign-in), Cleo from the open league's page.
    assert press_join(client, invitation, SHARES["Bea"]).status_code == 303
    sign_in_as(client, app, cleo)
    assert press_join(client, f"/leagues/{key}", SHARES["Cleo"]).status_code == 303
    names = {ana: "Ana", bea: "Bea", cleo: "Cleo"}
    assert {names[m.player_id]: m.share for m in member_rows(app, 1)} == SHARES

    games = [(game, seats) for _, game, seats in league_games(app, 1) if game]
    assert len(games) == 3 and all(game.status == "active" for game, _ in games)
    for game, seats in games:
        assert [s.share for s in seats] == [SHARES[names[s.player_id]] for s in seats]
        assert game.deal_secret is not None
        assert game.seed == fairdeal.seed_of(game.deal_secret, [s.share for s in seats])
        # Another share would have given another deal: each member's share is in the seed.
        for changed in range(len(seats)):
            other = [s.share + ("!" if i == changed else "") for i, s in enumerate(seats)]
            assert fairdeal.seed_of(game.deal_secret, other) != game.seed
        # Everyone gave one: the deal section and the API name nobody, and show no share.
        path = seat_path(app, seats[0])
        page = client.get(path).get_data(as_text=True)
        assert "A deal you can check" in page and NO_SHARE not in page
        assert not [share for share in SHARES.values() if share in page]
        deal = client.get(path.replace("/p/", "/api/v1/seat/")).get_json()["game"]["deal"]
        assert deal["unshared"] == [] and "shares" not in deal

    # One game played to its end: its export checks out, seal, seed, every move and result.
    game, seats = games[0]
    play_people(app, 1, only={game.id or 0})
    with read_session(engine) as session:
        over = session.get(Game, game.id)
        assert over is not None and over.status == "over"
    export = client.get(seat_path(app, seats[1]) + "/export.json").get_data(as_text=True)
    data = json.loads(export)
    assert data["deal"]["shares"] == [s.share for s in seats]
    checks = fairdeal.check(data)
    assert checks and all(c.ok for c in checks)
    assert {c.say.key for c in checks} >= {"verify.seed.ok", "verify.moves.ok", "verify.result.ok"}
    checked = client.post("/verify", data={"export": export})
    assert "This game checks out." in checked.get_data(as_text=True)
    # A share changed after the fact gives another seed: the check says so.
    data["deal"]["shares"][0] += "!"
    tampered = client.post("/verify", data={"export": json.dumps(data)})
    assert tampered.status_code == 400
    assert "do not give the seed" in tampered.get_data(as_text=True)


def test_a_member_without_javascript_joins_and_their_games_say_they_gave_no_share(
    client: Any, app: Any
) -> None:
    ana, bea = add_players(app, 2)
    key = make_by_form(client, app, ana, SHARES["Ana"], most_players="2", is_open="1")
    sign_in_as(client, app, bea)
    # Too long a share is refused with the reason, and Bea is not in.
    refused = press_join(client, f"/leagues/{key}", "x" * (fairdeal.SHARE_MAX + 1))
    assert refused.status_code == 400
    assert "Your share of the deal holds at most 200 characters." in refused.get_data(as_text=True)
    assert {m.player_id: m.status for m in member_rows(app, 1)} == {ana: "joined"}
    # Without JavaScript the field goes as the page wrote it: empty. She joins all the same.
    assert press_join(client, f"/leagues/{key}", None).status_code == 303
    assert {m.player_id: (m.status, m.share) for m in member_rows(app, 1)} == {
        ana: ("joined", SHARES["Ana"]),
        bea: ("joined", ""),
    }
    ((_, game, seats),) = league_games(app, 1)
    assert game is not None and game.status == "active"
    bea_seat = next(s.seat for s in seats if s.player_id == bea)
    path = seat_path(app, seats[0])
    page = client.get(path).get_data(as_text=True)
    assert f"Bea {NO_SHARE}" in page and f"Ana {NO_SHARE}" not in page
    deal = client.get(path.replace("/p/", "/api/v1/seat/")).get_json()["game"]["deal"]
    assert deal["unshared"] == [bea_seat]
    assert game.seed == fairdeal.seed_of(game.deal_secret or "", [s.share for s in seats])


def test_joining_by_the_api_gives_the_share_its_body_carries(client: Any, app: Any) -> None:
    # The API's Join (POST /api/v1/leagues/<key>/join) takes the share as the page's does;
    # a league made by the API gives its organiser's share the same way.
    ana, bea = add_players(app, 2)
    sign_in_as(client, app, ana)
    body = {"name": "API cup", "game": "colour-bazaar", "format": "round_robin",
            "most_players": 2, "is_open": True, "share": SHARES["Ana"]}  # fmt: skip
    made = client.post("/api/v1/leagues", json=body, raw=True)
    assert made.status_code == 200, made.get_data(as_text=True)
    key = made.get_json()["key"]
    sign_in_as(client, app, bea)
    joined = client.post(f"/api/v1/leagues/{key}/join", json={"share": SHARES["Bea"]}, raw=True)
    assert joined.status_code == 200, joined.get_data(as_text=True)
    names = {ana: "Ana", bea: "Bea"}
    assert {names[m.player_id]: m.share for m in member_rows(app, 1)} == {
        "Ana": SHARES["Ana"],
        "Bea": SHARES["Bea"],
    }
    ((_, game, seats),) = league_games(app, 1)
    assert game is not None and game.deal_secret is not None
    assert game.seed == fairdeal.seed_of(game.deal_secret, [s.share for s in seats])
