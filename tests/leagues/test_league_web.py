"""The league pages without JavaScript: the organiser's form, invitations by mail (English and
French) with a signed link, one press to join an open league, the start, standings on the
league's page, leaving with a confirmation; bad input answered with a 4xx."""

from __future__ import annotations

import re
from typing import Any

from pbem.models import Player
from pbem.present.forms import TimeControl
from pbem.storage.allowance import LEAGUE_JOINS as JOINS
from pbem.storage.db import write_session
from pbem.web.apimodels import League
from tests.leagues.helpers import (
    add_players,
    engine_site,
    league_games,
    league_key,
    make_league,
    member_rows,
    play_people,
    post,
)
from tests.web.helpers import deliver, html_of, sign_in_as, text_of


def key_of(response: Any) -> str:
    location = response.headers["Location"]
    found = re.search(r"/leagues/([\w-]+)$", location)
    assert found, location
    return found.group(1)


def test_an_organiser_makes_a_league_and_the_invited_join_by_mail(
    client: Any, app: Any, smtpd: Any
) -> None:
    ana, bea, cleo = add_players(app, 3)
    engine, _ = engine_site(app)
    with write_session(engine) as session:
        player = session.get(Player, cleo)
        assert player is not None
        player.lang = "fr"
    sign_in_as(client, app, ana)
    form = client.get("/leagues/new").get_data(as_text=True)
    assert 'name="invites"' in form and 'name="format"' in form
    # The form's example of a named address reads as text, not as a tag.
    assert "“Bea &lt;bea@example.org&gt;”" in form
    made = post(
        client, "/leagues", "", name="Winter <b>cup</b>", game="colour-bazaar",
        format="round_robin", most_players="4", invites="Bea <bea@example.org>\nCLEO@example.org",
        days_per_move="3", takeover="casual",
    )  # fmt: skip
    assert made.status_code == 303
    key = key_of(made)
    page = client.get(f"/leagues/{key}").get_data(as_text=True)
    assert "Winter &lt;b&gt;cup&lt;/b&gt;" in page and "<b>cup" not in page
    assert "Start the league now" not in page  # only Ana is in yet
    deliver(app)
    to_bea, to_cleo = smtpd.to("bea@example.org")[-1], smtpd.to("cleo@example.org")[-1]
    # The subject names the inviter and the site, never the league's name (the inviter's
    # free text); the body quotes it.
    assert str(to_bea["Subject"]) == "pbem: Ana invites you to a league"
    assert text_of(to_bea).startswith(
        "Hello Bea. Ana invites you to play in a league named “Winter <b>cup</b>”"
    )
    assert "Winter &lt;b&gt;cup&lt;/b&gt;" in html_of(to_bea) and "<b>cup" not in html_of(to_bea)
    assert str(to_cleo["Subject"]) == "pbem : Ana vous invite à une ligue"
    link = re.search(r"https?://\S+/leagues/invited/\S+", text_of(to_bea))
    assert link
    invitation = link.group(0).split("://", 1)[1].split("/", 1)[1]
    path = "/" + invitation
    assert "Join the league" in client.get(path).get_data(as_text=True)
    token = path.rsplit("/", 1)[1]
    assert post(client, f"{path}/join", token).status_code == 303
    assert post(client, f"{path}/join", token).status_code == 303  # twice: nothing more
    assert {m.player_id: m.status for m in member_rows(app, 1)}[bea] == "joined"
    # A tampered invitation is no invitation.
    assert client.get(path[:-2] + "xx").status_code == 404

    # Ana starts it with Bea; Cleo, who did not answer, is left out.
    page = client.get(f"/leagues/{key}").get_data(as_text=True)
    assert "Start the league now" in page and "bea@example.org" not in page
    assert post(client, f"/leagues/{key}/start", key).status_code == 303
    assert len(league_games(app, 1)) == 1
    smtpd.clear()
    deliver(app)
    # One mail each for the start: the round mail naming the game, with the seat's link.
    for email in ("ana@example.org", "bea@example.org"):
        (mail,) = [m for m in smtpd.to(email) if "league" in str(m["Subject"])]
        assert "the league Winter <b>cup</b> has started" in str(mail["Subject"])
        assert "/p/" in text_of(mail) and f"/leagues/{key}" in text_of(mail)
        assert "<b>cup" not in html_of(mail)
    assert not smtpd.to("cleo@example.org")
    page = client.get(f"/leagues/{key}").get_data(as_text=True)
    assert "Standings" in page and "/w/" in page and "@example.org" not in page
    # Each name in the standings leads to the player's page (results and ratings).
    assert f'href="/players/{bea}">Bea</a>' in page
    statuses = {m.player_id: m.status for m in member_rows(app, 1)}
    assert statuses == {ana: "joined", bea: "joined", cleo: "declined"}
    me = client.get("/me").get_data(as_text=True)
    assert "My leagues" in me and f"/leagues/{key}" in me
    # Once, in the page's body: the window's title stays the page's name.
    assert me.count('id="my-leagues"') == 1 and "<title>My games · pbem</title>" in me


