"""Readiness: the database answers, its migrations are this code's, a clock beats, mail goes.

Each check says ok or not and why in a few words with its figures; none names a host, an
address, a setting's value or anything of a game. All four read one connection, by indexed
queries (the outbox's due index, the few heartbeat rows, the migrations' version row).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from alembic.migration import MigrationContext
from sqlalchemy import Engine, func, text
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from pbem.config import Settings
from pbem.models import Outbox
from pbem.storage.db import head_revision, standing
from pbem.watch.beats import newest_clock_beat


@dataclass(frozen=True)
class Check:
    """One readiness check: its name, whether it passed, and why in a few words."""

    name: str
    ok: bool
    reason: str


def outbox_due(session: Session, now: datetime) -> tuple[int, float | None]:
    """How many mails are due and unsent at `now`, and how many seconds the one due longest
    has waited past its time (None: none is due). Read from the index on (sent_at,
    next_attempt_at): a mail held while its player looks, or waiting out a retry, is not
    due until its time."""
    query = select(func.count(), func.min(Outbox.next_attempt_at)).where(
        col(Outbox.sent_at).is_(None), col(Outbox.next_attempt_at) <= now
    )
    count, oldest = session.exec(query).one()
    if not count or oldest is None:
        return int(count or 0), None
    return int(count), max((now - oldest).total_seconds(), 0.0)


def readiness(engine: Engine, settings: Settings, now: datetime) -> list[Check]:
    """The four checks, in order: database, migrations, clock, mail."""
    try:
        session = Session(engine)
        session.execute(text("SELECT 1"))
    except SQLAlchemyError as exc:
        session.close()
        # The type only: a driver's message names the database's host and user.
        down = f"not checked: the database did not answer ({type(exc).__name__})"
        return [Check("database", False, f"no answer ({type(exc).__name__})")] + [
            Check(name, False, down) for name in ("migrations", "clock", "mail")
        ]
    with session:
        checks = [Check("database", True, "answers")]
        for name, check in (("migrations", _migrations), ("clock", _clock), ("mail", _mail)):
            try:
                checks.append(check(session, settings, now))
            except SQLAlchemyError as exc:
                session.rollback()  # PostgreSQL refuses the rest of a failed transaction
                checks.append(Check(name, False, f"cannot be read ({type(exc).__name__})"))
    return checks


def _migrations(session: Session, settings: Settings, now: datetime) -> Check:
    """The database's revision is the head of the migrations this code ships."""
    found = MigrationContext.configure(session.connection()).get_current_revision()
    head, where = head_revision(), standing(found)
    if where == "current":
        return Check("migrations", True, f"at {head}, as this code expects")
    if where == "ahead":
        return Check(
            "migrations", False, f"at {found}, newer than this code ({head}): run the new code"
        )
    return Check(
        "migrations", False, f"at {found or 'none'}, this code expects {head}: run pbem migrate"
    )


def _clock(session: Session, settings: Settings, now: datetime) -> Check:
    """A clock (or `pbem serve`) beat within two sweep intervals."""
    limit = 2 * settings.sweep_interval
    last = newest_clock_beat(session)
    if last is None:
        return Check("clock", False, "no clock has beaten: is pbem clock running?")
    age = max((now - last).total_seconds(), 0.0)
    if age > limit:
        return Check("clock", False, f"last beat {age:.0f} s ago, over {limit:.0f} s")
    return Check("clock", True, f"last beat {age:.0f} s ago")


def _mail(session: Session, settings: Settings, now: datetime) -> Check:
    """The mail due longest has waited less than PBEM_READY_MAIL_AGE past its time."""
    limit = settings.ready_mail_age
    count, waited = outbox_due(session, now)
    if waited is None:
        return Check("mail", True, "no mail due")
    if waited > limit:
        return Check(
            "mail", False, f"{count} due, the oldest for {waited:.0f} s, over {limit:.0f} s"
        )
    return Check("mail", True, f"{count} due, the oldest for {waited:.0f} s")
