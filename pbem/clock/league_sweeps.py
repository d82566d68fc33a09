"""The leagues' sweeps: start the next round of a league whose round is over (or end it),
and send each league's weekly digest.

Each league is picked with FOR UPDATE SKIP LOCKED (pbem.clock.sweeps) and claimed by a
conditional UPDATE: the round check by its lease (claimed_until, so a league is looked at
once a LEASE however many clock processes run), the digest by its due time. A second sweep,
in this process or another, finds the claim taken and does nothing: a round starts once,
a digest goes once."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, or_, update
from sqlmodel import Session, col, select

from pbem.clock.sweeps import at_most, claim_row, due_rows, each_due
from pbem.errors import PlayError
from pbem.leagues.mails import queue_digest
from pbem.leagues.rounds import DIGEST_EVERY, advance
from pbem.leagues.rows import lock_league
from pbem.models import League
from pbem.site import Site

log = logging.getLogger(__name__)
LEASE = timedelta(minutes=1)  # a league's round is looked at once in this time at most


def sweep_leagues(engine: Engine, site: Site, now: datetime, batch: int = 100) -> dict[str, int]:
    """The leagues' rounds and digests that are due."""
    return {
        "league rounds": sweep_league_rounds(engine, site, now, batch),
        "league digests": sweep_league_digests(engine, site, now, batch),
    }


def _free(now: datetime) -> Any:
    return or_(col(League.claimed_until).is_(None), col(League.claimed_until) <= now)


def sweep_league_rounds(engine: Engine, site: Site, now: datetime, batch: int) -> int:
    """For each running league not claimed: once its round is over, start the next round or
    end it; how many leagues moved on."""

    def handle(session: Session, league_id: Any) -> bool:
        claim = (
            update(League)
            .where(col(League.id) == league_id, col(League.status) == "running", _free(now))
            .values(claimed_until=now + LEASE)
        )
        if not claim_row(session, claim):
            return False  # another sweep has it
        league = lock_league(session, league_id)
        try:
            with session.begin_nested():
                return advance(session, site, league, now) is not None
        except PlayError as exc:
            # A round that cannot be made (a game refused) is tried again once the lease
            # is past; the rest of the sweep goes on meanwhile.
            log.error("league %s: the next round failed: %s", league_id, exc.key)
            return False

    running = (
        select(League.id)
        .where(League.status == "running", _free(now))
        .order_by(col(League.id))
        .limit(1)
        .with_for_update(of=League, skip_locked=True)
    )
    return each_due(engine, running, handle, at_most(batch))


def sweep_league_digests(engine: Engine, site: Site, now: datetime, batch: int) -> int:
    """Send each running league's weekly digest that is due, once."""

    def handle(session: Session, league_id: Any) -> bool:
        league = session.get(League, league_id)
        if league is None or league.next_digest_at is None or league.next_digest_at > now:
            return False
        # The next one a week on; after downtime, a week from now (no string of digests).
        following = max(league.next_digest_at + DIGEST_EVERY, now + timedelta(hours=1))
        claim = (
            update(League)
            .where(
                col(League.id) == league_id,
                col(League.next_digest_at) == league.next_digest_at,
            )
            .values(next_digest_at=following)
        )
        if not claim_row(session, claim) or league.status != "running":
            return False
        session.refresh(league)
        return queue_digest(session, site, league, now) > 0

    running = select(League.id).where(League.status == "running")
    return each_due(
        engine, due_rows(running, League.next_digest_at, now, League), handle, at_most(batch)
    )
