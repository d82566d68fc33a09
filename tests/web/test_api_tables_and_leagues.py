"""Open tables and leagues over the API (issue 48), through the functions the pages call:
a table posted shows on /games/open, within the page's limits and with its messages; it is
withdrawn by its poster only; a league made mails its invitations as the page's does;
leaving one takes the player out."""

from __future__ import annotations

import re
from typing import Any

from markupsafe import escape
from sqlmodel import select

from pbem.models import Game, OpenTable, Seat
from pbem.present.text import say
from pbem.storage.allowance import INVITES_RECEIVED
from pbem.storage.db import read_session
from tests.leagues.helpers import add_players, league_key, make_league, member_rows
from tests.opentables.helpers import players, post, status
from tests.web.helpers import deliver, sign_in_as, text_of

TABLE = {"game": "colour-bazaar", "seats": 3, "lang": "en"}


def open_ids(app: Any) -> list[int]:
    """The games of the open tables still waiting."""
    with read_session(app.extensions["pbem"]["engine"]) as session:
        query = select(OpenTable.game_id).join(Game, Game.id == OpenTable.game_id)
        return list(session.exec(query.where(Game.status == "forming")))


def test_a_table_posted_over_the_api_is_listed_and_withdrawn(client: Any, app: Any) -> None:
    ana, leo = players(app, "Ana", "Leo")
    signed_out = client.post("/api/v1/open", json=TABLE, raw=True)
    assert signed_out.status_code == 401 and signed_out.get_json()["error"] == "signed_out"
    sign_in_as(client, app, leo)
    body = {
        **TABLE,
        "rating_max": 2000,
        "rated": True,
        "options": {"courts": True},
        "days_per_move": 5,
        "clock": "fischer",
        "clock_add": 1,
        "clock_cap": 10,
    }
    posted = client.post("/api/v1/open", json=body, raw=True)
    assert posted.status_code == 200, posted.get_json()
    seat = posted.get_json()
    assert seat["seat"] == 0 and open_ids(app) == [seat["game"]]
    # The answer is the poster's seat link: it works, and it is the game posted.
    view = client.get(f"/api/v1/seat/{seat['token']}").get_json()
    assert view["game"]["id"] == seat["game"] and view["game"]["status"] == "forming"
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, seat["game"])
        assert game is not None and game.options["courts"] is True and game.rated
    # Anyone signed in sees it on the page and in the list, as a table posted there.
    sign_in_as(client, app, ana)
    page = client.get("/games/open").get_data(as_text=True)
    assert "Leo" in page and f"/games/open/{seat['game']}/join" in page
    (listed,) = client.get("/api/v1/open").get_json()["tables"]
    assert (listed["game"], listed["seats"], listed["rated"]) == (seat["game"], 3, True)
    assert (listed["rating_max"], listed["days_per_move"], listed["clock"]) == (2000, 5, "fischer")

    # Ana cannot call it off: another's table answers as no table at all.
    theirs = client.delete(f"/api/v1/open/{seat['game']}")
    nothing = client.delete("/api/v1/open/99999")
    assert theirs.status_code == nothing.status_code == 404
    assert theirs.get_json() == nothing.get_json()
    assert open_ids(app) == [seat["game"]]
    # Nor from the page (the same function, the same answer).
    assert client.post(f"/games/open/{seat['game']}/withdraw").status_code == 404
    # Leo can: it is gone from the page and the list, and the game is called off.
    sign_in_as(client, app, leo)
    withdrawn = client.delete(f"/api/v1/open/{seat['game']}")
    assert withdrawn.get_json() == {"game": seat["game"], "withdrawn": True}
    assert open_ids(app) == [] and status(app, seat["game"]) == "cancelled"
    assert f"/games/open/{seat['game']}/" not in client.get("/games/open").get_data(as_text=True)
    assert client.get("/api/v1/open").get_json()["tables"] == []
    again = client.delete(f"/api/v1/open/{seat['game']}")
    assert again.status_code == 409 and again.get_json()["error"] == "refused"


