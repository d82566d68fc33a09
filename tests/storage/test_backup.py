"""`pbem backup` and `pbem restore` (pbem.storage.backup): a copy of a live instance, taken
while moves are made, restores into an empty database where every game replays; what they
refuse, and what they say when PostgreSQL's client programs are missing or fail."""

from __future__ import annotations

import os
import random
import re
import secrets
import shutil
import sqlite3
import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from pbem.console import main
from pbem.games import GAMES
from pbem.models import Game
from pbem.moves import submit_move
from pbem.play import Invitee, create_game, join
from pbem.storage.backup import libpq_connection, migration_advice
from pbem.storage.db import head_revision, migrate, read_session, write_session
from tests.settings import PG_URL, SECRET_KEY

POSTGRES_ONLY = "PostgreSQL only (PBEM_TEST_DATABASE_URL): pg_dump and pg_restore"
# Games of both kinds, each left short of its end (Colour Bazaar ends at ply 30, Fantasy
# Business for four near 100), so the backup is taken mid-game.
HEAD = head_revision()
TABLES = [("colour-bazaar", 2, 24), ("colour-bazaar", 3, 24), ("fantasy-business", 4, 80)]
TABLES += [("fantasy-business", 3, 50)]
PREMADE = 4  # moves made in each game before the writer starts


def pbem(url: str, *args: str, **env: str) -> Result:
    """Run a pbem command as an operator would, its settings in PBEM_* variables."""
    settings = {"PBEM_SECRET_KEY": SECRET_KEY, "PBEM_DATABASE_URL": url}
    settings["PBEM_MAIL_BACKEND"] = "smtp"  # nothing is sent; no warning about the file one
    return CliRunner().invoke(main, list(args), env=settings | env)


def refused(result: Result) -> str:
    """The message of a command that refused: exit status 1, a message, no traceback."""
    assert result.exit_code == 1, result.output
    assert type(result.exception) is SystemExit, result.exception  # not an uncaught error
    assert "Error: " in result.output
    return result.output


@pytest.fixture
def new_database(database_url: str, tmp_path: Path) -> Iterator[Callable[[], str]]:
    """Makes new, empty databases of the test database's kind: SQLite files not yet made,
    or PostgreSQL databases on the test server (dropped after the test)."""
    made: list[str] = []
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT") if PG_URL else None

    def make() -> str:
        name = f"pbem_restore_{secrets.token_hex(4)}"
        if admin is None:
            return f"sqlite:///{tmp_path / name}.sqlite3"
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
        made.append(name)
        return make_url(PG_URL).set(database=name).render_as_string(hide_password=False)

    yield make
    if admin is not None:
        with admin.connect() as connection:
            for name in made:
                connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


def start_tables(app: Any) -> dict[int, int]:
    """The games of TABLES, every seat joined, a few moves made in each: their ply caps."""
    ext = app.extensions["pbem"]
    now = app.config["CLOCK"]()
    caps = {}
    for number, (slug, players, cap) in enumerate(TABLES):
        people = [Invitee(f"P{number}-{i}", f"p{number}-{i}@example.org") for i in range(players)]
        with write_session(ext["engine"]) as session:
            game = create_game(session, ext["site"], slug, people, {}, now, seed=40 + number)
            game_id = int(game.id or 0)
            for seat in range(1, players):
                join(session, ext["site"], game_id, seat, now)
        caps[game_id] = cap
    rng = random.Random(5)
    for game_id in caps:
        for _ in range(PREMADE):
            move_once(app, game_id, caps[game_id], rng)
    return caps


