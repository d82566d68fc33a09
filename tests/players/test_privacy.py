"""A private player (issue 48, item 6): to others, exactly a player who does not exist (the
same status and body on their page, the API and ?against=), named nowhere but at the tables
they sit at: not on /games/open nor its API, not linked from others' pages."""

from __future__ import annotations

import re
from typing import Any

from pbem.models import Player
from pbem.play import Invitee
from pbem.storage.db import write_session
from tests.leagues.helpers import add_players, league_key, make_league
from tests.opentables.helpers import engine_of, join, players, post, rate
from tests.ratings.helpers import play_game
from tests.web.helpers import forget_session, sign_in_as

UNKNOWN = 999_999


def hide(app: Any, player_id: int) -> None:
    with write_session(engine_of(app)) as session:
        player = session.get(Player, player_id)
        assert player is not None
        player.page_public = False
        session.add(player)


def answer(client: Any, path: str, asked: int) -> tuple[int, str]:
    """Status and body, less what differs by request: the path asked (in the language links)
    and the sign-out form's fresh CSRF token."""
    asked_path = path.format(asked)
    got = client.get(asked_path)
    body = got.get_data(as_text=True).replace(asked_path, "PATH")
    return got.status_code, re.sub(r'name="csrf" value="[^"]*"', "", body)


def test_a_private_page_answers_as_no_player_does(app: Any, client: Any) -> None:
    ana, leo, zoe = players(app, "Ana", "Leo", "Zoe")
    engine = engine_of(app)
    ana_in, leo_in = Invitee("Ana", "ana@example.org"), Invitee("Leo", "leo@example.org")
    play_game(engine, "colour-bazaar", [ana_in, leo_in], seed=1)
    hide(app, ana)
    # A stranger, signed out or in, and even Leo who sat at her table: as for no player.
    for viewer in (None, zoe, leo):
        forget_session(client)
        if viewer is not None:
            sign_in_as(client, app, viewer)
        for base in ("/players/{}", "/api/v1/players/{}"):
            hidden, unknown = answer(client, base, ana), answer(client, base, UNKNOWN)
            assert hidden[0] == 404 and hidden == unknown, (viewer, base)
            assert "Ana" not in hidden[1]
        # Her id as ?against= on a public page is no player either.
        against = answer(client, f"/players/{leo}?against={{}}", ana)
        assert against == answer(client, f"/players/{leo}?against={{}}", UNKNOWN)
        assert against[0] == 404 and "Ana" not in against[1]
        # Leo's own page names her as at their table, without a link to her.
        listed = client.get(f"/players/{leo}").get_data(as_text=True)
        assert "Colour Bazaar #" in listed and f'href="/players/{ana}"' not in listed
    # She still sees her own page, and her games against Leo.
    sign_in_as(client, app, ana)
    assert client.get(f"/players/{ana}").status_code == 200
    assert client.get(f"/players/{ana}?against={leo}").status_code == 200


def test_only_a_table_mate_may_block_a_private_player(app: Any, client: Any) -> None:
    ana, leo, zoe = players(app, "Ana", "Leo", "Zoe")
    play_game(
        engine_of(app),
        "colour-bazaar",
        [Invitee("Ana", "ana@example.org"), Invitee("Leo", "leo@example.org")],
        seed=1,
    )
    hide(app, ana)
    sign_in_as(client, app, zoe)
    assert client.post(f"/players/{ana}/block").status_code == 404
    assert client.post(f"/players/{UNKNOWN}/block").status_code == 404
    sign_in_as(client, app, leo)
    assert client.post(f"/players/{ana}/block").status_code == 303
    assert client.post(f"/players/{ana}/unblock").status_code == 303


def test_open_tables_count_a_private_player_but_never_name_them(app: Any, client: Any) -> None:
    ana, leo, zoe = players(app, "Ana", "Leo", "Zoe")
    rate(app, ana, "colour-bazaar", 1789.0)
    game_id = post(app, ana, seats=3)
    join(app, game_id, leo)
    hide(app, ana)
    sign_in_as(client, app, zoe)
    html = client.get("/games/open").get_data(as_text=True)
    assert "2 of 3 seats taken" in html and "Leo" in html
    # Less the sign-out form's random CSRF token, which once spelt "Ana" by chance.
    html = re.sub(r'name="csrf" value="[^"]*"', "", html)
    assert "Ana" not in html and "1789" not in html
    (table,) = client.get("/api/v1/open").get_json()["tables"]
    assert table["taken"] == 2 and table["players"] == [{"name": "Leo", "rating": 1500}]
    # Ana sees herself at her own table.
    sign_in_as(client, app, ana)
    assert "Ana" in client.get("/games/open").get_data(as_text=True)


def test_a_league_names_a_private_member_without_a_link(app: Any, client: Any) -> None:
    ids = add_players(app, 2)
    league_id = make_league(app, ids)
    hide(app, ids[1])
    html = client.get(f"/leagues/{league_key(app, league_id)}").get_data(as_text=True)
    assert f'href="/players/{ids[0]}"' in html and f'href="/players/{ids[1]}"' not in html