def test_a_table_the_form_refuses_is_refused_with_the_pages_message(client: Any, app: Any) -> None:
    (leo,) = players(app, "Leo")
    sign_in_as(client, app, leo)
    cases = [
        ({**TABLE, "seats": 9}, "open.error.seats", {}),
        ({**TABLE, "game": "chess"}, "lobby.error.no_such_game", {}),
        ({**TABLE, "lang": "xx"}, "open.error.lang", {}),
        ({**TABLE, "rating_min": 1800, "rating_max": 1200}, "open.error.bad_range",
         {"low": 0, "high": 4000}),
        ({**TABLE, "clock": "hourglass"}, "lobby.error.clock", {}),
        ({**TABLE, "options": {"first": 7}}, "error.option_range",
         {"name": "first", "low": 0, "high": 2}),
    ]  # fmt: skip
    for body, key, params in cases:
        answer = client.post("/api/v1/open", json=body, raw=True)
        assert answer.status_code == 400, (body, answer.get_json())
        assert answer.get_json() == {"error": "refused", "message": say("en", key, **params)}
        # The page's answer to the same fields says the same.
        form = {k: str(v) for k, v in body.items() if k != "options"}
        form.update({f"opt_colour-bazaar_{k}": str(v) for k, v in body.get("options", {}).items()})
        page = client.post("/games/open", data=form)
        assert page.status_code == 400
        assert str(escape(say("en", key, **params))) in page.get_data(as_text=True), body
    wrong_type = client.post("/api/v1/open", json={**TABLE, "seats": "three"}, raw=True)
    assert wrong_type.status_code == 400 and wrong_type.get_json()["error"] == "bad_request"
    assert open_ids(app) == []


def test_posts_over_the_api_count_with_the_pages_and_give_its_429(
    client: Any, app: Any, clock: Any
) -> None:
    (leo,) = players(app, "Leo")
    sign_in_as(client, app, leo)
    form = {"game": "colour-bazaar", "seats": "2", "lang": "en"}
    assert [client.post("/games/open", data=form).status_code for _ in range(3)] == [303] * 3
    codes = [client.post("/api/v1/open", json=TABLE, raw=True).status_code for _ in range(2)]
    assert codes == [200, 200]
    over = client.post("/api/v1/open", json=TABLE, raw=True)  # five waiting at once
    assert over.status_code == 429 and over.get_json()["error"] == "rate_limited"
    assert over.get_json()["message"].startswith("You already have 5 open tables waiting")
    assert "You already have 5 open tables waiting" in client.post(
        "/games/open", data=form
    ).get_data(as_text=True)
    for game_id in open_ids(app):
        assert client.delete(f"/api/v1/open/{game_id}").status_code == 200
    codes = [client.post("/api/v1/open", json=TABLE, raw=True).status_code for _ in range(5)]
    assert codes == [200] * 5
    for game_id in open_ids(app):
        assert client.delete(f"/api/v1/open/{game_id}").status_code == 200
    over = client.post("/api/v1/open", json=TABLE, raw=True)  # ten a day, the page's and these
    assert over.status_code == 429
    assert "as many open tables and seeks as 24 hours allow (10)" in over.get_json()["message"]
    clock.advance(days=1)
    assert client.post("/api/v1/open", json=TABLE, raw=True).status_code == 200


