"""The database engine, sessions for reading and writing, and the migration entry point."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import orjson
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Connection, Engine, create_engine, event
from sqlmodel import Session

from pbem.config import DatabaseSettings
from pbem.resources import folder
from pbem.storage.rawsql import DriverConnection, Statement, run

MIGRATIONS = folder("migrations")
# What orjson would write otherwise than json.dumps, or take where json.dumps refuses (a
# datetime left in a JSON column is an error, not a string): handed to json.dumps.
_STRICT = (
    orjson.OPT_NON_STR_KEYS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)


def dumps(value: Any) -> str:
    """A JSON column's text: orjson's (a long game's state is written on every move, at a
    tenth of json.dumps's cost), json.dumps's for what orjson does not take as json.dumps
    would (integers past 64 bits, datetimes and the like: json.dumps refuses those)."""
    try:
        return orjson.dumps(value, option=_STRICT).decode()
    except TypeError:
        return json.dumps(value)


def make_engine(url: str, settings: DatabaseSettings | None = None) -> Engine:
    """An engine for `url`; SQLite gets WAL, a busy timeout and BEGIN IMMEDIATE for writes,
    PostgreSQL the pool, time limit and pooler of `settings` (pbem.config.database_settings;
    none: the defaults).

    JSON columns (game states, log lines) are read with orjson, and written with it (dumps):
    a page decodes the state and its log lines, and the standard decoder was a tenth of a
    long game's page; every move writes the state back. An error's text names no bound
    value (hide_parameters): states, link keys and addresses stay out of logs."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url,
            connect_args={"timeout": 30, "check_same_thread": False},
            json_serializer=dumps,
            json_deserializer=orjson.loads,
            hide_parameters=True,
        )
        _sqlite_transactions(engine)
        return engine
    settings = settings or DatabaseSettings()
    return create_engine(
        url,
        connect_args=_postgres_connect_args(settings),
        pool_pre_ping=True,
        pool_size=settings.pool_size,
        max_overflow=settings.max_overflow,
        json_serializer=dumps,
        json_deserializer=orjson.loads,
        hide_parameters=True,
    )


def _postgres_connect_args(settings: DatabaseSettings) -> dict[str, Any]:
    """psycopg's connect() arguments for `settings`."""
    args: dict[str, Any] = {}
    if settings.pooler == "transaction":
        # psycopg prepares a statement on the server after 5 uses; a transaction pooler
        # hands the next transaction another server connection, where the name is unknown
        # or already taken (DuplicatePreparedStatement). None: never prepare.
        args["prepare_threshold"] = None
    if settings.statement_timeout_ms:
        # A startup option, not a SET after connecting: nothing to run per connection, and
        # the limit holds from the first statement (config refuses it with a pooler).
        args["options"] = f"-c statement_timeout={settings.statement_timeout_ms}"
    return args


def _sqlite_transactions(engine: Engine) -> None:
    """Let SQLAlchemy, not pysqlite, begin transactions, so writes can take the lock first."""

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        # A read-then-write under a plain BEGIN can fail with "database is locked";
        # writers take the write lock at BEGIN IMMEDIATE and wait for it instead.
        # On the driver's cursor (pbem.storage.rawsql): every request begins one or two.
        options = conn.get_execution_options()
        if options.get("pbem_write"):
            run(conn, _BEGIN_IMMEDIATE, ())
        elif not options.get("pbem_joined"):  # begun by write_transaction, joined here
            run(conn, _BEGIN, ())


_WRITE = {"pbem_write": True}
_BEGIN = Statement("BEGIN", (), True, (), {})
_BEGIN_IMMEDIATE = Statement("BEGIN IMMEDIATE", (), True, (), {})


def is_sqlite(engine: Engine) -> bool:
    """Whether the engine talks to SQLite."""
    return engine.dialect.name == "sqlite"


@contextmanager
def write_session(engine: Engine) -> Iterator[Session]:
    """A session whose transaction takes the write lock at once and commits on success."""
    with Session(engine, expire_on_commit=False, close_resets_only=False) as session:
        with session.begin():
            if is_sqlite(engine):
                # The connection's own option, read as its transaction begins (_begin): an
                # engine with the option made for each write cost as much as the BEGIN.
                session.connection(execution_options=_WRITE)
            yield session


@contextmanager
def write_transaction(engine: Engine) -> Iterator[DriverConnection]:
    """A transaction on a pooled driver connection, with no ORM session and no SQLAlchemy
    Connection, for compiled statements (pbem.storage.rawsql): a player's move (pbem.moves),
    the sender's claims and marks (pbem.mailout.claims). It takes the write lock at once,
    commits when the block ends and rolls back on an error.

    A Connection's begin, commit and close cost twice the driver's (the sender runs three
    such transactions a mail); what needs SQLAlchemy's execution or the ORM gets a
    Connection over the same driver connection (DriverConnection.sqlalchemy). SQLite takes
    the write lock at BEGIN IMMEDIATE, as write_session does (pysqlite leaves transactions
    to us: _sqlite_transactions); PostgreSQL's driver opens the transaction at the first
    statement."""
    connection = DriverConnection(engine, engine.raw_connection())
    try:
        if is_sqlite(engine):
            run(connection, _BEGIN_IMMEDIATE, ())
        yield connection
        connection.commit()
    except BaseException:
        connection.rollback()
        raise
    finally:
        connection.close()


@contextmanager
def read_connection(engine: Engine) -> Iterator[Connection]:
    """A connection for reading only, with no ORM session: its reads in one transaction
    (one snapshot), rolled back when the block ends."""
    with engine.connect() as connection:
        connection.begin()
        yield connection


@contextmanager
def read_session(engine: Engine) -> Iterator[Session]:
    """A session for reading only.

    Closed for good when the block ends: a query after it raises at once, where a reused
    session would open a transaction that nothing closes (it held PostgreSQL's TRUNCATE)."""
    with Session(engine, expire_on_commit=False, close_resets_only=False) as session:
        yield session


@cache
def _migrations() -> ScriptDirectory:
    return ScriptDirectory(str(MIGRATIONS))


def head_revision() -> str:
    """The newest migration this pbem carries (what `migrate` brings a database to)."""
    return str(_migrations().get_current_head())


def standing(revision: str | None) -> str:
    """Where a database at `revision` stands against this code: "current"; "behind" (run
    `pbem migrate`); "ahead" (a newer pbem migrated it: this one does not know the revision);
    "none" (never migrated)."""
    if revision is None:
        return "none"
    if revision == head_revision():
        return "current"
    try:
        _migrations().get_revision(revision)
    except CommandError:
        return "ahead"
    return "behind"


def migrate(url: str, revision: str = "head", thread_domain: str = "") -> None:
    """Bring the database at `url` up to `revision` with Alembic; `thread_domain` is the
    app's (pbem.config.thread_domain), for games that get their thread in a migration (none
    given: the one the PBEM_* environment sets)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if thread_domain:
        cfg.attributes["thread_domain"] = thread_domain
    command.upgrade(cfg, revision)
