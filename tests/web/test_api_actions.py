"""A player's actions over the API (issue 48), through the same functions as the pages: a
vacation and settings (pbem.players.account), leaving a game (pbem.seats.leave),
the game's log exported (pbem.web.replay), and for the player signed in: blocks, joining
an open table and a league."""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import select

from pbem.models import Outbox, Player, Seat
from pbem.players.blocks import blocked_by
from pbem.storage.db import read_session
from pbem.web.apiactmodels import Export
from tests.leagues.helpers import league_key, make_league
from tests.opentables.helpers import players, post
from tests.web.helpers import (
    acting,
    api,
    assert_hides,
    hidden_from,
    play_turn,
    sign_in_as,
    start_game,
    state_of,
)


def deadlines(app: Any) -> list[Any]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return [s.deadline for s in session.exec(select(Seat).order_by(Seat.seat))]


def mails(app: Any, event: str) -> int:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return len(list(session.exec(select(Outbox).where(Outbox.event == event))))


def test_a_vacation_started_and_ended_over_the_api(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    seat = api(acting(client, links))
    before = [d for d in deadlines(app) if d is not None]
    started = client.post(f"{seat}/vacation", json={"days": 3}, raw=True)
    assert started.status_code == 200, started.get_json()
    body = started.get_json()
    assert body["away"] is True and body["days_left"] == 14 - 3
    after = [d for d in deadlines(app) if d is not None]
    assert [(b - a).days for a, b in zip(before, after, strict=True)] == [3]
    assert mails(app, "vacation_start") == 1  # told, as from the page

    again = client.post(f"{seat}/vacation", json={"days": 1}, raw=True)
    assert again.status_code == 400 and again.get_json()["error"] == "vacation"
    french = client.post(f"{seat}/vacation?lang=fr", json={"days": 1}, raw=True)
    assert french.get_json()["message"] != again.get_json()["message"]
    back = client.post(f"{seat}/vacation/end", raw=True)
    assert back.status_code == 200
    ended = back.get_json()
    assert ended["away"] is False and ended["days_left"] == 14  # the unused days return
    assert [d for d in deadlines(app) if d is not None] == before
    none_left = client.post(f"{seat}/vacation/end", raw=True)
    assert none_left.status_code == 400 and none_left.get_json()["error"] == "vacation"
    out_of_range = client.post(f"{seat}/vacation", json={"days": 0}, raw=True)
    assert out_of_range.status_code == 400 and out_of_range.get_json()["error"] == "bad_request"


def test_leaving_over_the_api_hands_the_seat_to_a_computer(
    client: Any, app: Any, smtpd: Any
) -> None:
    links, _ = start_game(client, app, smtpd)
    seat = api(acting(client, links))
    left = client.post(f"{seat}/leave", raw=True)
    assert left.status_code == 200
    view = left.get_json()
    mine = view["game"]["seats"][view["seat"]]
    assert mine["computer"] is not None  # the server plays the seat from now on
    with read_session(app.extensions["pbem"]["engine"]) as session:
        seats = list(session.exec(select(Seat).order_by(Seat.seat)))
    assert [s.left for s in seats] == [s.seat == view["seat"] for s in seats]
    assert client.post(f"{seat}/leave", raw=True).status_code == 200  # again: nothing more
    # A cross-site post is refused, as for every API write.
    cross = {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
    assert client.post(f"{seat}/leave", headers=cross, raw=True).status_code == 403


def test_a_signed_in_player_blocks_joins_a_table_and_a_league_over_the_api(
    client: Any, app: Any
) -> None:
    ana, leo, zoe, bea = players(app, "Ana", "Leo", "Zoe", "Bea")
    # Signed out: 401 with the reason, in the reader's language.
    signed_out = client.put(f"/api/v1/players/{ana}/block")
    assert signed_out.status_code == 401 and signed_out.get_json()["error"] == "signed_out"
    french = client.put(f"/api/v1/players/{ana}/block?lang=fr").get_json()["message"]
    assert "Connectez-vous" in french
    sign_in_as(client, app, leo)
    assert client.put(f"/api/v1/players/{ana}/block").get_json() == {"player": ana, "blocked": True}
    with read_session(app.extensions["pbem"]["engine"]) as session:
        assert blocked_by(session, leo) == [ana]
    assert client.put(f"/api/v1/players/{leo}/block").status_code == 400  # not oneself
    assert client.delete(f"/api/v1/players/{ana}/block").get_json()["blocked"] is False
    with read_session(app.extensions["pbem"]["engine"]) as session:
        assert blocked_by(session, leo) == []

    # An open table: joined with one request; the answer is the seat's link, which works.
    table = post(app, zoe)
    form = client.post(f"/api/v1/open/{table}/join", data={"share": ""}, raw=True)
    assert form.status_code == 415  # JSON only: no cross-site form can send it
    joined = client.post(f"/api/v1/open/{table}/join", json={}, raw=True)
    assert joined.status_code == 200, joined.get_json()
    seat = joined.get_json()
    assert (seat["game"], seat["seat"]) == (table, 1)
    view = client.get(f"/api/v1/seat/{seat['token']}").get_json()
    assert [s["name"] for s in view["game"]["seats"]] == ["Zoe", "Leo"]
    again = client.post(f"/api/v1/open/{table}/join", json={}, raw=True)
    assert again.status_code == 409  # the table filled and started
    # A barred player is refused as on the page (pbem.opentables.actions.join_table).
    other = post(app, zoe)
    runner = app.test_cli_runner()
    assert "is barred" in runner.invoke(args=["bar", str(bea)]).output
    sign_in_as(client, app, bea)
    barred = client.post(f"/api/v1/open/{other}/join", json={}, raw=True)
    assert barred.status_code == 403 and "barred" in barred.get_json()["message"]

    # A league open to anyone, forming: joined by its key.
    sign_in_as(client, app, leo)
    league_id = make_league(app, [ana, zoe], start=False, is_open=True, most_players="4")
    key = league_key(app, league_id)
    answer = client.post(f"/api/v1/leagues/{key}/join", json={}, raw=True)
    assert answer.status_code == 200
    assert "Leo" in {line["name"] for line in answer.get_json()["standings"]}
    assert client.post(f"/api/v1/leagues/{key}x/join", json={}, raw=True).status_code == 404


def test_standing_seeks_over_the_api(client: Any, app: Any) -> None:
    ana, leo = players(app, "Ana", "Leo")
    assert client.get("/api/v1/open/seeks").status_code == 401
    sign_in_as(client, app, leo)
    kept = client.post("/api/v1/open/seeks", json={"game": "colour-bazaar"}, raw=True)
    assert kept.status_code == 200
    (seek,) = kept.get_json()["seeks"]
    assert kept.get_json()["seated"] is None
    assert client.get("/api/v1/open/seeks").get_json()["seeks"] == [seek]
    bad = client.post(
        "/api/v1/open/seeks", json={"game": "colour-bazaar", "rating_min": 99999}, raw=True
    )
    assert bad.status_code == 400 and bad.get_json()["error"] == "refused"
    left = client.delete(f"/api/v1/open/seeks/{seek['id']}").get_json()
    assert left == {"seeks": [], "seated": None}
    # A table waiting that fits: the seek takes its seat at once, and names it.
    table = post(app, ana)
    matched = client.post("/api/v1/open/seeks", json={"game": "colour-bazaar"}, raw=True)
    seated = matched.get_json()["seated"]
    assert (seated["game"], seated["seat"]) == (table, 1)
    assert client.get(f"/api/v1/seat/{seated['token']}").status_code == 200


def test_the_export_over_the_api_is_the_seats_own(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    seat_links = list(links.values())
    for _ in range(3):
        play_turn(client, seat_links[state_of(app).state["turn"]])
    game = state_of(app)
    notes = ["Ana keeps the Moons", "Léo waits for Knots", ""]
    for link, text in zip(seat_links, notes, strict=True):
        assert client.put(f"{api(link)}/notes", json={"text": text}).status_code == 200
    for seat, link in enumerate(seat_links):
        exported = client.get(f"{api(link)}/export")
        assert exported.status_code == 200
        data = exported.get_json()
        Export.model_validate(data)
        # The page's export.json, read by the same function.
        assert data == json.loads(client.get(f"{link}/export.json").get_data(as_text=True))
        assert [m["ply"] for m in data["moves"]] == [1, 2, 3]
        assert "seed" not in data and all("move" not in m for m in data["moves"])
        text = json.dumps(data, ensure_ascii=False)
        assert_hides(text, hidden_from(game.state, seat), f"the API export of seat {seat}")
        assert str(game.seed) not in text
        # Its own notes, and nobody else's.
        assert [n for n in notes if n and n in text] == ([notes[seat]] if notes[seat] else [])
    assert client.get(f"{api(seat_links[0])}x/export").status_code == 404


def test_settings_over_the_api_keep_the_others_as_the_page_saved_them(
    client: Any, app: Any, smtpd: Any
) -> None:
    links, _ = start_game(client, app, smtpd)
    link = next(iter(links.values()))
    page = {"lang": "fr", "tz": "Europe/Paris", "notify": "digest"}
    assert client.post(f"{link}/settings", data=page).status_code == 303
    answer = client.post(f"{api(link)}/settings", json={"auto_vacation": True}, raw=True)
    assert answer.get_json() == {"auto_vacation": True}
    with read_session(app.extensions["pbem"]["engine"]) as session:
        (player,) = session.exec(select(Player).where(Player.email == next(iter(links))))
    assert (player.lang, player.tz, player.notify) == ("fr", "Europe/Paris", "digest")
    assert player.auto_vacation and player.next_digest_at is not None
    html = client.get(f"{link}/settings").get_data(as_text=True)
    assert 'name="auto_vacation" value="1" checked' in html
