"""A player's page: ratings, their history, finished games with public facts, head-to-head,
privacy; /me links to it and shows the ratings."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from sqlmodel import select

from pbem.models import Player, Seat
from pbem.play import Invitee
from pbem.ratings import COMPUTER_RATINGS
from pbem.storage.db import read_session, write_session
from pbem.web.apimodels import PlayerRatings
from tests.ratings.helpers import play_game
from tests.web.helpers import sign_in_as, start_game

ANA, LEO, ZOE = (Invitee(n, f"{n.lower()}@example.org") for n in ("Ana", "Leo", "Zoe"))


def ids(app: Any) -> dict[str, int]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return {p.name: p.id or 0 for p in session.exec(select(Player))}


def played(app: Any) -> tuple[int, list[int]]:
    """Ana and Leo: two rated games and an unrated one; Ana and Zoe: one rated game."""
    engine = app.extensions["pbem"]["engine"]
    games = [
        play_game(engine, "colour-bazaar", [ANA, LEO], seed=1)[0],
        play_game(engine, "colour-bazaar", [LEO, ANA], seed=2)[0],
        play_game(engine, "colour-bazaar", [ANA, LEO], rated=False, seed=3)[0],
        play_game(engine, "colour-bazaar", [ANA, ZOE], seed=4)[0],
    ]
    return ids(app)["Ana"], games


def test_the_page_shows_ratings_history_and_finished_games(client: Any, app: Any) -> None:
    ana, games = played(app)
    page = client.get(f"/players/{ana}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "<h1>Ana</h1>" in html
    assert re.search(r"Colour Bazaar: \d+", html) and "3 rated games" in html
    # The chart, named, and its points as a table for those who cannot see it.
    # Three games, and the rating the first started from.
    assert html.count('<circle class="dot"') == 4
    assert 'aria-labelledby="chart-colour-bazaar-title"' in html
    assert "The ratings as a table" in html
    # Every finished game, most recent first, with the others linked and the result.
    listed = [int(n) for n in re.findall(r"Colour Bazaar #(\d+)", html)]
    assert listed == sorted(games, reverse=True)
    assert html.count("· rated") == 3
    who = ids(app)
    assert f'href="/players/{who["Leo"]}">Leo</a>' in html
    assert f'href="/players/{who["Zoe"]}">Zoe</a>' in html
    assert "@example.org" not in html and "/p/" not in html  # no address, no seat link


def test_head_to_head_counts_the_games_between_two(client: Any, app: Any) -> None:
    ana, games = played(app)
    leo = ids(app)["Leo"]
    html = client.get(f"/players/{ana}?against={leo}").get_data(as_text=True)
    listed = [int(n) for n in re.findall(r"Colour Bazaar #(\d+)", html)]
    assert listed == sorted(games[:3], reverse=True)
    found = re.search(r"Wins: (\d+) · draws: (\d+) · losses: (\d+)", html)
    assert found is not None and sum(map(int, found.groups())) == 3
    mirror = client.get(f"/players/{leo}?against={ana}").get_data(as_text=True)
    theirs = re.search(r"Wins: (\d+) · draws: (\d+) · losses: (\d+)", mirror)
    assert theirs is not None
    assert (theirs[1], theirs[2], theirs[3]) == (found[3], found[2], found[1])


def test_bad_requests_are_refused_clearly(client: Any, app: Any) -> None:
    ana, _ = played(app)
    assert client.get("/players/999").status_code == 404
    assert client.get(f"/players/{ana}?page=x").status_code == 400
    assert client.get(f"/players/{ana}?page=99999999").status_code == 400
    assert client.get(f"/players/{ana}?against=999").status_code == 404
    assert client.get(f"/players/{ana}?against={ana}").status_code == 404
    assert "None yet." in client.get(f"/players/{ana}?page=3").get_data(as_text=True)


def test_a_private_page_is_shown_to_its_player_only(client: Any, app: Any) -> None:
    ana, _ = played(app)
    with write_session(app.extensions["pbem"]["engine"]) as session:
        player = session.get(Player, ana)
        assert player is not None
        player.page_public = False
        session.add(player)
    hidden = client.get(f"/players/{ana}")
    assert hidden.status_code == 404 and "Colour Bazaar #" not in hidden.get_data(as_text=True)
    sign_in_as(client, app, ids(app)["Leo"])
    assert client.get(f"/players/{ana}").status_code == 404  # tests/players/test_privacy.py
    sign_in_as(client, app, ana)
    mine = client.get(f"/players/{ana}").get_data(as_text=True)
    assert "Colour Bazaar #" in mine and "This is your page" in mine


def test_me_links_to_my_page_and_shows_my_ratings(client: Any, app: Any) -> None:
    ana, _ = played(app)
    sign_in_as(client, app, ana)
    html = client.get("/me").get_data(as_text=True)
    assert f'href="/players/{ana}"' in html
    assert re.search(r'id="my-ratings">Your ratings: Colour Bazaar \d+', html)


def test_a_computer_account_has_a_page_with_its_fixed_ratings(client: Any, app: Any) -> None:
    engine = app.extensions["pbem"]["engine"]
    play_game(engine, "colour-bazaar", [ANA, Invitee("", "", computer="strong")], seed=1)
    computer = ids(app)["strong"]
    html = client.get(f"/players/{computer}").get_data(as_text=True)
    assert f"Colour Bazaar: {round(COMPUTER_RATINGS['colour-bazaar']['strong'])}" in html
    assert f"Fantasy Business: {round(COMPUTER_RATINGS['fantasy-business']['strong'])}" in html
    assert "<h1>Computer, strong</h1>" in html
    assert "computer.invalid" not in html


def test_the_settings_hide_the_page(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    settings = client.get(f"{links['ana@example.org']}/settings").get_data(as_text=True)
    assert 'name="page_public" value="1" checked' in settings
    saved = client.post(
        f"{links['ana@example.org']}/settings",
        data={"lang": "en", "tz": "UTC", "notify": "every"},
    )
    assert saved.status_code == 303
    ana = ids(app)["Ana"]
    assert client.get(f"/players/{ana}").status_code == 404


def test_the_api_gives_a_public_players_name_and_ratings(client: Any, app: Any) -> None:
    ana, _ = played(app)
    answer = client.get(f"/api/v1/players/{ana}")
    assert answer.status_code == 200
    body = PlayerRatings.model_validate(answer.get_json())
    assert body.name == "Ana" and body.computer is None
    (rating,) = body.ratings
    assert rating.kind == "colour-bazaar" and rating.games == 3
    assert "@" not in answer.get_data(as_text=True)
    with write_session(app.extensions["pbem"]["engine"]) as session:
        player = session.get(Player, ana)
        assert player is not None
        player.page_public = False
        session.add(player)
    hidden = client.get(f"/api/v1/players/{ana}")
    assert hidden.status_code == 404 and hidden.get_json()["error"] == "not_found"


def test_a_number_past_the_database_s_integers_is_no_player(client: Any) -> None:
    # PostgreSQL's integer ends at 2**31 - 1: past it the route answers 404, not a 500.
    for path in ("/players/99999999999", "/api/v1/players/99999999999"):
        assert client.get(path).status_code == 404, path
    assert client.post("/players/99999999999/block").status_code in (400, 403, 404)


def test_a_shared_first_place_is_not_a_win(client: Any, app: Any) -> None:
    # Fantasy Business, seed 2: Ana and Leo both end on 129 points, Zoe on 25.
    engine = app.extensions["pbem"]["engine"]
    game_id, outcome = play_game(engine, "fantasy-business", [ANA, LEO, ZOE], seed=2)
    assert outcome["ranks"] == [1, 1, 3]
    who = ids(app)
    html = client.get(f"/players/{who['Ana']}").get_data(as_text=True)
    assert "Shared first place of 3 with Leo, with 129 points." in html
    assert "Won," not in html
    french = client.get(f"/players/{who['Leo']}?lang=fr").get_data(as_text=True)
    assert "Première place partagée sur 3 avec Ana, avec 129 points." in french
    assert "Place 3 of 3, with 25 points." in client.get(f"/players/{who['Zoe']}").get_data(
        as_text=True
    )


def game_links(html: str) -> dict[int, str]:
    """Each listed game's link, by game number."""
    return {
        int(number): link
        for link, number in re.findall(r'<a href="([^"]+)"><strong>[^<#]+#(\d+)</strong></a>', html)
    }


def test_each_game_links_to_what_the_viewer_may_see(client: Any, app: Any) -> None:
    ana, games = played(app)  # the first three with Leo, the last with Zoe
    site = app.extensions["pbem"]["site"]
    with read_session(app.extensions["pbem"]["engine"]) as session:
        seats = {
            (s.game_id, s.player_id): urlsplit(site.seat_url(s)).path
            for s in session.exec(select(Seat))
        }
    leo = ids(app)["Leo"]
    # Anyone: each finished game's spectator page, which shows it.
    links = game_links(client.get(f"/players/{ana}").get_data(as_text=True))
    assert sorted(links) == sorted(games)
    for game_id, link in links.items():
        assert link.startswith("/w/")
        assert f"#{game_id}" in client.get(link).get_data(as_text=True)
    # Leo, signed in, on Ana's page: his own seat where he played, never Ana's seat.
    sign_in_as(client, app, leo)
    links = game_links(client.get(f"/players/{ana}").get_data(as_text=True))
    for game_id in games[:3]:
        assert links[game_id] == seats[(game_id, leo)]
    assert links[games[3]].startswith("/w/")
    html = client.get(f"/players/{ana}").get_data(as_text=True)
    assert not [g for g in games if seats[(g, ana)] in html]
