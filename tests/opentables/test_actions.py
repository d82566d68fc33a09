"""Open tables and standing seeks (issue 36): post, list, join with one press, start when
full, expire, seeks matched once, blocks both ways, rating ranges, spam limits, bad input."""

from __future__ import annotations

import re
import threading
from typing import Any

import pytest
from sqlmodel import select

from pbem.clock.sweeps import sweep_unstarted
from pbem.errors import PlayError
from pbem.games import fairdeal
from pbem.models import Game, OpenTable, Outbox, PlayerSeek, Seat
from pbem.opentables.actions import fill_from_seeks, join_table, post_table
from pbem.players.blocks import block
from pbem.storage.db import read_session, write_session
from tests.opentables.helpers import T0, engine_of, join, players, post, rate, seek, site_of, status
from tests.web.helpers import deliver, form_with, forms_of, hidden, sign_in_as, text_of


def seated(app: Any, game_id: int) -> list[int]:
    with read_session(engine_of(app)) as session:
        seats = session.exec(select(Seat).where(Seat.game_id == game_id).order_by(Seat.seat))
        return [seat.player_id for seat in seats]


def events(app: Any, game_id: int) -> list[tuple[str, int | None]]:
    with read_session(engine_of(app)) as session:
        rows = session.exec(select(Outbox).where(Outbox.game_id == game_id).order_by(Outbox.id))
        return [(row.event, row.player_id) for row in rows]


def refused(app: Any, game_id: int, player_id: int) -> str:
    with pytest.raises(PlayError) as caught:
        join(app, game_id, player_id)
    return caught.value.key


# --- the rules of joining ---------------------------------------------------


def test_join_fills_the_table_and_starts_it(app: Any, smtpd: Any) -> None:
    ana, leo, zoe = players(app, "Ana", "Leo", "Zoe")
    game_id = post(app, ana, seats=3)
    assert status(app, game_id) == "forming" and seated(app, game_id) == [ana]
    join(app, game_id, leo)
    assert status(app, game_id) == "forming"
    assert ("joined", ana) in events(app, game_id)  # the poster is told who joined
    join(app, game_id, zoe)
    assert status(app, game_id) == "active" and seated(app, game_id) == [ana, leo, zoe]
    started = [who for event, who in events(app, game_id) if event in ("started", "your_turn")]
    assert sorted(started) == sorted([ana, leo, zoe])  # everyone hears of the start
    deliver(app)
    joined = [m for m in smtpd.to("ana@example.org") if "took a seat" in text_of(m)]
    assert len(joined) == 1 and "Leo took a seat at your open table" in text_of(joined[0])
    # Full and started: nobody else sits down.
    (eve,) = players(app, "Eve")
    assert refused(app, game_id, eve) == "open.error.closed"


def test_the_deal_stays_checkable_with_joiners_shares(app: Any) -> None:
    ana, leo = players(app, "Ana", "Leo")
    with write_session(engine_of(app)) as session:
        game = post_table(session, site_of(app), ana, "colour-bazaar", 2, {}, "en",
                          (None, None), True, T0, share="ana's phrase")  # fmt: skip
        game_id = game.id
        assert game.rated and game.deal_secret is not None
    with write_session(engine_of(app)) as session:
        join_table(session, site_of(app), game_id, leo, T0, share="  leo's phrase ")
    with read_session(engine_of(app)) as session:
        shares = [s.share for s in session.exec(select(Seat).where(Seat.game_id == game_id))]
        game = session.get(Game, game_id)
        assert game is not None and game.status == "active"
    assert shares == ["ana's phrase", "leo's phrase"]
    assert game.seed == fairdeal.seed_of(game.deal_secret, shares)