def test_an_open_league_is_listed_joined_with_one_press_and_left_with_a_confirmation(
    client: Any, app: Any
) -> None:
    ana, bea, cleo = add_players(app, 3)
    sign_in_as(client, app, ana)
    made = post(
        client, "/leagues", "", name="Open cup", game="colour-bazaar", format="swiss",
        rounds="2", most_players="3", is_open="1",
    )  # fmt: skip
    key = key_of(made)
    assert "Open cup" in client.get("/leagues").get_data(as_text=True)
    sign_in_as(client, app, bea)
    page = client.get(f"/leagues/{key}").get_data(as_text=True)
    assert "Join the league" in page
    assert post(client, f"/leagues/{key}/join", key).status_code == 303
    assert "Leave the league" in client.get(f"/leagues/{key}").get_data(as_text=True)
    sign_in_as(client, app, cleo)
    assert post(client, f"/leagues/{key}/join", key).status_code == 303
    # Full: it started, with one game and a bye in round 1.
    assert "Round 1 of 2" in client.get(f"/leagues/{key}").get_data(as_text=True)
    assert "Open cup" not in client.get("/leagues").get_data(as_text=True)
    confirm = client.get(f"/leagues/{key}/leave").get_data(as_text=True)
    assert "computer plays your games" in confirm
    assert post(client, f"/leagues/{key}/leave", key).status_code == 303
    assert {m.player_id: m.status for m in member_rows(app, 1)}[cleo] == "dropped"


def test_bad_input_gets_a_clear_4xx(client: Any, app: Any) -> None:
    (ana,) = add_players(app, 1)
    # Not signed in: sent to sign in, nothing made.
    assert post(client, "/leagues", "", name="x", game="colour-bazaar").status_code == 303
    sign_in_as(client, app, ana)
    cases = [
        ({"name": "", "game": "colour-bazaar"}, "needs a name"),
        ({"name": "L", "game": "chess"}, "Choose one of the games"),
        ({"name": "L", "game": "colour-bazaar", "format": "knockout"}, "round robin or Swiss"),
        ({"name": "L", "game": "colour-bazaar", "most_players": "99"}, "between 2 and 32"),
        ({"name": "L", "game": "colour-bazaar", "table_size": "5"}, "between 2 and 3"),
        ({"name": "L", "game": "colour-bazaar", "invites": "not an address"}, "not a mail"),
        (
            {"name": "L", "game": "colour-bazaar", "invites": "a@b.org\n" * 40 + "x@y.org"},
            "at most",
        ),
    ]
    for data, says in cases:
        answer = post(client, "/leagues", "", **data)
        assert answer.status_code == 400, data
        assert says in answer.get_data(as_text=True), data
    assert client.get("/leagues/nosuchleague").status_code == 404
    assert client.get("/leagues/" + "x" * 500).status_code == 404
    # A form without its token is refused.
    assert client.post("/leagues", data={"name": "L"}, raw=True).status_code == 400


def test_the_api_gives_a_leagues_standings_and_no_address(client: Any, app: Any) -> None:
    ids = add_players(app, 4)
    league_id = make_league(app, ids, format="swiss", rounds="2")
    play_people(app, league_id)
    key = league_key(app, league_id)
    answer = client.get(f"/api/v1/leagues/{key}")
    assert answer.status_code == 200
    found = League.model_validate(answer.get_json())
    assert found.status == "running" and found.format == "swiss" and found.round == 1
    assert [line.place for line in found.standings] == [1, 1, 3, 3]
    assert sum(line.points for line in found.standings) == 2
    assert len(found.games) == 2 and all(g.status == "over" for g in found.games)
    assert "@" not in answer.get_data(as_text=True)
    wrong = client.get("/api/v1/leagues/nosuchkey")
    assert wrong.status_code == 404 and wrong.get_json()["error"] == "not_found"


