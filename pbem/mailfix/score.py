"""The clock's sweep that scores each report of a mail not arriving once, against its address.

A score, not a hair trigger (issue 46): a soft bounce (4.x.x: a full mailbox, a server
away) adds 1, a hard one (5.x.x: no such user) or a refusal by the relay adds 2, at most
once a UTC day per address (the day the report came): a flood of reports on one bad day
counts as its worst one, in whatever order they are scored (a hard one after a soft one
adds the difference); the score goes back to 0 first when the address's last report is
more than 30 days older than this one. At PBEM_BOUNCE_THRESHOLD (4: two hard days, or four soft
ones) the address turns "bouncing"; a complaint (the owner marked a mail as spam) turns it
"complained" at once. On either turn the table is told (pbem.mailfix.tell), in the
transaction that turned it. Every report is marked scored, also one that adds nothing.

Each report is scored in its own short transaction, which takes the oldest report not yet
scored and locks it (FOR UPDATE SKIP LOCKED: two clocks take different reports, never the
same one; SQLite's BEGIN IMMEDIATE lets one sweep write at a time), then locks its address's
row (made first when missing), so two reports on one address are scored one after the other.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

from sqlalchemy import Engine
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from pbem.bounces.record import COMPLAINT, HARD, REFUSED, SOFT
from pbem.bounces.state import BOUNCING, COMPLAINED, OK
from pbem.mailfix import tell
from pbem.models import Bounce, MailAddress
from pbem.site import Site
from pbem.storage.db import write_session

POINTS = {SOFT: 1, HARD: 2, REFUSED: 2}
QUIET = timedelta(days=30)  # this long without a report, and the score starts again at 0
REASON_MAX = 300  # MailAddress.last_reason's length
# The oldest report not yet scored (ix_bounce_unscored), locked, skipping those another
# sweep holds.
_NEXT = (
    select(Bounce)
    .where(col(Bounce.scored_at).is_(None))
    .order_by(col(Bounce.id))
    .limit(1)
    .with_for_update(skip_locked=True)
)


def sweep_bounces(engine: Engine, site: Site, now: datetime, threshold: int, limit: int) -> int:
    """Score every report not yet scored, at most `limit`; how many were scored."""
    done = 0
    picked: set[int | None] = set()
    for _ in range(limit):
        with write_session(engine) as session:
            report = session.exec(_NEXT).first()
            if report is None or report.id in picked:
                break  # nothing left but what other sweeps hold
            picked.add(report.id)
            score(session, site, report, now, threshold)
            done += 1
    return done


def score(session: Session, site: Site, report: Bounce, now: datetime, threshold: int) -> None:
    """Score one report (locked by the caller) against its address's row, and mark it scored;
    tell the table when the address turns bouncing or complained."""
    row = _locked_address(session, report.address, now)
    was = row.state
    seen = report.received_at
    if row.last_bounce_at is not None and seen - row.last_bounce_at > QUIET:
        row.score = 0
    day = seen.astimezone(UTC).date().isoformat()
    if report.kind == COMPLAINT:
        if row.state != COMPLAINED:
            row.state, row.since = COMPLAINED, now
    else:
        points = POINTS.get(report.kind, 0)
        if row.scored_day == day:
            points -= _scored_that_day(session, report.address, seen)
        row.score += max(points, 0)
        row.scored_day = day
        if row.state == OK and row.score >= threshold:
            row.state, row.since = BOUNCING, now
    if row.last_bounce_at is None or seen >= row.last_bounce_at:
        row.last_bounce_at = seen
        row.last_kind = report.kind
        row.last_reason = " ".join(f"{report.status} {report.reason}".split())[:REASON_MAX]
    row.updated_at = now
    report.scored_at = now
    session.add(row)
    session.add(report)
    if was == OK and row.state != OK:
        session.flush()
        tell.told_bouncing(session, site, row, now)


def _scored_that_day(session: Session, address: str, seen: datetime) -> int:
    """The most a report on `address` scored already added on the UTC day of `seen` (read
    under the address's lock: every report scored on it is committed)."""
    start = datetime.combine(seen.astimezone(UTC).date(), time(), UTC)
    kinds = session.exec(
        select(Bounce.kind)
        .where(
            Bounce.address == address,
            col(Bounce.scored_at).is_not(None),
            col(Bounce.received_at) >= start,
            col(Bounce.received_at) < start + timedelta(days=1),
        )
        .distinct()
    )
    return max((POINTS.get(kind, 0) for kind in kinds), default=0)


def _locked_address(session: Session, address: str, now: datetime) -> MailAddress:
    """The address's row, made if missing, locked for the transaction."""
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    table = MailAddress.__table__  # type: ignore[attr-defined]
    # Another sweep making the same row at once: one insert wins, the other does nothing.
    session.execute(
        dialect.insert(table)
        .values(
            address=address,
            state=OK,
            score=0,
            scored_day="",
            last_kind="",
            last_reason="",
            updated_at=now,
        )
        .on_conflict_do_nothing(index_elements=["address"])
    )
    return session.exec(
        select(MailAddress).where(MailAddress.address == address).with_for_update()
    ).one()