def test_seated_range_and_blocks_are_refused(app: Any) -> None:
    ana, leo, zoe, max_ = players(app, "Ana", "Leo", "Zoe", "Max")
    rate(app, zoe, "colour-bazaar", 1900.0)
    game_id = post(app, ana, seats=3, low=1400, high=1600)
    assert refused(app, game_id, ana) == "open.error.seated"
    assert refused(app, game_id, zoe) == "open.error.range"  # 1900 is above 1600
    with write_session(engine_of(app)) as session:
        block(session, max_, ana, T0)  # Max blocks the poster
    # A block either way: refused as if the table did not exist (issue 48).
    assert refused(app, game_id, max_) == "error.no_game"
    with write_session(engine_of(app)) as session:
        block(session, ana, leo, T0)  # the poster blocks Leo: the other way round
    assert refused(app, game_id, leo) == "error.no_game"


def test_the_last_seat_goes_to_one_joiner_only(app: Any) -> None:
    """Two joins of the last seat: the second, waiting on the game's lock, finds it taken."""
    ana, leo, zoe = players(app, "Ana", "Leo", "Zoe")
    game_id = post(app, ana, seats=2)
    join(app, game_id, leo)
    assert refused(app, game_id, zoe) == "open.error.closed"
    assert seated(app, game_id) == [ana, leo]


