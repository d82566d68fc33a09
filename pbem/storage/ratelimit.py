"""Rate limits kept in the database, so that they hold across gunicorn workers.

Each limit counts events of one kind from one address in fixed windows; the
count is raised with one atomic upsert.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col

from pbem.models import RateHit
from pbem.present.i18n import Moment
from pbem.storage.allowance import OverLimit
from pbem.storage.db import read_session, write_session


@dataclass(frozen=True)
class Limit:
    """At most `count` events of `kind` per address in `seconds`."""

    kind: str
    count: int
    seconds: int

    def key(self, address: str, now: datetime) -> str:
        """The counter for this address in the window holding `now`."""
        return f"{self.kind}:{address[:64]}:{int(now.timestamp()) // self.seconds}"

    def ends(self, now: datetime) -> datetime:
        """When the window holding `now` ends (and its count with it), in UTC."""
        window = int(now.timestamp()) // self.seconds
        return datetime.fromtimestamp((window + 1) * self.seconds, UTC)


BAD_LINKS = Limit("badlink", 30, 600)  # guessing links: 30 wrong ones in 10 minutes
NEW_GAMES = Limit("newgame", 20, 3600)  # each game sends invitations: 20 an hour
SIGN_INS = Limit("signin", 10, 3600)  # sign-in mails asked from one address: 10 an hour
SIGN_IN_MAILS = Limit("signinmail", 3, 3600)  # sign-in mails sent to one player: 3 an hour
# A signed-in player's open tables and seats taken (keyed "player:<id>", pbem.web.opentables):
# each post or join mails others, so a day's worth is bounded.


def refusal(engine: Engine, limit: Limit, address: str, now: datetime) -> OverLimit | None:
    """The 429 to answer when the address has used up its allowance for this window (saying
    when the window ends, in UTC: nobody is signed in to give a zone); None while it has not."""
    if not exceeded(engine, limit, address, now):
        return None
    return OverLimit(limit.kind, limit.count, time=Moment(limit.ends(now)))


def count(engine: Engine, limit: Limit, address: str, now: datetime) -> int:
    """How many events the address has had in the current window."""
    with read_session(engine) as session:
        value = session.execute(
            select(col(RateHit.count)).where(col(RateHit.key) == limit.key(address, now))
        ).scalar()
    return int(value or 0)


def exceeded(engine: Engine, limit: Limit, address: str, now: datetime) -> bool:
    """Whether the address has used up its allowance for this window."""
    return count(engine, limit, address, now) >= limit.count


def record(engine: Engine, limit: Limit, address: str, now: datetime) -> int:
    """Count one event; return the count in this window, this one included."""
    dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
    table = RateHit.__table__  # type: ignore[attr-defined]
    statement = (
        dialect.insert(table)
        .values(
            key=limit.key(address, now), count=1, expires_at=now + timedelta(seconds=limit.seconds)
        )
        .on_conflict_do_update(index_elements=["key"], set_={"count": table.c.count + 1})
        .returning(table.c.count)
    )
    with write_session(engine) as session:
        return int(session.execute(statement).scalar_one())


def forget_expired(session: Session, now: datetime) -> None:
    """Drop counters whose window has passed (in the caller's write transaction)."""
    session.execute(delete(RateHit).where(col(RateHit.expires_at) < now))
