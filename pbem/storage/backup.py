"""Backups: a consistent copy of the database while pbem runs, and its restore into an empty
database. SQLite through its online backup API; PostgreSQL through pg_dump's custom format
and pg_restore, the server's own client programs (installed apart from pbem)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import URL, Engine
from sqlalchemy.exc import SQLAlchemyError

from pbem.storage.db import head_revision, standing

SQLITE_MAGIC = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file
PGDUMP_MAGIC = b"PGDMP"  # the first 5 bytes of a pg_dump archive in custom format
KINDS = {"sqlite": "an SQLite database", "postgresql": "a PostgreSQL dump (pg_dump, custom)"}
_NAMES = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}
# Pages of SQLite's backup per step (4 MiB at the default page size). Every step runs in one
# read transaction: a write between two steps would otherwise restart the copy from page 1.
STEP_PAGES = 1024
_SQLITE_TABLES = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
_PG_TABLES = (
    "SELECT tablename FROM pg_catalog.pg_tables"
    " WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"
)

Rows = Callable[[str], list[Any]]


class BackupError(Exception):
    """A backup or restore refused or failed; the message says why and what to do."""


@dataclass(frozen=True)
class Contents:
    """What a database holds, in a few figures."""

    tables: list[str]
    revision: str | None  # Alembic's, from alembic_version; None: not a pbem database
    games: int


@dataclass(frozen=True)
class Done:
    """A backup written or restored: its file, size, what it holds and how long it took."""

    path: Path
    size: int
    contents: Contents
    seconds: float

    def describe(self) -> str:
        """One line for the operator."""
        return (
            f"{self.path}: {_size(self.size)}, {len(self.contents.tables)} tables,"
            f" migration revision {self.contents.revision or 'none'},"
            f" {self.contents.games} game{'' if self.contents.games == 1 else 's'}"
            f" ({self.seconds:.1f} s)"
        )


def backup(engine: Engine, target: Path, force: bool = False) -> Done:
    """Write a consistent copy of the database of `engine` to `target` while others write;
    an existing `target` is replaced only with `force`."""
    kind = database_kind(engine)
    started = time.monotonic()
    try:
        with _written(target, force) as partial:
            if kind == "sqlite":
                contents = _sqlite_backup(_sqlite_path(engine), partial)
            else:
                contents = _pg_backup(engine, partial)
            size = partial.stat().st_size
    except (OSError, sqlite3.Error, SQLAlchemyError) as exc:
        raise BackupError(f"The backup failed: {_reason(exc)}") from None
    return Done(target, size, contents, time.monotonic() - started)


def restore(engine: Engine, source: Path) -> Done:
    """Copy the backup `source` into the database of `engine`, which must have no tables."""
    kind = database_kind(engine)
    try:
        found = file_kind(source)
    except OSError as exc:
        raise BackupError(f"{source} cannot be read: {exc.strerror}.") from None
    if found is None:
        raise BackupError(
            f"{source} is neither an SQLite database nor a pg_dump archive in custom format:"
            " not a pbem backup."
        )
    if found != kind:
        raise BackupError(
            f"{source} is {KINDS[found]}, but PBEM_DATABASE_URL names a {_NAMES[kind]}"
            f" database: restore it into {_NAMES[found]}."
        )
    started = time.monotonic()
    try:
        if kind == "sqlite":
            contents = _sqlite_restore(_sqlite_path(engine), source)
        else:
            contents = _pg_restore(engine, source)
    except (OSError, sqlite3.Error, SQLAlchemyError) as exc:
        raise BackupError(f"The restore failed: {_reason(exc)}") from None
    return Done(source, source.stat().st_size, contents, time.monotonic() - started)


def database_kind(engine: Engine) -> str:
    """sqlite or postgresql: the databases pbem backs up."""
    name = engine.dialect.name
    if name not in _NAMES:
        raise BackupError(f"pbem backs up SQLite and PostgreSQL databases, not {name}.")
    return name


def file_kind(path: Path) -> str | None:
    """What the file at `path` holds by its first bytes: sqlite, postgresql or None."""
    with open(path, "rb") as file:
        head = file.read(len(SQLITE_MAGIC))
    if head == SQLITE_MAGIC:
        return "sqlite"
    if head.startswith(PGDUMP_MAGIC):
        return "postgresql"
    return None


def migration_advice(revision: str | None) -> str:
    """What to do with a restored database at `revision` before serving it with this code."""
    head, where = head_revision(), standing(revision)
    if where == "none":
        return "It has no migration revision: it is not a pbem database, or was never migrated."
    if where == "current":
        return f"Its migration revision is this pbem's ({head}): the server can start."
    if where == "ahead":
        return (
            f"Its migration revision, {revision}, is unknown to this pbem (whose latest is"
            f" {head}): it was made by a newer pbem. Install that version before starting."
        )
    return (
        f"Its migration revision, {revision}, is older than this pbem's ({head}):"
        " run `pbem migrate` before starting the server."
    )


def _contents(rows: Rows, tables_query: str) -> Contents:
    """The figures of a database read through `rows` (its tables listed by `tables_query`)."""
    tables = sorted(name for (name,) in rows(tables_query))
    revision = None
    if "alembic_version" in tables:
        found = rows("SELECT version_num FROM alembic_version")
        revision = found[0][0] if found else None
    games = rows("SELECT count(*) FROM game")[0][0] if "game" in tables else 0
    return Contents(tables, revision, games)


def _refuse_tables(rows: Rows, tables_query: str) -> None:
    """Refuse a target database that has tables: a restore never overwrites anything."""
    tables = sorted(name for (name,) in rows(tables_query))
    if tables:
        named = ", ".join(tables[:4]) + (", ..." if len(tables) > 4 else "")
        raise BackupError(
            f"The database of PBEM_DATABASE_URL already has {len(tables)} tables ({named}):"
            " pbem restore writes only into an empty database, so that nothing is overwritten."
            " Create a new database (with SQLite, name a new file) and restore into it."
        )


# SQLite


def _sqlite_path(engine: Engine) -> Path:
    """The file of an SQLite engine."""
    name = engine.url.database or ""
    if name in ("", ":memory:") or name.startswith("file:"):
        raise BackupError("PBEM_DATABASE_URL names no SQLite file (sqlite:///path/to/file).")
    return Path(name)


def _sqlite_backup(path: Path, into: Path) -> Contents:
    """Copy the SQLite database at `path` into the file `into` with the online backup API."""
    if not path.is_file():
        raise BackupError(f"No SQLite database at {path} (PBEM_DATABASE_URL).")
    source = sqlite3.connect(path, isolation_level=None, timeout=30)
    try:
        source.execute("PRAGMA query_only = ON")
        # One read transaction for every step: each sees the same snapshot, so the copy is
        # that of one moment. In WAL mode (pbem's engine puts every database in it) a reader
        # holds up no writer; only the checkpoint waits, and the WAL grows meanwhile.
        source.execute("BEGIN")
        source.execute("SELECT count(*) FROM sqlite_master").fetchone()
        copy = sqlite3.connect(into, isolation_level=None)
        try:
            source.backup(copy, pages=STEP_PAGES)
            source.execute("ROLLBACK")
            # The copy stands alone, one file with no -wal or -shm beside it.
            copy.execute("PRAGMA journal_mode = DELETE")
            return _contents(lambda sql: copy.execute(sql).fetchall(), _SQLITE_TABLES)
        finally:
            copy.close()
    finally:
        source.close()


def _sqlite_restore(path: Path, source: Path) -> Contents:
    """Copy the SQLite backup `source` into the empty (or absent) database at `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    target = sqlite3.connect(path, isolation_level=None, timeout=30)
    try:
        _refuse_tables(lambda sql: target.execute(sql).fetchall(), _SQLITE_TABLES)
        # A database in WAL mode takes a copy only of its own page size: an empty one can
        # leave WAL for the copy, and go back to it after.
        target.execute("PRAGMA journal_mode = DELETE")
        backup_file = sqlite3.connect(source, isolation_level=None)
        try:
            backup_file.execute("PRAGMA query_only = ON")
            backup_file.backup(target)  # one step: nobody else uses the new database yet
        finally:
            backup_file.close()
        target.execute("PRAGMA journal_mode = WAL")
        return _contents(lambda sql: target.execute(sql).fetchall(), _SQLITE_TABLES)
    finally:
        target.close()


# PostgreSQL


def libpq_connection(url: URL) -> tuple[str, dict[str, str]]:
    """The libpq connection string (keyword = value, without the password) of a SQLAlchemy
    URL, and the environment that carries its password (PGPASSWORD) to pg_dump or
    pg_restore: a password on a command line is visible to every user of the machine."""
    parts = {"host": url.host, "port": url.port, "user": url.username, "dbname": url.database}
    params = {key: str(value) for key, value in parts.items() if value not in (None, "")}
    # The query's parameters are psycopg's, which are libpq's (host=/run/postgresql, sslmode);
    # a repeated one (several hosts) is a list, which libpq writes with commas.
    for key, listed in url.query.items():
        params[key] = ",".join(listed) if isinstance(listed, tuple) else listed
    password = params.pop("password", None) or url.password
    conninfo = " ".join(f"{key}={_quoted(value)}" for key, value in params.items())
    return conninfo, ({"PGPASSWORD": str(password)} if password else {})


def _quoted(value: str) -> str:
    """A libpq connection string value: in single quotes, with \\ and ' escaped."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _pg_backup(engine: Engine, into: Path) -> Contents:
    """pg_dump the database of `engine` into `into`, and its figures from the same snapshot."""
    program = _client("pg_dump", engine)
    conninfo, env = libpq_connection(engine.url)
    with engine.connect() as connection:
        repeatable = connection.execution_options(isolation_level="REPEATABLE READ")
        with repeatable.begin():
            # pg_dump imports this transaction's snapshot: the figures are those of the dump.
            # The transaction waits idle while pg_dump runs: no idle limit may end it.
            repeatable.exec_driver_sql("SET LOCAL idle_in_transaction_session_timeout = 0")
            snapshot = repeatable.exec_driver_sql("SELECT pg_export_snapshot()").scalar_one()
            contents = _contents(lambda sql: list(repeatable.exec_driver_sql(sql)), _PG_TABLES)
            _run(
                [
                    program,
                    "--format=custom",
                    "--no-password",  # never a prompt: a timer's backup fails and says why
                    f"--snapshot={snapshot}",
                    f"--file={into}",
                    f"--dbname={conninfo}",
                ],
                env,
            )
    return contents


def _pg_restore(engine: Engine, source: Path) -> Contents:
    """pg_restore the archive `source` into the empty database of `engine`."""
    program = _client("pg_restore", engine)
    with engine.connect() as connection:
        _refuse_tables(lambda sql: list(connection.exec_driver_sql(sql)), _PG_TABLES)
    conninfo, env = libpq_connection(engine.url)
    _run(
        [
            program,
            "--no-owner",  # the tables belong to the user restoring, whoever made the dump
            "--single-transaction",  # all or nothing: a failed restore leaves no tables
            "--exit-on-error",
            "--no-password",
            f"--dbname={conninfo}",
            str(source.absolute()),  # never read as an option, whatever its name
        ],
        env,
    )
    with engine.connect() as connection:
        return _contents(lambda sql: list(connection.exec_driver_sql(sql)), _PG_TABLES)


def _client(program: str, engine: Engine) -> str:
    """The path of PostgreSQL's client `program`, or a BackupError saying what to install."""
    found = shutil.which(program)
    if found:
        return found
    version = "the same major version as the server or newer"
    try:
        with engine.connect() as connection:
            number = int(connection.exec_driver_sql("SHOW server_version_num").scalar_one())
        version = f"version {number // 10000} (the server's) or newer"
    except (SQLAlchemyError, ValueError):
        pass
    raise BackupError(
        f"{program} is not on PATH: install PostgreSQL's client programs, {version}"
        " (on Debian: apt-get install postgresql-client; for another major version,"
        " postgresql-client-NN from apt.postgresql.org)."
    )


def _run(command: list[str], env: dict[str, str]) -> None:
    """Run a PostgreSQL client; a BackupError with its own error when it fails."""
    name = Path(command[0]).name
    done = subprocess.run(command, env={**os.environ, **env}, capture_output=True, text=True)
    if done.returncode != 0:
        said = done.stderr.strip() or done.stdout.strip() or "no message"
        raise BackupError(f"{name} failed (exit status {done.returncode}):\n{said}")


# The file


@contextmanager
def _written(target: Path, force: bool) -> Iterator[Path]:
    """A new file beside `target`, named `target` only if the block ends without error (a
    half backup never looks whole); its owner's alone, as it holds every address and key."""
    target = target.absolute()
    if target.is_dir():
        raise BackupError(f"{target} is a folder: name the backup file.")
    if target.exists() and not force:
        raise BackupError(f"{target} exists: name another file, or add --force to replace it.")
    if not target.parent.is_dir():
        raise BackupError(f"There is no folder {target.parent}.")
    handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
    os.close(handle)
    partial = Path(name)
    try:
        yield partial
        _durable(partial)
        _place(partial, target, force)
        _durable(target.parent)
    finally:
        partial.unlink(missing_ok=True)


def _place(partial: Path, target: Path, force: bool) -> None:
    """Give `partial` the name `target`; without `force`, never over a file made meanwhile."""
    if not force:
        try:
            os.link(partial, target)  # fails, whole, if `target` exists
            return
        except FileExistsError:
            raise BackupError(f"{target} appeared during the backup: it was left alone.") from None
        except OSError:
            pass  # a file system without hard links (FAT): renamed, after the first look
    os.replace(partial, target)


def _durable(path: Path) -> None:
    """Flush a file, or a folder's entries, to the disk."""
    handle = os.open(path, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def _reason(exc: Exception) -> str:
    """An error's own message: the driver's, not SQLAlchemy's wrapping of the statement."""
    return str(getattr(exc, "orig", None) or exc).strip()


def _size(count: int) -> str:
    """A size in bytes, as people read it (kB, MB and GB of 1000)."""
    if count < 1000:
        return f"{count} bytes"
    amount = float(count)
    for unit in ("kB", "MB", "GB"):
        amount /= 1000
        if amount < 1000 or unit == "GB":
            break
    return f"{amount:.1f} {unit}"
