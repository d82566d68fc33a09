"""Statements compiled once per database and run on the driver's own cursor.

For the few writes a move makes under the write lock (play.write_move with a plan), and
the read of a seat link's game and table (pbem.storage.rows): SQLAlchemy's per-statement
steps (cache key, compiled-cache lookup, execution context, result set-up) cost more than
SQLite takes to run them. Here a Core statement is compiled once for the engine's dialect,
its parameters are turned into what the driver takes by the column types' own bind
processors (so a datetime or a JSON value is written exactly as SQLAlchemy writes it), and
it runs on the DBAPI cursor of the session's connection, inside the session's transaction,
or of a bare write transaction's (pbem.storage.db.write_transaction: DriverConnection).
What a SELECT returns goes through the column types' result processors, as SQLAlchemy
reads it (fetch; reader, for rows read from the cursor by hand).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Connection, Dialect, Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import PoolProxiedConnection
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler
from sqlmodel import Session

Steps = tuple[tuple[int, Callable[[Any], Any]], ...]
Convert = Callable[[Sequence[Any]], tuple[Any, ...]]


@dataclass(frozen=True)
class Statement:
    """A statement compiled for one dialect: its SQL and how to make its parameters."""

    sql: str
    names: tuple[str, ...]  # the bind names, in the order a positional driver takes them
    positional: bool
    processors: tuple[Callable[[Any], Any] | None, ...]
    fixed: dict[str, Any]  # binds with a value of their own (literals in the statement)
    # A SELECT's result processors, as (column index, processor) for the columns that have one.
    results: Steps = ()

    def parameters(self, values: dict[str, Any]) -> Sequence[Any] | dict[str, Any]:
        """The driver's parameters for `values` (by bind name)."""
        given = [values[name] if name in values else self.fixed[name] for name in self.names]
        out = _processed(self.processors, given)
        return out if self.positional else dict(zip(self.names, out, strict=True))


def _processed(
    processors: Sequence[Callable[[Any], Any] | None], values: Sequence[Any]
) -> tuple[Any, ...]:
    """Each value through its processor (None: passed as it is)."""
    return tuple(
        value if process is None else process(value)
        for process, value in zip(processors, values, strict=True)
    )


_COMPILED: dict[tuple[str, Any], Statement] = {}


def compiled(dialect: Dialect, key: Any, build: Callable[[], ClauseElement]) -> Statement:
    """The statement `build()` makes, compiled once for `dialect` under `key` (an INSERT or
    UPDATE names its values as binds of their own, bindparam(name, type_=column type))."""
    found = _COMPILED.get((dialect.name, key))
    if found is not None:
        return found
    statement = build()
    done = cast(SQLCompiler, statement.compile(dialect=dialect))
    names = tuple(done.positiontup or ()) if done.positional else tuple(done.binds)
    binds = done.binds
    processors = tuple(processor(dialect, binds[name].type) for name in names)
    fixed = {name: binds[name].value for name in names if binds[name].value is not None}
    columns = getattr(statement, "selected_columns", ())
    results = _steps(dialect, [column.type for column in columns])
    found = Statement(str(done), names, bool(done.positional), processors, fixed, results)
    _COMPILED[(dialect.name, key)] = found
    return found


_PROCESSORS: dict[tuple[str, int], Callable[[Any], Any] | None] = {}


def processor(dialect: Dialect, type_: Any) -> Callable[[Any], Any] | None:
    """What SQLAlchemy does to a value of this column type before the driver gets it."""
    key = (dialect.name, id(type_))  # the types are the tables', alive as long as they are
    if key not in _PROCESSORS:
        _PROCESSORS[key] = type_.dialect_impl(dialect).bind_processor(dialect)
    return _PROCESSORS[key]


def stored(dialect: Dialect, columns: Sequence[Any], values: Sequence[Any]) -> tuple[Any, ...]:
    """Values of these columns as the driver is given them (and, for SQLite, reads them)."""
    return _processed([processor(dialect, column.type) for column in columns], values)


def _steps(dialect: Dialect, types: Sequence[Any]) -> Steps:
    """What SQLAlchemy does to each value of these column types that it reads, as (column
    index, processor) for the columns that have a processor."""
    readers = [type_.dialect_impl(dialect).result_processor(dialect, None) for type_ in types]
    return tuple((index, read) for index, read in enumerate(readers) if read is not None)


def _read(steps: Steps, row: Sequence[Any]) -> tuple[Any, ...]:
    """A driver's row as SQLAlchemy reads it: each value through its column's processor."""
    if not steps:
        return tuple(row)
    values = list(row)
    for index, process in steps:
        if values[index] is not None:  # as SQLAlchemy's processors pass None on
            values[index] = process(values[index])
    return tuple(values)


