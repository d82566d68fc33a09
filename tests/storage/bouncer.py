"""A throwaway PgBouncer in transaction mode in front of the PostgreSQL test database."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy.engine import make_url

from pbem.devservers import PgBouncer, pgbouncer_bin
from tests.settings import PG_URL

POSTGRES_ONLY = "PostgreSQL only (PBEM_TEST_DATABASE_URL): these settings are PostgreSQL's"
NO_PGBOUNCER = "Debian's pgbouncer is not installed (apt-get install pgbouncer; CI has it)"


@contextmanager
def pgbouncer(pool_size: int = 2) -> Iterator[str]:
    """The test database's URL through a new PgBouncer (pool_mode=transaction) until the
    block ends; skips the test without PostgreSQL or without pgbouncer."""
    if not PG_URL:
        pytest.skip(POSTGRES_ONLY)
    program = pgbouncer_bin()
    if program is None:
        pytest.skip(NO_PGBOUNCER)
    server = make_url(PG_URL)
    assert server.port is not None and server.database is not None
    bouncer = PgBouncer(program, server.port, pool_size=pool_size)
    bouncer.start()
    try:
        yield bouncer.url(server.database)
    finally:
        bouncer.stop()