def test_two_joins_at_once_for_the_last_seat(app: Any) -> None:
    """Two sessions press Join together: the game's lock lets one in, the other is refused."""
    ana, leo, zoe = players(app, "Ana", "Leo", "Zoe")
    game_id = post(app, ana, seats=2)
    barrier = threading.Barrier(2)
    results: dict[int, str] = {}

    def press(player_id: int) -> None:
        barrier.wait()
        try:
            join(app, game_id, player_id)
            results[player_id] = "seated"
        except PlayError as exc:
            results[player_id] = exc.key

    threads = [threading.Thread(target=press, args=(who,)) for who in (leo, zoe)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(results.values()) == ["open.error.closed", "seated"]
    (winner,) = [who for who, result in results.items() if result == "seated"]
    assert seated(app, game_id) == [ana, winner] and status(app, game_id) == "active"


# --- expiry -------------------------------------------------------------------


def test_an_open_table_nobody_fills_is_warned_then_called_off(
    app: Any, smtpd: Any, clock: Any
) -> None:
    (ana,) = players(app, "Ana")
    game_id = post(app, ana, seats=3)
    engine, site = engine_of(app), site_of(app)
    assert sweep_unstarted(engine, site, clock.advance(days=12), 10, 14)["expiry warnings"] == 0
    warned = sweep_unstarted(engine, site, clock.advance(days=1, hours=1), 10, 14)
    assert warned == {"expiry warnings": 1, "expired": 0}
    deliver(app)
    (warning,) = [m for m in smtpd.to("ana@example.org") if "called off on" in text_of(m)]
    assert "2 seats are still open." in text_of(warning)
    assert "Still waiting for" not in text_of(warning)
    done = sweep_unstarted(engine, site, clock.advance(days=1, hours=1), 10, 14)
    assert done == {"expiry warnings": 0, "expired": 1}
    assert status(app, game_id) == "cancelled"
    assert ("cancelled", ana) in events(app, game_id)
    # Running the sweep again does nothing more.
    assert sweep_unstarted(engine, site, clock.advance(days=1), 10, 14)["expired"] == 0


# --- standing seeks -----------------------------------------------------------


def seeks(app: Any) -> list[int]:
    with read_session(engine_of(app)) as session:
        return [s.player_id for s in session.exec(select(PlayerSeek).order_by(PlayerSeek.id))]


def test_a_posted_table_seats_the_fitting_seekers_once(app: Any) -> None:
    ana, leo, zoe, max_, eve, bob = players(app, "Ana", "Leo", "Zoe", "Max", "Eve", "Bob")
    rate(app, bob, "colour-bazaar", 2100.0)
    assert seek(app, leo, lang="fr") is None  # another language
    assert seek(app, zoe, slug="fantasy-business") is None  # another game
    assert seek(app, max_, high=1400) is None  # Ana's 1500 is above Max's range
    assert seek(app, bob, low=2000) is None  # Bob's 2100 is above the table's range
    assert seek(app, eve) is None  # fits
    game_id = post(app, ana, seats=3, high=1800)
    assert seated(app, game_id) == [ana, eve]
    assert ("matched", eve) in events(app, game_id)
    assert eve not in seeks(app)  # used once
    # Matching again seats nobody twice.
    with write_session(engine_of(app)) as session:
        assert fill_from_seeks(session, site_of(app), game_id, T0) == 0
    assert seated(app, game_id) == [ana, eve]
    assert sorted(seeks(app)) == sorted([leo, zoe, max_, bob])


def test_a_seek_seats_its_player_at_one_table_only(app: Any) -> None:
    ana, leo, zoe = players(app, "Ana", "Leo", "Zoe")
    seek(app, zoe)
    first = post(app, ana, seats=3)
    second = post(app, leo, seats=3)
    assert seated(app, first) == [ana, zoe] and seated(app, second) == [leo]
    assert [event for event, who in events(app, first) if who == zoe] == ["matched"]
    assert events(app, second) == []


def test_a_seek_saved_joins_the_table_waiting_longest(app: Any) -> None:
    ana, leo, zoe = players(app, "Ana", "Leo", "Zoe")
    older = post(app, ana, seats=2)
    newer = post(app, leo, seats=3)
    seat = seek(app, zoe)
    assert seat is not None and seat.game_id == older
    assert status(app, older) == "active" and seated(app, newer) == [leo]
    assert seeks(app) == []


def test_seeks_respect_blocks_both_ways(app: Any) -> None:
    ana, leo, zoe = players(app, "Ana", "Leo", "Zoe")
    with write_session(engine_of(app)) as session:
        block(session, ana, leo, T0)  # Ana blocks Leo
        block(session, zoe, ana, T0)  # Zoé blocks Ana
        block(session, leo, zoe, T0)  # and Leo Zoé: their two seeks are not paired either
    assert seek(app, leo) is None and seek(app, zoe) is None
    game_id = post(app, ana, seats=3)
    assert seated(app, game_id) == [ana]
    assert sorted(seeks(app)) == sorted([leo, zoe])


def test_two_seekers_are_seated_together_without_anyone_posting(app: Any) -> None:
    ana, leo, zoe, max_ = players(app, "Ana", "Leo", "Zoe", "Max")
    rate(app, max_, "colour-bazaar", 1900.0)
    assert seek(app, ana, high=1800) is None  # nobody else seeks yet: it waits
    assert seek(app, max_) is None  # Max's 1900 is above Ana's range: no pair
    seat = seek(app, leo)  # fits Ana's seek both ways: a game of the two starts
    assert seat is not None
    game_id = seat.game_id
    assert status(app, game_id) == "active" and sorted(seated(app, game_id)) == sorted([ana, leo])
    assert ("matched", leo) in events(app, game_id)
    assert seeks(app) == [max_]  # both used, once
    with write_session(engine_of(app)) as session:
        block(session, zoe, max_, T0)
    assert seek(app, zoe) is None  # the only other seek is Max's, whom Zoé blocks
    assert sorted(seeks(app)) == sorted([max_, zoe])


def test_seekers_fill_a_table_of_the_game_s_fewest_players(app: Any) -> None:
    ana, leo, zoe = players(app, "Ana", "Leo", "Zoe")
    fb = "fantasy-business"  # three players at least: two seeks are not yet a table
    assert seek(app, ana, slug=fb) is None and seek(app, leo, slug=fb) is None
    seat = seek(app, zoe, slug=fb)
    assert seat is not None and status(app, seat.game_id) == "active"
    assert sorted(seated(app, seat.game_id)) == sorted([ana, leo, zoe]) and seeks(app) == []


def test_at_most_a_few_seeks(app: Any) -> None:
    (ana,) = players(app, "Ana")
    for _ in range(3):
        seek(app, ana)
    with pytest.raises(PlayError) as caught:
        seek(app, ana)
    assert caught.value.key == "open.error.seeks"


# --- the page -------------------------------------------------------------------


def test_the_page_lists_posts_and_joins_in_one_press(app: Any, client: Any) -> None:
    ana, leo = players(app, "Ana", "Leo")
    rate(app, ana, "colour-bazaar", 1612.4)
    sign_in_as(client, app, ana)
    page = client.get("/games/open").get_data(as_text=True)
    posting = form_with(page, "/games/open")
    data = {**hidden(posting), "game": "colour-bazaar", "seats": "2", "lang": "en",
            "days_per_move": "3", "rating_min": "1000", "rating_max": "2000",
            "opt_colour-bazaar_courts": "1"}  # fmt: skip
    response = client.post("/games/open", data=data)
    assert response.status_code == 303
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Your table is open." in page and "Withdraw" in page
    assert 'Ana <span class="rating">1612</span>' in page  # the rating beside the name
    assert "rating 1000 to 2000" in page and "royal edicts): yes" in page
    assert "1 of 2 seats taken" in page
    sign_in_as(client, app, leo)
    page = client.get("/games/open").get_data(as_text=True)
    (join_form,) = [f for f in forms_of(page) if f["action"].endswith("/join")]
    response = client.post(join_form["action"], data=hidden(join_form))
    assert response.status_code == 303 and response.headers["Location"].startswith("/p/")
    game_id = int(re.search(r"/games/open/(\d+)/join", join_form["action"]).group(1))
    assert status(app, game_id) == "active"
    assert "No open table just now." in client.get("/games/open").get_data(as_text=True)


def test_the_blocked_player_does_not_see_the_table(app: Any, client: Any) -> None:
    ana, leo, zoe = players(app, "Ana", "Leo", "Zoe")
    post(app, ana, seats=3)
    with write_session(engine_of(app)) as session:
        block(session, ana, leo, T0)
    sign_in_as(client, app, leo)
    assert "No open table just now." in client.get("/games/open").get_data(as_text=True)
    sign_in_as(client, app, zoe)
    assert "/join" in client.get("/games/open").get_data(as_text=True)


def test_a_blocked_player_s_join_answers_as_for_no_table(app: Any, client: Any) -> None:
    """Issue 48: the join of a table hidden by a block gets the very answer of a table that
    does not exist (status and body), even out of the table's rating range."""
    ana, leo, zoe = players(app, "Ana", "Leo", "Zoe")
    rate(app, leo, "colour-bazaar", 1900.0)
    game_id = post(app, ana, seats=3, low=1400, high=1600)
    with write_session(engine_of(app)) as session:
        block(session, ana, leo, T0)
    sign_in_as(client, app, leo)
    hidden_table = client.post(f"/games/open/{game_id}/join", data={"share": "x"})
    no_table = client.post(f"/games/open/{game_id + 1000}/join", data={"share": "x"})
    assert hidden_table.status_code == no_table.status_code == 404

    def same(response: Any, table_id: int) -> str:
        """The page less what differs for any two requests: the path, each form's token."""
        page = response.get_data(as_text=True).replace(f"/games/open/{table_id}/", "/ID/")
        return re.sub(r'value="[\w.-]{40,}"', 'value="TOKEN"', page)

    assert same(hidden_table, game_id) == same(no_table, game_id + 1000)
    assert "There is no such game" in same(hidden_table, game_id)
    assert seated(app, game_id) == [ana]
    sign_in_as(client, app, zoe)  # nobody else is turned away
    assert client.post(f"/games/open/{game_id}/join").status_code == 303


def test_filters_and_why_a_row_is_not_joinable(app: Any, client: Any) -> None:
    ana, leo, zoe = players(app, "Ana", "Leo", "Zoe")
    rate(app, zoe, "colour-bazaar", 1900.0)
    post(app, ana, seats=2, lang="fr", high=1600)
    post(app, leo, seats=4, slug="fantasy-business")
    sign_in_as(client, app, zoe)
    page = client.get("/games/open?language=fr").get_data(as_text=True)
    assert "Colour Bazaar" in page and "Fantasy Business #" not in page
    assert "your rating in this game is outside the range" in page and "/join" not in page
    page = client.get("/games/open?game=fantasy-business").get_data(as_text=True)
    assert "Fantasy Business" in page and "/join" in page


def test_withdraw_calls_the_table_off(app: Any, client: Any) -> None:
    ana, leo = players(app, "Ana", "Leo")
    game_id = post(app, ana, seats=3)
    sign_in_as(client, app, leo)
    # Not Leo's: answered as no table at all (a table hidden by a block shows through nothing).
    assert client.post(f"/games/open/{game_id}/withdraw").status_code == 404
    sign_in_as(client, app, ana)
    response = client.post(f"/games/open/{game_id}/withdraw")
    assert response.status_code == 303 and status(app, game_id) == "cancelled"


def test_seeks_on_the_page(app: Any, client: Any) -> None:
    (ana,) = players(app, "Ana")
    sign_in_as(client, app, ana)
    response = client.post("/games/open/seeks", data={"game": "colour-bazaar", "lang": "en"})
    assert response.status_code == 303
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Your seek is kept" in page
    remove = form_with(page, "/remove")
    assert client.post(remove["action"], data=hidden(remove)).status_code == 303
    assert seeks(app) == []


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("/games/open", {"game": "chess", "seats": "2", "lang": "en"}),
        ("/games/open", {"game": "colour-bazaar", "seats": "9", "lang": "en"}),
        ("/games/open", {"game": "fantasy-business", "seats": "2", "lang": "en"}),
        ("/games/open", {"game": "colour-bazaar", "seats": "2", "lang": "xx"}),
        (
            "/games/open",
            {
                "game": "colour-bazaar",
                "seats": "2",
                "lang": "en",
                "rating_min": "1800",
                "rating_max": "1200",
            },
        ),  # fmt: skip
        (
            "/games/open",
            {"game": "colour-bazaar", "seats": "2", "lang": "en", "rating_min": "-5"},
        ),  # fmt: skip
        (
            "/games/open",
            {"game": "colour-bazaar", "seats": "2", "lang": "en", "rating_max": "9" * 5000},
        ),  # fmt: skip
        (
            "/games/open",
            {"game": "colour-bazaar", "seats": "2", "lang": "en", "share": "x" * 5000},
        ),  # fmt: skip
        ("/games/open/seeks", {"game": "x" * 5000, "lang": "en"}),
        ("/games/open/seeks", {"game": "colour-bazaar", "lang": "en", "rating_min": "abc"}),
        ("/games/open/999/join", {}),
    ],
)
def test_bad_input_is_a_clear_4xx(app: Any, client: Any, path: str, data: dict[str, str]) -> None:
    (ana,) = players(app, "Ana")
    sign_in_as(client, app, ana)
    response = client.post(path, data=data)
    assert 400 <= response.status_code < 500
    assert 'role="alert"' in response.get_data(as_text=True)


