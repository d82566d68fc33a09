"""`pbem live`'s streams (issue 47), served by uvicorn in a thread beside the test app, on
SQLite and PostgreSQL: a seat's, a spectator's and a league's page get a first event with
the version, ply and status, then one at each change (a move, talk, a take back, a round),
and nothing else: no game content. A wrong or revoked link is a 404, counted in the pages'
rate limit of wrong links, then a 429. An idle stream carries a comment every keepalive. A
seat's open stream marks it looking, so the turn mail it would get waits."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlmodel import select

from pbem import moves, play
from pbem.devservers import free_port
from pbem.games import GAMES
from pbem.live.serve import InThread
from pbem.models import Game, Seat
from pbem.players import presence, talk
from pbem.present.forms import TalkForm
from pbem.site import new_key
from pbem.storage.db import read_session, write_session
from pbem.storage.ratelimit import BAD_LINKS
from tests.app import make_test_app
from tests.leagues.helpers import add_players, league_key, make_league, play_people
from tests.live.sse import Stream

FACTS = {"version", "ply", "status"}


@pytest.fixture
def served(database_url: str, clock: Any, smtpd: Any, tmp_path: Any) -> Iterator[Any]:
    """The test app, and its streams on a free port (a keepalive every 0.3 s)."""
    app = make_test_app(database_url, clock, smtpd, tmp_path, LIVE_KEEPALIVE=0.3)
    streams = InThread(app, "127.0.0.1", free_port()).start()
    app.config["STREAMS"] = f"http://127.0.0.1:{streams.server.config.port}/live"
    try:
        yield app
    finally:
        streams.stop()
        app.extensions["pbem"]["engine"].dispose()


def two_people(app: Any) -> tuple[int, str, str]:
    """A started game, Ana against Léo; its id, Ana's seat token and the spectators'."""
    ext = app.extensions["pbem"]
    people = [play.Invitee("Ana", "ana@example.org"), play.Invitee("Léo", "leo@example.org")]
    with write_session(ext["engine"]) as session:
        game = play.create_game(session, ext["site"], "colour-bazaar", people, {}, now(app))
        game_id = game.id or 0
        play.join(session, ext["site"], game_id, 1, now(app))
        ana = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == 0)).one()
        seat_token = ext["site"].seat_url(ana).rsplit("/", 1)[1]
        watch_token = ext["site"].watch_url(game).rsplit("/", 1)[1]
    return game_id, seat_token, watch_token


def now(app: Any) -> Any:
    return app.config["CLOCK"]()


def a_move(app: Any, game_id: int) -> None:
    """The seat to act plays its first legal move (a reply by mail: any source will do)."""
    ext = app.extensions["pbem"]
    with write_session(ext["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.state is not None
        rules = GAMES[game.slug]
        (seat,) = rules.to_act(game.state)
        move, token = rules.legal_moves(game.state, seat)[0], rules.turn_token(game.state, seat)
        session.expunge(game)
        moves.submit_move(session, ext["site"], game_id, seat, move, token, now(app), "mail")


def game_row(app: Any, game_id: int) -> Game:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None
        return game


def test_a_seat_stream_tells_each_change_with_its_version_and_nothing_else(served: Any) -> None:
    game_id, seat, _ = two_people(served)
    stream = Stream(f"{served.config['STREAMS']}/p/{seat}")
    assert stream.status == 200
    assert stream.headers["content-type"].startswith("text/event-stream")
    assert stream.headers["cache-control"] == "no-store"
    assert stream.headers["x-accel-buffering"] == "no"
    first = stream.event()
    assert first["event"] == "changed" and first["retry"] == "3000"
    assert first["data"] == {"version": 1, "ply": 0, "status": "active"}
    a_move(served, game_id)
    moved = stream.event()
    assert moved["data"] == {"version": 2, "ply": 1, "status": "active"} and moved["id"] == "2"
    with write_session(served.extensions["pbem"]["engine"]) as session:
        said = TalkForm.read({"to": "all", "text": "A secret plan"})
        talk.post(session, game_id, 1, said, now(served))
    told = stream.event()
    assert told["data"] == {"version": 3, "ply": 1, "status": "active"}
    # No game content: the events say how far, never what (the page asks the web app).
    assert set(told) == {"event", "id", "data"} and set(told["data"]) == FACTS
    # Idle, the stream carries a comment now and then, so that proxies keep it open.
    assert stream.next(wait=5) == {"comment": "keepalive"}
    stream.close()


def test_a_spectator_stream_and_a_league_stream(served: Any, clock: Any) -> None:
    game_id, _, watch = two_people(served)
    stream = Stream(f"{served.config['STREAMS']}/w/{watch}")
    assert stream.event()["data"]["version"] == game_row(served, game_id).version
    a_move(served, game_id)
    assert stream.event()["data"]["ply"] == 1
    stream.close()

    ids = add_players(served, 4, domain="league.example.org")
    league_id = make_league(served, ids)
    league = Stream(f"{served.config['STREAMS']}/leagues/{league_key(served, league_id)}")
    first = league.event()["data"]
    assert first["status"] == "running" and first["ply"] == 3  # a round robin: all rounds
    play_people(served, league_id)  # its games, to their end or a computer's turn
    later = league.event()["data"]
    assert later["version"] > first["version"]
    league.close()


def test_a_wrong_link_is_404_in_the_pages_rate_limit_then_429(served: Any) -> None:
    game_id, seat, watch = two_people(served)
    base = served.config["STREAMS"]
    for wrong in (f"/p/{seat}x", f"/w/{watch}x", "/leagues/nosuchleague", f"/p/{watch}"):
        assert Stream(base + wrong).status == 404
    # A revoked link (the seat's key rotated) is refused as the page refuses it.
    with write_session(served.extensions["pbem"]["engine"]) as session:
        row = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == 0)).one()
        row.link_key = new_key()
        session.add(row)
    assert Stream(f"{base}/p/{seat}").status == 404
    # The pages and the streams count wrong links from one address together.
    client = served.test_client()
    for _ in range(BAD_LINKS.count - 5):
        assert client.get(f"/p/{seat}").status_code == 404
    assert Stream(f"{base}/p/{seat}").status == 429
    assert client.get(f"/w/{watch}x").status_code == 429


def test_an_open_seat_stream_marks_the_seat_looking(served: Any, clock: Any) -> None:
    game_id, seat, watch = two_people(served)
    spectator = Stream(f"{served.config['STREAMS']}/w/{watch}")
    spectator.event()
    assert seat_seen(served, game_id) is None  # a spectator is nobody's seat
    stream = Stream(f"{served.config['STREAMS']}/p/{seat}")
    stream.event()
    assert seat_seen(served, game_id) == clock()  # the player is looking from now on
    # Every SEEN_EVERY the process marks the seats it has streams open for, in one go.
    clock.advance(seconds=presence.SEEN_EVERY.total_seconds())
    presence.mark_seen_many(served.extensions["pbem"]["engine"], [(game_id, 0)], clock())
    assert seat_seen(served, game_id) == clock()
    stream.close()
    spectator.close()


def seat_seen(app: Any, game_id: int) -> Any:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        row = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == 0)).one()
        return row.seen_at


def test_a_stopping_process_ends_its_streams(
    database_url: str, clock: Any, smtpd: Any, tmp_path: Any
) -> None:
    app = make_test_app(database_url, clock, smtpd, tmp_path)
    streams = InThread(app, "127.0.0.1", free_port()).start()
    _, seat, _ = two_people(app)
    stream = Stream(f"http://127.0.0.1:{streams.server.config.port}/live/p/{seat}")
    stream.event()
    streams.stop()  # the browser opens it again, at another process or this one restarted
    assert stream.ended(wait=5)
    app.extensions["pbem"]["engine"].dispose()