def test_a_player_joins_at_most_thirty_times_an_hour(client: Any, app: Any) -> None:
    ana, bea = add_players(app, 2)
    sign_in_as(client, app, ana)
    key = key_of(post(client, "/leagues", "", name="Big", game="colour-bazaar", is_open="1"))
    sign_in_as(client, app, bea)
    for _ in range(JOINS.count):
        assert post(client, f"/leagues/{key}/join", key).status_code == 303
    over = post(client, f"/leagues/{key}/join", key)
    assert over.status_code == 429
    # All 30 at 09:00: the first leaves the hour at 10:00.
    page = over.get_data(as_text=True)
    assert "as many leagues as an hour allows (30). Try again after Mon 2 Mar, 10:00" in page
    assert f'href="/leagues/{key}"' in page  # back to the league


def pace(html: str) -> str:
    """The league page's line of rounds and clock, as text."""
    found = re.search(r'<p id="pace">(.*?)</p>', html, re.S)
    assert found is not None
    return " ".join(found.group(1).split())


def test_the_page_and_the_api_give_the_rounds_and_the_clock(client: Any, app: Any) -> None:
    ids = add_players(app, 4)
    league_id = make_league(app, ids, format="swiss", rounds="2")
    key = league_key(app, league_id)
    assert pace(client.get(f"/leagues/{key}").get_data(as_text=True)) == (
        "0 rounds played of 2 · Clock: 3 days per move."
    )
    play_people(app, league_id)  # the first round's games end
    assert pace(client.get(f"/leagues/{key}").get_data(as_text=True)) == (
        "1 round played of 2 · Clock: 3 days per move."
    )
    found = League.model_validate(client.get(f"/api/v1/leagues/{key}").get_json())
    assert (found.rounds_played, found.rounds_total) == (1, 2)
    assert (found.days_per_move, found.clock, found.clock_add, found.clock_cap) == (
        3, "move", None, None
    )  # fmt: skip
    french = pace(client.get(f"/leagues/{key}?lang=fr").get_data(as_text=True))
    assert french == "1 tour joué sur 2 · Pendule : 3 jours par coup."  # spaces made plain


def test_a_round_robin_s_rounds_and_a_fischer_clock(client: Any, app: Any) -> None:
    ids = add_players(app, 4, domain="rr.example")
    fischer = TimeControl(days_per_move=2, clock="fischer", clock_add=1, clock_cap=5)
    league_id = make_league(app, ids, timing=fischer)  # a round robin: 3 rounds at once
    key = league_key(app, league_id)
    assert pace(client.get(f"/leagues/{key}").get_data(as_text=True)) == (
        "0 rounds played of 3 · Clock: Fischer clock: 2 days to start, 1 day more after each"
        " move, at most 5 days."
    )
    found = League.model_validate(client.get(f"/api/v1/leagues/{key}").get_json())
    assert (found.rounds_played, found.rounds_total, found.clock, found.clock_add) == (
        0, 3, "fischer", 1
    )  # fmt: skip
    # Still forming: the rounds wait for the number who join (Swiss: those set, if any).
    forming = make_league(
        app, add_players(app, 3, domain="f.example"), start=False, most_players="8"
    )
    answer = client.get(f"/leagues/{league_key(app, forming)}").get_data(as_text=True)
    assert pace(answer).startswith("Rounds: as many as it takes each player to meet the others")
    assert (
        client.get(f"/api/v1/leagues/{league_key(app, forming)}").get_json()["rounds_total"] is None
    )
    swiss = make_league(
        app,
        add_players(app, 3, domain="s.example"),
        start=False,
        format="swiss",
        rounds="4",
        most_players="8",
    )
    assert pace(client.get(f"/leagues/{league_key(app, swiss)}").get_data(as_text=True)).startswith(
        "4 rounds ·"
    )