@pytest.mark.parametrize("query", ["game=chess", "language=xx", "page=-1", "page=99999", "page=a"])
def test_absurd_filters_are_400(app: Any, client: Any, query: str) -> None:
    assert client.get(f"/games/open?{query}").status_code == 400


@pytest.mark.parametrize(
    "path",
    [
        "/games/open",
        "/games/open/1/join",
        "/games/open/1/withdraw",
        "/games/open/seeks",
        "/games/open/seeks/1/remove",
    ],  # fmt: skip
)
def test_signed_out_posts_go_to_sign_in(app: Any, client: Any, path: str) -> None:
    response = client.post(path, data={"game": "colour-bazaar", "seats": "2", "lang": "en"})
    assert response.status_code == 303 and response.headers["Location"].endswith("/signin")


# --- spam limits -----------------------------------------------------------------


def test_posts_are_limited_at_once_and_per_day(app: Any, client: Any, clock: Any) -> None:
    (ana,) = players(app, "Ana")
    sign_in_as(client, app, ana)
    data = {"game": "colour-bazaar", "seats": "2", "lang": "en"}

    def withdraw_all() -> None:
        with read_session(engine_of(app)) as session:
            ids = [t.game_id for t in session.exec(select(OpenTable))]
        for game_id in ids:
            client.post(f"/games/open/{game_id}/withdraw")

    codes = [client.post("/games/open", data=data).status_code for _ in range(6)]
    assert codes == [303] * 5 + [429]  # five waiting at once
    page = client.post("/games/open", data=data).get_data(as_text=True)
    assert "You already have 5 open tables waiting" in page
    withdraw_all()
    codes = [client.post("/games/open", data=data).status_code for _ in range(5)]
    assert codes == [303] * 5
    withdraw_all()
    over = client.post("/games/open", data=data)
    assert over.status_code == 429  # ten a day in all
    assert "as many open tables and seeks as 24 hours allow (10)" in over.get_data(as_text=True)
    clock.advance(days=1)
    assert client.post("/games/open", data=data).status_code == 303  # a new day


