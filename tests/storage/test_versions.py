"""A game's version (pbem.storage.versions): every write that changes what its pages show
raises it once, in its own transaction, and on PostgreSQL announces "<game>:<version>" to
every listener on commit, never for a write rolled back. A league's likewise: its members,
its rounds, its games' ends."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from sqlmodel import select

from pbem import moves, play
from pbem.games import GAMES
from pbem.leagues import setup
from pbem.live.watch import listen_url
from pbem.models import Game, League, Seat
from pbem.players import account, talk
from pbem.present.forms import TalkForm
from pbem.seats import leave
from pbem.storage.db import read_session, write_session
from pbem.storage.store import player_of
from pbem.storage.versions import LEAGUE_CHANNEL, TABLE_CHANNEL
from pbem.takeback import consent
from tests.leagues.helpers import add_players, make_league, play_out
from tests.takeback.helpers import PEOPLE, SEED, to_act

Listening = Any


@contextmanager
def listening(database_url: str) -> Iterator[Listening]:
    """On PostgreSQL, a connection LISTENing on both channels (as `pbem live` does), to read
    the notices with; None on SQLite, which has none."""
    if not database_url.startswith("postgresql"):
        yield None
        return
    with psycopg.connect(listen_url(database_url), autocommit=True) as connection:
        connection.execute(f"LISTEN {TABLE_CHANNEL}")
        connection.execute(f"LISTEN {LEAGUE_CHANNEL}")
        yield connection


def heard(connection: Listening) -> list[str]:
    """The notices received since the last look, "channel <id>:<version>"."""
    if connection is None:
        return []
    got = connection.notifies(timeout=0.5)
    return [f"{n.channel} {n.payload}" for n in got]


def version_of(app: Any, game_id: int) -> int:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None
        return game.version


def league_version(app: Any, league_id: int) -> int:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        league = session.get(League, league_id)
        assert league is not None
        return league.version


def write(app: Any, work: Any) -> None:
    """`work(session, site)` in a write transaction of its own, as a request runs it."""
    ext = app.extensions["pbem"]
    with write_session(ext["engine"]) as session:
        work(session, ext["site"])


def test_every_write_a_page_shows_raises_the_version_once_and_announces_it(
    app: Any, clock: Any, database_url: str
) -> None:
    pg = database_url.startswith("postgresql")
    with listening(database_url) as notices:
        game_id = 0

        def new_game(session: Any, site: Any) -> None:
            nonlocal game_id
            people = [*PEOPLE[:2]]
            game = play.create_game(session, site, "colour-bazaar", people, {}, clock(), seed=SEED)
            game_id = game.id or 0

        write(app, new_game)
        assert version_of(app, game_id) == 0  # nobody can be looking at it yet
        who: dict[str, int] = {}

        def a_move(session: Any, site: Any) -> None:
            who["mover"] = first_legal(session, site, game_id, clock())
            who["next"] = 1 - who["mover"]

        def ask(session: Any, site: Any) -> None:
            consent.ask(session, site, game_id, who["mover"], clock())

        def answer(allow: bool) -> Any:
            return lambda s, site: consent.answer(s, site, game_id, who["next"], allow, clock())

        def more_time(session: Any, site: Any) -> None:
            account.add_time(session, game_id, 0, to_act(app, game_id), 2)

        said = TalkForm.read({"to": "all", "text": "Hi"})
        steps: list[tuple[str, Any]] = [
            ("Léo joins: the game starts", lambda s, site: play.join(s, site, game_id, 1, clock())),
            ("talk", lambda s, site: talk.post(s, game_id, 1, said, clock())),
            ("a move", a_move),
            ("a take back asked", ask),
            ("refused", answer(False)),
            ("the next move", a_move),  # a refusal is final: the next mover asks
            ("asked again", ask),
            ("allowed", answer(True)),
            ("time added", more_time),
            ("a vacation", lambda s, site: vacation(s, site, game_id, clock())),
            ("Léo leaves", lambda s, site: leave.leave(s, site, game_id, 1, clock())),
            ("Ana is back", lambda s, site: account.come_back(s, game_id, 0, clock())),
        ]
        version = 0
        for what, work in steps:
            write(app, work)
            assert version_of(app, game_id) == version + 1, what
            version += 1
            if pg:
                assert heard(notices) == [f"{TABLE_CHANNEL} {game_id}:{version}"], what

        # A write rolled back raises nothing, and announces nothing.
        with pytest.raises(RuntimeError):
            with write_session(app.extensions["pbem"]["engine"]) as session:
                talk.post(session, game_id, 0, TalkForm.read({"to": "all", "text": "x"}), clock())
                raise RuntimeError("the request failed after its write")
        assert version_of(app, game_id) == version
        assert heard(notices) == []

        # The game played to its end (the computer plays Léo's seat): each move raises it.
        moved = 0
        while game_of(app, game_id).status == "active":
            write(app, lambda s, site: first_legal(s, site, game_id, clock()))
            moved += 1
        assert version_of(app, game_id) == version + moved
        if pg:
            told = heard(notices)
            assert told[-1] == f"{TABLE_CHANNEL} {game_id}:{version + moved}"
            assert len(told) == moved


def game_of(app: Any, game_id: int) -> Game:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None
        return game


def first_legal(session: Any, site: Any, game_id: int, now: Any) -> int:
    """The seat to act plays its first legal move, by the one move path (a mail's reply);
    the seat."""
    game = session.get(Game, game_id)
    rules = GAMES[game.slug]
    (seat,) = rules.to_act(game.state)
    move = rules.legal_moves(game.state, seat)[0]
    token = rules.turn_token(game.state, seat)
    session.expunge(game)
    moves.submit_move(session, site, game_id, seat, move, token, now, source="mail")
    return int(seat)


def vacation(session: Any, site: Any, game_id: int, now: Any) -> None:
    """The player to act takes three days off: their clocks, this game's among them, move."""
    game = session.get(Game, game_id)
    (seat_no,) = GAMES[game.slug].to_act(game.state)
    seat = session.get(Seat, seat_id(session, game_id, seat_no))
    account.start_vacation(session, site, player_of(session, seat), 3, now)


def seat_id(session: Any, game_id: int, seat_no: int) -> int:
    found = session.exec(select(Seat.id).where(Seat.game_id == game_id, Seat.seat == seat_no)).one()
    return int(found)


def test_a_leagues_version_moves_with_its_members_rounds_and_games(
    app: Any, clock: Any, database_url: str
) -> None:
    with listening(database_url) as notices:
        ids = add_players(app, 3)
        league_id = make_league(app, ids, start=False, format="swiss", rounds="2", most_players="8")
        joined = league_version(app, league_id)
        assert joined == 2  # two members joined
        told = heard(notices)
        if notices is not None:
            assert told == [f"{LEAGUE_CHANNEL} {league_id}:1", f"{LEAGUE_CHANNEL} {league_id}:2"]
        write(app, lambda s, site: setup.start_by(s, site, league_id, ids[0], clock()))
        started = league_version(app, league_id)
        assert started > joined  # its first round made
        assert f"{LEAGUE_CHANNEL} {league_id}:{started}" in heard(notices) or notices is None
        play_out(app, clock, league_id)  # the round's games end: each one raises it
        assert league_version(app, league_id) > started
