"""Game reviews as rows (GameReview): asked by a seat's player once its game is over, read by
the seat's pages, claimed and written by the computer workers (pbem.clock.reviews).

One row per game and seat: asking again finds it (and at most adds the wish for a mail);
the workers write its result once, under a lease, and queue its mail once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, or_, update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from pbem.models import GameReview
from pbem.storage.db import read_session, write_session
from pbem.storage.store import lock_game

# What asking did: the first ask, an ask that adds a mail to one asked before, or nothing new.
ASKED, MAIL_ADDED, AGAIN, NOT_OVER = "asked", "mail_added", "again", "not_over"


@dataclass(frozen=True)
class Claimed:
    """A review a worker holds until `until`: its row, game and seat."""

    id: int
    game_id: int
    seat: int
    until: datetime


def review_of(session: Session, game_id: int, seat: int) -> GameReview | None:
    """The seat's review row of the game, if its player asked for it."""
    query = select(GameReview).where(GameReview.game_id == game_id, GameReview.seat == seat)
    return session.exec(query).first()


def ask(session: Session, game_id: int, seat: int, mail: bool, now: datetime) -> str:
    """Ask for the seat's review (and its mail): ASKED, MAIL_ADDED, AGAIN, or NOT_OVER for a
    game not over (nothing is asked: a review is never worked out before the end)."""
    game = lock_game(session, game_id)  # one ask per game at a time: no duplicate row
    if game.status != "over":
        return NOT_OVER
    found = review_of(session, game_id, seat)
    if found is None:
        session.add(GameReview(game_id=game_id, seat=seat, asked_at=now, mail=mail))
        return ASKED
    if mail and not found.mail:
        found.mail = True  # the workers mail a done review that wants one (mail_due)
        session.add(found)
        return MAIL_ADDED
    return AGAIN


def claim(engine: Engine, now: datetime, batch: int, lease: timedelta) -> list[Claimed]:
    """Claim up to `batch` reviews not yet worked out that no worker holds at `now`, the
    oldest asked first, each leased to the caller until `now + lease`."""
    free = or_(col(GameReview.claimed_until).is_(None), col(GameReview.claimed_until) <= now)
    query = (
        select(GameReview.id, GameReview.game_id, GameReview.seat)
        .where(col(GameReview.done_at).is_(None), free)
        .order_by(col(GameReview.asked_at), col(GameReview.id))
        .limit(batch)
        # PostgreSQL: rows another worker is claiming are passed over (as computer_play's
        # claim_due); SQLite: BEGIN IMMEDIATE serialises claims.
        .with_for_update(skip_locked=True)
    )
    until = now + lease
    with write_session(engine) as session:
        rows = session.exec(query).all()
        if rows:
            session.execute(
                update(GameReview)
                .where(col(GameReview.id).in_([row[0] for row in rows]))
                .values(claimed_until=until)
            )
    return [Claimed(row_id or 0, game_id, seat, until) for row_id, game_id, seat in rows]


def write_result(session: Session, claimed: Claimed, result: dict[str, Any], now: datetime) -> bool:
    """Store a claimed review's result, if the claim is still the caller's and no result is
    there yet: whether it landed (a lease taken over, or a second run, writes nothing)."""
    done = session.execute(
        update(GameReview)
        .where(
            col(GameReview.id) == claimed.id,
            col(GameReview.claimed_until) == claimed.until,
            col(GameReview.done_at).is_(None),
        )
        .values(result=result, done_at=now, claimed_until=None)
    )
    return bool(getattr(done, "rowcount", 0) == 1)


def mail_due(engine: Engine, batch: int) -> list[int]:
    """Reviews done whose player wants them mailed and that were not mailed yet."""
    query = (
        select(GameReview.id)
        .where(
            and_(
                col(GameReview.done_at).is_not(None),
                col(GameReview.mail).is_(True),
                col(GameReview.mailed_at).is_(None),
            )
        )
        .order_by(col(GameReview.id))
        .limit(batch)
    )
    with read_session(engine) as session:
        return [row_id for row_id in session.exec(query).all() if row_id is not None]


def take_mail(session: Session, review_id: int, now: datetime) -> GameReview | None:
    """Mark a done review as mailed now, if it wants a mail and none was queued: the row
    when this call took it (its mail is then the caller's to queue, once), else None."""
    taken = session.execute(
        update(GameReview)
        .where(
            col(GameReview.id) == review_id,
            col(GameReview.done_at).is_not(None),
            col(GameReview.mail).is_(True),
            col(GameReview.mailed_at).is_(None),
        )
        .values(mailed_at=now)
    )
    if getattr(taken, "rowcount", 0) != 1:
        return None
    return session.get(GameReview, review_id)