_READERS: dict[tuple[str, Any], Convert] = {}


def reader(dialect: Dialect, key: Any, types: Callable[[], Sequence[Any]]) -> Convert:
    """A function that reads a driver's row of columns of `types()` (SQLAlchemy types, in
    the order selected) as fetch does; made once per dialect under `key`. For rows taken
    from the cursor by hand: part of a row, or the first row alone."""
    found = _READERS.get((dialect.name, key))
    if found is None:
        steps = _steps(dialect, types())
        found = _READERS[(dialect.name, key)] = lambda row: _read(steps, row)
    return found


class DriverConnection:
    """A write transaction's pooled driver connection (pbem.storage.db.write_transaction),
    where compiled statements run with none of a Connection's steps around its begin and
    commit; SQLAlchemy's Connection over it made only for what asks for SQLAlchemy's own
    execution (execute, sqlalchemy(): the ORM), which then ends the transaction."""

    def __init__(self, engine: Engine, raw: PoolProxiedConnection) -> None:
        self.engine = engine
        self.dialect = engine.dialect
        self.connection = raw
        self._sqlalchemy: Connection | None = None

    def invalidate(self, exception: BaseException | None = None) -> None:
        """Drop a connection found lost, so that the pool never hands it out again."""
        self.connection.invalidate(exception)

    def sqlalchemy(self) -> Connection:
        """SQLAlchemy's Connection in this transaction (a Session bound to it joins it)."""
        if self._sqlalchemy is None:
            joined = Connection(self.engine, self.connection)
            # The transaction is begun already: SQLAlchemy's begin emits nothing, on SQLite
            # (the begin listener of pbem.storage.db._sqlite_transactions reads the option)
            # as on PostgreSQL's driver.
            joined.execution_options(pbem_joined=True).begin()
            self._sqlalchemy = joined
        return self._sqlalchemy

    def execute(self, statement: Any, parameters: Any = None) -> Any:
        """A statement through SQLAlchemy, in this transaction."""
        return self.sqlalchemy().execute(statement, parameters)

    def commit(self) -> None:
        """Commit the transaction."""
        if self._sqlalchemy is not None:
            self._sqlalchemy.commit()
        else:
            self.connection.commit()

    def rollback(self) -> None:
        """Roll the transaction back (a lost connection has nothing to roll back)."""
        if self._sqlalchemy is not None:
            self._sqlalchemy.rollback()
        elif self.connection.is_valid:
            self.connection.rollback()

    def close(self) -> None:
        """Hand the connection back to the pool."""
        (self._sqlalchemy or self.connection).close()


# A session; the connection of its transaction; a bare write transaction's connection.
Runner = Session | Connection | DriverConnection


def connection_of(session: Runner) -> Connection | DriverConnection:
    """The connection a session's statements run on (the runner itself when it is one)."""
    return session.connection() if isinstance(session, Session) else session


def sqlalchemy_of(connection: Connection | DriverConnection) -> Connection:
    """SQLAlchemy's Connection in the connection's transaction (for a Session bound to it)."""
    return connection.sqlalchemy() if isinstance(connection, DriverConnection) else connection


def fetch(session: Runner, statement: Statement, params: Any) -> list[tuple[Any, ...]]:
    """The rows a compiled SELECT returns, each value as SQLAlchemy would read it."""
    rows = run(session, statement, params).fetchall()
    steps = statement.results
    return [_read(steps, row) for row in rows]


def run(session: Runner, statement: Statement, params: Any, many: bool = False) -> Any:
    """Run a compiled statement on the driver's cursor, in the session's transaction (begun
    if need be); the cursor, to fetch from.

    The driver's errors come out as SQLAlchemy's (IntegrityError, OperationalError...), as
    they would from session.execute, so callers catch the same exceptions; a lost
    connection is invalidated, as SQLAlchemy does, so the pool does not hand it out again."""
    connection = connection_of(session)
    dialect = connection.dialect
    raw = connection.connection.cursor()
    try:
        if many:
            raw.executemany(statement.sql, params)
        else:
            raw.execute(statement.sql, params)
    except dialect.loaded_dbapi.Error as exc:
        lost = dialect.is_disconnect(exc, connection.connection.dbapi_connection, raw)
        if lost:
            connection.invalidate(exc)
        raise DBAPIError.instance(
            statement.sql,
            params,
            exc,
            dialect.loaded_dbapi.Error,
            connection_invalidated=lost,
            dialect=dialect,
            hide_parameters=True,  # as the engine's own errors (pbem.storage.db.make_engine)
        ) from exc
    return raw


def dialect_of(session: Runner) -> Dialect:
    """The dialect of the session's connection."""
    return connection_of(session).dialect
