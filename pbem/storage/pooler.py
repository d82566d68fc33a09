"""Whether PostgreSQL is reached through a transaction pooler that the settings do not name.

Two client connections open at the same time are, straight to PostgreSQL, two sessions,
each served by its own server process (pg_backend_pid). A pooler in transaction mode
(PgBouncer's pool_mode=transaction) lends a server connection for one transaction only and
lends next the one released last: once the first connection's transaction ends, the second
connection's is served by the same process. Two open connections that report one pid can
only be such a pooler.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import create_engine
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from pbem.config import ConfigError, DatabaseSettings

CONNECT_TIMEOUT = 5  # seconds; libpq waits forever without one (a host that drops packets)
# Transactions each connection runs: another client can take the released server connection
# in between, once; not three times in a row.
ROUNDS = 3

REFUSAL = (
    "PostgreSQL is reached through a transaction pooler (PgBouncer with"
    " pool_mode=transaction: two open connections were served by one server process), and"
    " PBEM_DATABASE_POOLER is 'none'. psycopg would prepare statements on a server connection"
    " that the next transaction does not get: moves would fail with errors, and mail handed"
    " to the SMTP server would be sent again. Set PBEM_DATABASE_POOLER=transaction, or"
    " connect straight to PostgreSQL (or to PgBouncer in pool_mode=session)."
)


class UnannouncedPooler(ConfigError):
    """The database is behind a transaction pooler the settings do not name."""


@dataclass(frozen=True)
class Probe:
    """What the probe found: pooled True (a transaction pooler), False (a session each), or
    None (no answer: not PostgreSQL, or no connection; `error` says why)."""

    pooled: bool | None
    error: str = ""


def is_postgres(url: str) -> bool:
    """Whether the database URL names PostgreSQL."""
    return make_url(url).get_backend_name() == "postgresql"


def probe(url: str, timeout: int = CONNECT_TIMEOUT) -> Probe:
    """Open two connections to `url` at once and compare the server processes serving them."""
    if not is_postgres(url):
        return Probe(None, "not PostgreSQL")
    # The driver's own connections: no pool, no dialect set-up queries, nothing kept.
    dialect = create_engine(url, poolclass=NullPool).dialect
    args, params = dialect.create_connect_args(make_url(url))
    params["connect_timeout"] = timeout
    opened: list[Any] = []
    try:
        for _ in range(2):
            opened.append(dialect.connect(*args, **params))
        pids: list[set[int]] = [set(), set()]
        for _ in range(ROUNDS):
            for n, connection in enumerate(opened):
                cursor = connection.cursor()
                cursor.execute("SELECT pg_backend_pid()")
                pids[n].add(int(cursor.fetchone()[0]))
                cursor.close()
                connection.commit()  # the pooler takes the server connection back here
        return Probe(bool(pids[0] & pids[1]))
    except dialect.loaded_dbapi.Error as exc:
        return Probe(None, _first_line(exc))
    except OSError as exc:
        return Probe(None, _first_line(exc))
    finally:
        for connection in opened:
            connection.close()


def _first_line(exc: BaseException) -> str:
    """An error's first line (a driver's message names the host and user, never a password)."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def refuse_unannounced_pooler(url: str, settings: DatabaseSettings) -> None:
    """Raise UnannouncedPooler when `url` is behind a transaction pooler and the settings
    say none. Only PostgreSQL without the pooler setting is probed; a probe that cannot
    connect refuses nothing (the process's own errors tell of that, and pbem doctor)."""
    if settings.pooler != "none" or not is_postgres(url):
        return
    if probe(url).pooled:
        raise UnannouncedPooler(REFUSAL)