def test_a_league_made_over_the_api_mails_its_invitations(
    client: Any, app: Any, smtpd: Any
) -> None:
    (ana,) = add_players(app, 1)
    league = {
        "name": "Spring league",
        "game": "colour-bazaar",
        "most_players": 4,
        "invites": ["Bea <bea@example.net>", "CLEO@example.net"],
        "days_per_move": 2,
    }
    assert client.post("/api/v1/leagues", json=league, raw=True).status_code == 401
    sign_in_as(client, app, ana)
    made = client.post("/api/v1/leagues", json=league, raw=True)
    assert made.status_code == 200, made.get_json()
    answer = made.get_json()
    key = answer["key"]
    assert answer["league"]["name"] == "Spring league" and answer["league"]["status"] == "forming"
    assert answer["league"]["organiser"] == "Ana" and answer["league"]["days_per_move"] == 2
    assert client.get(f"/api/v1/leagues/{key}").get_json() == answer["league"]
    assert "Spring league" in client.get(f"/leagues/{key}").get_data(as_text=True)
    deliver(app)
    for address, name in (("bea@example.net", "Bea"), ("cleo@example.net", "cleo")):
        (mail,) = smtpd.to(address)
        assert str(mail["Subject"]) == "pbem: Ana invites you to a league"
        assert "Spring league" in text_of(mail)
        assert text_of(mail).startswith(f"Hello {name}.")
        link = re.search(r"https?://[^/\s]+(/leagues/invited/\S+)", text_of(mail))
        assert link and "Join the league" in client.get(link.group(1)).get_data(as_text=True)

    # A field the page's form refuses: its message, and nothing made nor mailed.
    bad = client.post("/api/v1/leagues", json={**league, "table_size": 5}, raw=True)
    assert bad.status_code == 400 and bad.get_json()["error"] == "refused"
    assert bad.get_json()["message"] == say("en", "league.error.table_size", low=2, high=3)
    # The invitation limits are the page's: an address gets at most 3 a day.
    for number in range(2):
        dan = {**league, "name": f"Dan's {number}", "invites": ["dan@example.net"]}
        assert client.post("/api/v1/leagues", json=dan, raw=True).status_code == 200
    assert client.post("/leagues", data={**dan, "name": "Page"}).status_code == 303
    over = client.post("/api/v1/leagues", json={**dan, "name": "One too many"}, raw=True)
    assert over.status_code == 429 and over.get_json()["error"] == "rate_limited"
    assert "dan@example.net" in over.get_json()["message"]
    smtpd.clear()
    deliver(app)
    assert len(smtpd.to("dan@example.net")) == INVITES_RECEIVED.count
    assert [m for m in smtpd.messages if "One too many" in text_of(m)] == []


def test_leaving_a_league_over_the_api(client: Any, app: Any) -> None:
    ana, bea, cleo = add_players(app, 3)
    forming = league_key(app, make_league(app, [ana, bea, cleo], start=False, most_players="4"))
    assert client.post(f"/api/v1/leagues/{forming}/leave", json={}, raw=True).status_code == 401
    sign_in_as(client, app, bea)
    form = client.post(f"/api/v1/leagues/{forming}/leave", data={}, raw=True)
    assert form.status_code == 415  # a JSON body: no form from another site can send one
    left = client.post(f"/api/v1/leagues/{forming}/leave", json={}, raw=True)
    assert left.status_code == 200 and left.get_json()["joined"] == ["Ana", "Cleo"]
    assert {m.player_id: m.status for m in member_rows(app, 1)}[bea] == "declined"
    # The organiser stays in a league that has not started, as on its page.
    sign_in_as(client, app, ana)
    stays = client.post(f"/api/v1/leagues/{forming}/leave", json={}, raw=True)
    assert stays.status_code == 400
    assert stays.get_json()["message"] == say("en", "league.error.organiser_stays")

    # Once it runs, the player drops out: the computer plays their game.
    # (Cleo organises it: Bea, who left Ana's league, said no to Ana's invitations.)
    running = league_key(app, make_league(app, [cleo, bea]))
    sign_in_as(client, app, bea)
    dropped = client.post(f"/api/v1/leagues/{running}/leave", json={}, raw=True).get_json()
    assert {line["name"]: line["dropped"] for line in dropped["standings"]} == {
        "Cleo": False,
        "Bea": True,
    }
    with read_session(app.extensions["pbem"]["engine"]) as session:
        seats = session.exec(select(Seat).where(Seat.player_id == bea, Seat.left))
        assert len(list(seats)) == 1
    assert client.post(f"/api/v1/leagues/{running}x/leave", json={}, raw=True).status_code == 404


def test_an_open_table_posted_by_another_cannot_be_told_apart_from_none(
    client: Any, app: Any
) -> None:
    """A table hidden by a block: withdrawing it answers as a number that was never one."""
    ana, leo = players(app, "Ana", "Leo")
    table = post(app, ana)
    sign_in_as(client, app, ana)
    assert client.put(f"/api/v1/players/{leo}/block").status_code == 200
    sign_in_as(client, app, leo)
    hidden = client.delete(f"/api/v1/open/{table}")
    assert hidden.get_json() == client.delete("/api/v1/open/99999").get_json()
    assert hidden.status_code == 404
