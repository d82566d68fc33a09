"""A write transaction on a pooled driver connection, with no Session around it: for the
sender's claims, which run two compiled statements a mail (pbem.storage.rawsql) and were
paying more for an ORM session's begin, connection and commit than for the statements.

It stands where rawsql's functions take a session (connection(), its dialect, its driver
connection, invalidate()), so the same compiled statements run in either. SQLite takes the
write lock at BEGIN IMMEDIATE, as pbem.storage.db.write_session does; PostgreSQL's driver
opens the transaction at the first statement.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Dialect, Engine
from sqlalchemy.pool import PoolProxiedConnection


class _Connection:
    """What rawsql.run asks of a session's connection: the dialect, the pooled driver
    connection (`connection`), and invalidate()."""

    def __init__(self, raw: PoolProxiedConnection, dialect: Dialect) -> None:
        self.connection = raw
        self.dialect = dialect

    def invalidate(self, exc: BaseException | None = None) -> None:
        """Drop a connection found lost, so that the pool never hands it out again."""
        self.connection.invalidate(exc)


class RawWrite:
    """A transaction on one pooled connection (raw_write), in a session's stead."""

    def __init__(self, raw: PoolProxiedConnection, dialect: Dialect) -> None:
        self._connection = _Connection(raw, dialect)

    def connection(self) -> Any:
        """The connection rawsql.run and dialect_of ask a session for."""
        return self._connection


@contextmanager
def raw_write(engine: Engine) -> Iterator[Any]:
    """A write transaction, committed when the block ends, rolled back on an error."""
    raw = engine.raw_connection()
    try:
        if engine.dialect.name == "sqlite":
            # pysqlite leaves transactions to us (pbem.storage.db: isolation_level None).
            raw.cursor().execute("BEGIN IMMEDIATE")
        yield RawWrite(raw, engine.dialect)
        raw.commit()
    except BaseException:
        if raw.is_valid:
            raw.rollback()
        raise
    finally:
        raw.close()
