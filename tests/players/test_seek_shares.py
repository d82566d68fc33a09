"""Every seat a person takes gives a share of the deal (issue 48, item 8): a seek carries the
share its player's browser made when it was kept, to the seat it takes, at a posted table or
at one made of matched seeks; a game where a person gave none says so in its deal section."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from sqlmodel import select

from pbem.games import fairdeal
from pbem.models import Game, Seat
from pbem.opentables.actions import join_table, post_table
from pbem.storage.db import read_session, write_session
from tests.opentables.helpers import T0, engine_of, players, post, site_of
from tests.web.helpers import form_with, hidden, sign_in_as

NO_SHARE = "gave no share: this deal rests on the server's secret"


def seats_of(app: Any, game_id: int) -> tuple[Game, list[Seat]]:
    with read_session(engine_of(app)) as session:
        game = session.get(Game, game_id)
        assert game is not None
        query = select(Seat).where(Seat.game_id == game_id).order_by(Seat.seat)
        return game, list(session.exec(query))


def keep_seek(client: Any, app: Any, player_id: int, share: str) -> Any:
    """The seek form as the page gives it, its share field filled as deal.js fills it."""
    sign_in_as(client, app, player_id)
    form = form_with(client.get("/games/open").get_data(as_text=True), "/games/open/seeks")
    fields = hidden(form)
    assert "share" in fields  # the field deal.js fills, as on the join and post forms
    fields.update(game="colour-bazaar", lang="en", share=share)
    return client.post(form["action"], data=fields)


def test_seekers_matched_together_both_give_their_shares(app: Any, client: Any) -> None:
    ana, leo = players(app, "Ana", "Leo")
    assert keep_seek(client, app, ana, "ana-browser-share").status_code == 303
    matched = keep_seek(client, app, leo, "leo-browser-share")
    assert matched.status_code == 303
    with read_session(engine_of(app)) as session:
        (game_id,) = session.exec(select(Game.id)).all()
    assert game_id is not None
    game, seats = seats_of(app, game_id)
    assert game.status == "active"
    shares = {s.player_id: s.share for s in seats}
    assert shares == {ana: "ana-browser-share", leo: "leo-browser-share"}
    assert game.deal_secret is not None
    assert game.seed == fairdeal.seed_of(game.deal_secret, [s.share for s in seats])
    # Everyone gave one: the deal section names nobody.
    page = client.get(urlsplit(matched.headers["Location"]).path).get_data(as_text=True)
    assert "A deal you can check" in page and NO_SHARE not in page


def test_a_seek_kept_by_the_api_gives_the_share_its_body_carries(app: Any, client: Any) -> None:
    ana, leo = players(app, "Ana", "Leo")
    assert keep_seek(client, app, ana, "ana-browser-share").status_code == 303
    sign_in_as(client, app, leo)
    body = {"game": "colour-bazaar", "lang": "en", "share": "leo-api-share"}
    matched = client.post("/api/v1/open/seeks", json=body, raw=True)
    assert matched.status_code == 200, matched.get_data(as_text=True)
    with read_session(engine_of(app)) as session:
        (game_id,) = session.exec(select(Game.id)).all()
    assert game_id is not None
    game, seats = seats_of(app, game_id)
    assert {s.player_id: s.share for s in seats} == {ana: "ana-browser-share", leo: "leo-api-share"}
    assert game.deal_secret is not None
    assert game.seed == fairdeal.seed_of(game.deal_secret, [s.share for s in seats])


def test_a_seek_seated_at_a_posted_table_gives_its_share(app: Any, client: Any) -> None:
    ana, leo = players(app, "Ana", "Leo")
    assert keep_seek(client, app, leo, "leo-seek-share").status_code == 303
    with write_session(engine_of(app)) as session:
        game = post_table(session, site_of(app), ana, "colour-bazaar", 2, {}, "en",
                          (None, None), False, T0, share="ana-post-share")  # fmt: skip
        game_id = game.id
    assert game_id is not None
    game, seats = seats_of(app, game_id)
    assert game.status == "active"
    assert [s.share for s in seats] == ["ana-post-share", "leo-seek-share"]
    assert game.seed == fairdeal.seed_of(game.deal_secret or "", [s.share for s in seats])


def test_a_person_who_gave_no_share_is_named_in_the_deal(app: Any, client: Any) -> None:
    ana, leo = players(app, "Ana", "Leo")
    game_id = post(app, ana)  # the poster's share: none (as without JavaScript)
    with write_session(engine_of(app)) as session:
        join_table(session, site_of(app), game_id, leo, T0, share="leo-share")
    _, seats = seats_of(app, game_id)
    site = site_of(app)
    page = client.get(urlsplit(site.seat_url(seats[1])).path).get_data(as_text=True)
    assert f"Ana {NO_SHARE}" in page and f"Leo {NO_SHARE}" not in page
    assert "leo-share" not in page  # whether a share is empty, never its value
    token = urlsplit(site.seat_url(seats[1])).path.rsplit("/", 1)[-1]
    deal = client.get(f"/api/v1/seat/{token}").get_json()["game"]["deal"]
    assert deal["unshared"] == [0] and "shares" not in deal
