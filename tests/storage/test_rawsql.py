"""The move's writes under the lock run on the driver's cursor (pbem.storage.rawsql): a value is
written as SQLAlchemy writes it, and the driver's errors come out as SQLAlchemy's, so the
views' answers to them (409 for a conflict, 503 for a database that is down) still hold."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import bindparam, insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from pbem.models import Player
from pbem.storage.db import read_session, write_session
from pbem.storage.rawsql import compiled, dialect_of, run

PLAYERS = Player.__table__  # type: ignore[attr-defined]
KEYS = (
    "email", "name", "lang", "tz", "notify", "vacation_days", "unsubscribe_key", "created_at",
    "session_generation", "auto_vacation", "page_public",
)  # fmt: skip


def _add_player(session: Any, email: str, at: datetime) -> None:
    statement = compiled(
        dialect_of(session),
        "test: add player",
        lambda: insert(PLAYERS).values({k: bindparam(k, type_=PLAYERS.c[k].type) for k in KEYS}),
    )
    values = {
        "email": email, "name": "Zoé", "lang": "fr", "tz": "Europe/Paris", "notify": "every",
        "vacation_days": 14, "unsubscribe_key": "", "created_at": at, "session_generation": 0,
        "auto_vacation": False, "page_public": True,
    }  # fmt: skip
    run(session, statement, statement.parameters(values))


def test_a_row_written_raw_reads_back_as_written(app: Any) -> None:
    engine = app.extensions["pbem"]["engine"]
    at = datetime(2026, 12, 1, 9, 30, 15, 123456, tzinfo=UTC)
    with write_session(engine) as session:
        _add_player(session, "zoe@example.org", at)
    with read_session(engine) as session:
        zoe = session.exec(select(Player).where(Player.email == "zoe@example.org")).one()
    assert (zoe.name, zoe.tz, zoe.created_at) == ("Zoé", "Europe/Paris", at)


def test_a_constraint_broken_on_the_cursor_is_sqlalchemys_integrity_error(app: Any) -> None:
    engine = app.extensions["pbem"]["engine"]
    at = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
    with write_session(engine) as session:
        _add_player(session, "zoe@example.org", at)
    with pytest.raises(IntegrityError), write_session(engine) as session:
        _add_player(session, "ana@example.org", at)
        _add_player(session, "zoe@example.org", at)  # the address is taken
    with read_session(engine) as session:
        emails = session.exec(select(Player.email)).all()
    assert emails == ["zoe@example.org"]  # the failed transaction left nothing behind