def move_once(app: Any, game_id: int, cap: int, rng: random.Random) -> int | None:
    """One move in the game, by the first seat to act, through the one path every move
    takes (moves.submit_move), as a player's API call would: the ply moved, or None."""
    ext = app.extensions["pbem"]
    with read_session(ext["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None
    rules = GAMES[game.slug]
    if game.status != "active" or game.ply >= cap or not rules.to_act(game.state):
        return None
    seat = rules.to_act(game.state)[0]
    move = rng.choice(rules.legal_moves(game.state, seat))
    token = rules.turn_token(game.state, seat)
    with write_session(ext["engine"]) as session:
        submit_move(session, ext["site"], game_id, seat, move, token, app.config["CLOCK"](), "api")
    return game.ply


class Writer(threading.Thread):
    """Makes moves in turn in every game until stopped (or every game is at its cap); keeps
    the (game, ply) of each move in the order they were committed."""

    def __init__(self, app: Any, caps: dict[int, int]) -> None:
        super().__init__(daemon=True)
        self.app, self.caps = app, caps
        self.committed: list[tuple[int, int]] = []
        self.stop = threading.Event()
        self.moved = threading.Condition()
        self.rng = random.Random(9)

    def run(self) -> None:
        while not self.stop.is_set():
            made = False
            for game_id, cap in self.caps.items():
                ply = move_once(self.app, game_id, cap, self.rng)
                if ply is not None:
                    made = True
                    with self.moved:
                        self.committed.append((game_id, ply))
                        self.moved.notify_all()
                self.stop.wait(0.005)  # a player's pace, not a loop's: the moves go on a while
            if not made:
                return

    def wait_for(self, count: int) -> int:
        """Wait until `count` moves were committed in all; how many there are."""
        with self.moved:
            self.moved.wait_for(lambda: len(self.committed) >= count or not self.is_alive(), 60)
            return len(self.committed)


def rows(url: str, query: str) -> list[tuple[Any, ...]]:
    """Every row of `query` on the database at `url`."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(text(query))]
    finally:
        engine.dispose()


MOVES = "SELECT game_id, ply, seat, move, source, created_at FROM move ORDER BY game_id, ply"
SEATS = (
    "SELECT game_id, seat, player_id, name, status, link_key, computer FROM seat"
    " ORDER BY game_id, seat"
)
GAME_ROWS = "SELECT id, slug, seed, watch_key, created_at FROM game ORDER BY id"


def test_a_live_instance_backed_up_mid_game_restores_and_replays(
    app: Any, database_url: str, new_database: Callable[[], str], tmp_path: Path
) -> None:
    caps = start_tables(app)
    writer = Writer(app, caps)
    writer.start()
    try:
        before = writer.wait_for(5)
        made = pbem(database_url, "backup", str(tmp_path / "live.backup"))
        after = writer.wait_for(len(writer.committed) + 1)  # still moving once it is done
    finally:
        writer.stop.set()
        writer.join()
    assert made.exit_code == 0, made.output
    assert "live.backup: " in made.output and f"migration revision {HEAD}" in made.output
    assert f", {len(TABLES)} games (" in made.output

    target = new_database()
    restored = pbem(target, "restore", str(tmp_path / "live.backup"))
    assert restored.exit_code == 0, restored.output
    assert f"Its migration revision is this pbem's ({HEAD})" in restored.output
    check = pbem(target, "check")
    assert check.exit_code == 0 and "All games replay exactly." in check.output

    # The copy is of one moment: the moves made before the writer started and those it had
    # committed by then, in the order it committed them, and none after; each as the
    # source has it; the games short of their end.
    copied = rows(target, MOVES)
    first = {(game_id, ply) for game_id in caps for ply in range(PREMADE)}
    taken = len(copied) - len(first)
    assert before <= taken <= after
    assert {(game_id, ply) for game_id, ply, *_ in copied} == first | set(writer.committed[:taken])
    source = {(row[0], row[1]): row for row in rows(database_url, MOVES)}
    assert all(source[row[0], row[1]] == row for row in copied)
    assert rows(target, SEATS) == rows(database_url, SEATS)
    assert rows(target, GAME_ROWS) == rows(database_url, GAME_ROWS)
    plies = dict(rows(target, "SELECT id, ply FROM game WHERE status = 'active'"))
    assert sorted(plies) == sorted(caps)
    assert all(plies[game_id] == sum(m[0] == game_id for m in copied) for game_id in plies)


def test_restore_refuses_a_database_that_has_tables(
    app: Any, database_url: str, tmp_path: Path
) -> None:
    start_tables(app)
    assert pbem(database_url, "backup", str(tmp_path / "mine.backup")).exit_code == 0
    moves = rows(database_url, MOVES)
    said = refused(pbem(database_url, "restore", str(tmp_path / "mine.backup")))
    # Named, the first few in order: alembic_version, block, ...
    assert re.search(r"already has \d+ tables \(alembic_version, (\w+, ){3}\.\.\.\)", said)
    assert "only into an empty database" in said
    assert rows(database_url, MOVES) == moves


def test_restore_refuses_a_file_of_the_other_kind(
    database_url: str, new_database: Callable[[], str], tmp_path: Path
) -> None:
    sqlite_file = tmp_path / "other.sqlite3"
    with sqlite3.connect(sqlite_file) as connection:
        connection.execute("CREATE TABLE game (id INTEGER PRIMARY KEY)")
    dump = tmp_path / "other.dump"
    dump.write_bytes(b"PGDMP\x01\x0f\x00\x04\x08\x01\x01" + bytes(100))
    notes = tmp_path / "notes.txt"
    notes.write_text("not a backup\n")
    target = new_database()
    other = dump if not PG_URL else sqlite_file
    said = refused(pbem(target, "restore", str(other)))
    if PG_URL:
        assert "other.sqlite3 is an SQLite database, but PBEM_DATABASE_URL names a" in said
        assert "PostgreSQL database: restore it into SQLite." in said
    else:
        assert "other.dump is a PostgreSQL dump (pg_dump, custom), but" in said
        assert "SQLite database: restore it into PostgreSQL." in said
    said = refused(pbem(target, "restore", str(notes)))
    assert "neither an SQLite database nor a pg_dump archive" in said
    if not PG_URL:
        assert not Path(make_url(target).database or "").exists()  # nothing made


def test_backup_leaves_an_existing_file_alone(
    app: Any, database_url: str, new_database: Callable[[], str], tmp_path: Path
) -> None:
    start_tables(app)
    folder = tmp_path / "backups"
    folder.mkdir()
    kept = folder / "nightly.backup"
    kept.write_bytes(b"yesterday's backup")
    said = refused(pbem(database_url, "backup", str(kept)))
    assert "nightly.backup exists: name another file, or add --force to replace it." in said
    assert kept.read_bytes() == b"yesterday's backup"
    assert os.listdir(folder) == ["nightly.backup"]  # and no partial file beside it

    made = pbem(database_url, "backup", "--force", str(kept))
    assert made.exit_code == 0, made.output
    assert os.listdir(folder) == ["nightly.backup"]
    # Readable by its owner only: it holds every address and key.
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    target = new_database()
    assert pbem(target, "restore", str(kept)).exit_code == 0
    assert rows(target, MOVES) == rows(database_url, MOVES)


def test_a_backup_at_an_older_revision_says_to_migrate(
    new_database: Callable[[], str], tmp_path: Path
) -> None:
    source = new_database()
    migrate(source, "0020")
    made = pbem(source, "backup", str(tmp_path / "old.backup"))
    assert made.exit_code == 0 and "migration revision 0020, 0 games" in made.output
    target = new_database()
    restored = pbem(target, "restore", str(tmp_path / "old.backup"))
    assert restored.exit_code == 0, restored.output
    assert f"older than this pbem's ({HEAD}): run `pbem migrate` before starting" in restored.output
    assert pbem(target, "migrate").exit_code == 0
    assert rows(target, "SELECT version_num FROM alembic_version") == [(HEAD,)]


def test_migration_advice_names_a_newer_pbem() -> None:
    assert "made by a newer pbem" in migration_advice("0999")
    assert "not a pbem database" in migration_advice(None)


def test_without_pg_dump_the_error_says_what_to_install(
    database_url: str, new_database: Callable[[], str], tmp_path: Path
) -> None:
    if not PG_URL:
        pytest.skip(POSTGRES_ONLY)
    said = refused(pbem(database_url, "backup", str(tmp_path / "b.dump"), PATH=str(tmp_path)))
    assert "pg_dump is not on PATH: install PostgreSQL's client programs, version" in said
    assert "(the server's) or newer (on Debian: apt-get install postgresql-client" in said
    assert os.listdir(tmp_path) == []
    assert pbem(database_url, "backup", str(tmp_path / "b.dump")).exit_code == 0
    said = refused(pbem(new_database(), "restore", str(tmp_path / "b.dump"), PATH=str(tmp_path)))
    assert "pg_restore is not on PATH" in said


def test_the_password_goes_by_the_environment_and_pg_dump_errors_are_shown(
    database_url: str, tmp_path: Path
) -> None:
    """The URL's password reaches pg_dump through PGPASSWORD, never its command line (which
    every user of the machine can read); a URL that puts the host in its query works; and
    when pg_dump fails its own words are shown."""
    if not PG_URL:
        pytest.skip(POSTGRES_ONLY)
    real = shutil.which("pg_dump")
    spy = tmp_path / "bin" / "pg_dump"
    spy.parent.mkdir()
    # A wrapper that notes what it was given, then runs the real pg_dump.
    spy.write_text(
        "#!/bin/sh\n"
        f'printf "%s\\n" "$@" > {tmp_path}/argv\n'
        f'printf "%s" "$PGPASSWORD" > {tmp_path}/password\n'
        f'exec {real} "$@"\n'
    )
    spy.chmod(0o755)
    server = make_url(PG_URL)
    url = (
        f"postgresql+psycopg://{server.username}:pa%20ss'word@/{server.database}"
        f"?host={server.host}&port={server.port}"
    )
    path = f"{spy.parent}:{os.environ['PATH']}"
    made = pbem(url, "backup", str(tmp_path / "b.dump"), PATH=path)
    assert made.exit_code == 0, made.output
    argv = (tmp_path / "argv").read_text()
    assert (tmp_path / "password").read_text() == "pa ss'word"
    assert "pa ss" not in argv and "'word" not in argv
    assert f"host='{server.host}' port='{server.port}'" in argv

    role = f"pbem_reader_{secrets.token_hex(3)}"
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            # A role that may read the figures pbem reads, and no other table.
            connection.exec_driver_sql(f"CREATE ROLE {role} LOGIN")
            connection.exec_driver_sql(f"GRANT SELECT ON alembic_version, game TO {role}")
        failed = refused(
            pbem(server.set(username=role).render_as_string(False), "backup", str(tmp_path / "c"))
        )
        assert "pg_dump failed (exit status 1):" in failed
        assert "permission denied for table" in failed
        assert not (tmp_path / "c").exists()
        assert sorted(os.listdir(tmp_path)) == ["argv", "b.dump", "bin", "password"]
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f"REVOKE ALL ON alembic_version, game FROM {role}")
            connection.exec_driver_sql(f"DROP ROLE {role}")
        admin.dispose()


def test_libpq_connection_quotes_values_and_keeps_the_password_apart() -> None:
    url = make_url("postgresql+psycopg://pbem:s%40cret@db.example.org:6432/pbem?sslmode=require")
    conninfo, env = libpq_connection(url)
    assert conninfo == (
        "host='db.example.org' port='6432' user='pbem' dbname='pbem' sslmode='require'"
    )
    assert env == {"PGPASSWORD": "s@cret"}
    socket = make_url("postgresql+psycopg:///pbem?host=/run/postgresql&host=/tmp")
    assert libpq_connection(socket) == ("dbname='pbem' host='/run/postgresql,/tmp'", {})
    odd = make_url("postgresql+psycopg://o'brien@/pbem?password=x\\y&application_name=a b")
    assert libpq_connection(odd) == (
        "user='o\\'brien' dbname='pbem' application_name='a b'",
        {"PGPASSWORD": "x\\y"},
    )