def test_joins_are_limited_per_day(app: Any, client: Any) -> None:
    (leo,) = players(app, "Leo")
    sign_in_as(client, app, leo)
    codes = [client.post("/games/open/999/join").status_code for _ in range(31)]
    assert codes == [404] * 30 + [429]  # every try counts, even a refused one


# --- the API and hidden information ---------------------------------------------------


def test_the_api_lists_open_tables_with_names_and_ratings(app: Any, client: Any) -> None:
    ana, leo = players(app, "Ana", "Leo")
    rate(app, ana, "fantasy-business", 1720.0)
    post(app, ana, seats=4, slug="fantasy-business", lang="fr", low=1200)
    post(app, leo, seats=2)
    answer = client.get("/api/v1/open").get_json()
    assert [t["slug"] for t in answer["tables"]] == ["colour-bazaar", "fantasy-business"]
    assert answer["more"] is False and answer["page"] == 0
    fb = answer["tables"][1]
    assert fb["players"] == [{"name": "Ana", "rating": 1720}]
    assert (fb["seats"], fb["language"]) == (4, "fr")
    assert (fb["rating_min"], fb["rating_max"]) == (1200, None)
    only = client.get("/api/v1/open?game=fantasy-business&language=fr").get_json()["tables"]
    assert [t["slug"] for t in only] == ["fantasy-business"]
    assert client.get("/api/v1/open?language=de").status_code == 400


