"""Database settings (pbem.config.database_settings, pbem.storage.db.make_engine): the pool,
a statement time limit, and play through PgBouncer in transaction mode."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError
from sqlmodel import func, select

from pbem import create_app
from pbem.clock.scheduler import drain_outbox
from pbem.config import ConfigError
from pbem.models import Game, Move
from pbem.play import Invitee, create_game, join
from pbem.storage.db import read_session, write_session
from pbem.storage.store import seats_of
from tests.app import make_test_app
from tests.live.server import turn_form
from tests.settings import PG_URL, app_settings
from tests.storage.bouncer import POSTGRES_ONLY, pgbouncer

MOVES = 48
PLAYERS = 8  # games played at once, each by its own thread


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"DATABASE_POOLER": "session"}, "PBEM_DATABASE_POOLER"),
        ({"DATABASE_POOL_SIZE": 0}, "PBEM_DATABASE_POOL_SIZE"),
        ({"DATABASE_MAX_OVERFLOW": -1}, "PBEM_DATABASE_MAX_OVERFLOW"),
        ({"DATABASE_STATEMENT_TIMEOUT": -5}, "PBEM_DATABASE_STATEMENT_TIMEOUT"),
        (
            {"DATABASE_POOLER": "transaction", "DATABASE_STATEMENT_TIMEOUT": 5000},
            "ALTER ROLE",
        ),
    ],
)
def test_bad_database_settings_stop_the_start(
    settings: dict[str, Any], named: str, tmp_path: Any
) -> None:
    """An operator's mistake is told at start, naming the setting, not at the first query."""
    url = f"sqlite:///{tmp_path / 'never.sqlite3'}"
    with pytest.raises(ConfigError, match=named):
        create_app(app_settings(url, tmp_path, **settings))


def test_a_setting_that_is_no_number_stops_the_start(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PBEM_DATABASE_POOL_SIZE", "five")
    with pytest.raises(ConfigError, match="PBEM_DATABASE_POOL_SIZE must be a whole number"):
        create_app(app_settings(f"sqlite:///{tmp_path / 'never.sqlite3'}", tmp_path))


def test_pool_settings_reach_the_engine(
    database_url: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PBEM_DATABASE_* variables size the pool: pool size + overflow connections at most."""
    if not PG_URL:
        pytest.skip(POSTGRES_ONLY)
    monkeypatch.setenv("PBEM_DATABASE_POOL_SIZE", "2")
    monkeypatch.setenv("PBEM_DATABASE_MAX_OVERFLOW", "1")
    monkeypatch.setenv("PBEM_DATABASE_POOLER", "transaction")
    engine = create_app(app_settings(database_url, tmp_path)).extensions["pbem"]["engine"]
    try:
        assert engine.pool.size() == 2
        assert engine.pool._max_overflow == 1  # no public reader for it
        connections = [engine.connect() for _ in range(3)]
        assert engine.pool.checkedout() == 3
        # No server-side prepared statements on the pooler's shared server connections.
        assert all(c.connection.dbapi_connection.prepare_threshold is None for c in connections)
        for connection in connections:
            connection.close()
    finally:
        engine.dispose()


def test_statement_timeout_stops_a_slow_statement(database_url: str, tmp_path: Any) -> None:
    """A statement past PBEM_DATABASE_STATEMENT_TIMEOUT fails instead of holding a
    connection (and the page waiting on it) for as long as it runs."""
    if not PG_URL:
        pytest.skip(POSTGRES_ONLY)
    settings = app_settings(database_url, tmp_path, DATABASE_STATEMENT_TIMEOUT=200)
    engine = create_app(settings).extensions["pbem"]["engine"]
    try:
        with engine.connect() as connection:
            assert connection.execute(text("SELECT 1")).scalar() == 1
        with engine.connect() as connection, pytest.raises(OperationalError) as stopped:
            connection.execute(text("SELECT pg_sleep(30)"))
        assert "statement timeout" in str(stopped.value)
        with engine.connect() as connection:  # the pool goes on serving
            assert connection.execute(text("SELECT 2")).scalar() == 2
    finally:
        engine.dispose()


@pytest.fixture
def bouncer_url(database_url: str) -> Iterator[str]:
    """The test database through a throwaway PgBouncer in transaction mode."""
    with pgbouncer() as url:
        yield url


def open_game(app: Any, n: int) -> tuple[int, list[str]]:
    """A started two-player game: its id and its seat paths in seat order."""
    ext = app.extensions["pbem"]
    now = app.config["CLOCK"]()
    with write_session(ext["engine"]) as session:
        people = [Invitee(f"A{n}", f"a{n}@example.org"), Invitee(f"B{n}", f"b{n}@example.org")]
        game = create_game(session, ext["site"], "colour-bazaar", people, {}, now)
        join(session, ext["site"], game.id, 1, now)
        paths = [ext["site"].seat_url(s).split("pbem.test")[1] for s in seats_of(session, game)]
        return game.id, paths


def play_out(client: Any, app: Any, game_id: int, seats: list[str], most: int) -> list[int]:
    """Play a game's turns through `client` until it ends or `most` moves; the answers."""
    codes: list[int] = []
    while len(codes) < most:
        with read_session(app.extensions["pbem"]["engine"]) as session:
            game = session.get(Game, game_id)
            if game is None or game.status != "active":
                return codes
            turn = game.state["turn"]
        page = client.get(seats[turn])
        if page.status_code != 200:
            return [*codes, page.status_code]
        form = turn_form(page.get_data(as_text=True))
        codes.append(client.post(f"{seats[turn]}/move", data=form).status_code)
        drain_outbox(app)  # the host's clock sends the mail the move made
    return codes


def test_moves_through_pgbouncer_in_transaction_mode(
    bouncer_url: str, clock: Any, smtpd: Any, tmp_path: Any
) -> None:
    """Two hosts, each its own engine, open games and play at once through one PgBouncer in
    transaction mode with PBEM_DATABASE_POOLER=transaction: every move applies. (Without
    it, psycopg prepares statements on the server connection a transaction had, which the
    next transaction of another host gets: most of the 8 players failed here, with
    DuplicatePreparedStatement.)"""
    hosts = [
        make_test_app(
            bouncer_url, clock, smtpd, tmp_path / f"host{n}", DATABASE_POOLER="transaction"
        )
        for n in (1, 2)
    ]
    answers: list[list[int]] = [[] for _ in range(PLAYERS)]
    errors: list[str] = []

    def player(n: int) -> None:
        host = hosts[n % 2]  # a proxy spreads the players over both hosts
        try:
            # Opening a game repeats its inserts enough for psycopg to prepare them.
            game_id, seats = open_game(host, n)
            answers[n] = play_out(host.test_client(), host, game_id, seats, MOVES // PLAYERS)
        except Exception as exc:  # noqa: BLE001  (told below, with the others)
            errors.append(type(exc).__name__ + ": " + str(exc).splitlines()[0])

    threads = [threading.Thread(target=player, args=(n,)) for n in range(PLAYERS)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert answers == [[303] * (MOVES // PLAYERS)] * PLAYERS
        with read_session(hosts[1].extensions["pbem"]["engine"]) as session:
            assert session.exec(select(func.count()).select_from(Move)).one() == MOVES
    finally:
        for host in hosts:
            host.extensions["pbem"]["engine"].dispose()