def test_open_tables_show_no_address_nor_any_part_of_the_deal(app: Any, client: Any) -> None:
    ana, leo, zoe = players(app, "Ana", "Leo", "Zoe")
    with write_session(engine_of(app)) as session:
        game = post_table(session, site_of(app), ana, "colour-bazaar", 3, {}, "en",
                          (None, None), False, T0, share="dealzqshareana")  # fmt: skip
        game_id, secret, salt = game.id, game.deal_secret, game.deal_salt
    with write_session(engine_of(app)) as session:
        join_table(session, site_of(app), game_id, leo, T0, share="dealzqshareleo")
    assert secret and salt
    sign_in_as(client, app, zoe)
    for path in ("/games/open", "/api/v1/open"):
        page = client.get(path).get_data(as_text=True)
        assert "Leo" in page and "Ana" in page  # the check has teeth: the table is there
        for secret_text in ("dealzq", secret, salt, "@example.org"):
            assert secret_text not in page, (path, secret_text)


def test_matched_and_joined_mails_speak_each_reader_s_language(app: Any, smtpd: Any) -> None:
    (ana,) = players(app, "Ana", lang="fr")
    leo, zoe = players(app, "Leo", "Zoe")
    seek(app, leo)
    game_id = post(app, ana, seats=3)
    assert seated(app, game_id) == [ana, leo]
    deliver(app)
    (matched,) = smtpd.to("leo@example.org")
    assert "Your standing seek found you a seat: Colour Bazaar #1 with Ana." in text_of(matched)
    assert "1 seat is still open" in text_of(matched)
    assert "starts.\nThe seek is used up" in text_of(matched).replace("\r\n", "\n")
    (joined,) = smtpd.to("ana@example.org")
    assert "Leo a pris place à votre table ouverte" in text_of(joined)
    join(app, game_id, zoe)
    deliver(app)
    started = smtpd.to("ana@example.org")[1:]
    assert started and all("vous" in text_of(m) for m in started)  # the start, in French
