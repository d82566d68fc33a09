"""Whether a player is looking at a game's page, and the "your move" mail held meanwhile.

A seat page's stream (`pbem live`, which tells the page of every change: static/live.js)
records when the seat last looked (`Seat.seen_at`, in the database, so every host sees
it), as it opens and then every SEEN_EVERY while it stays open; so does the page's poll
when the stream is down (a poll every few seconds costs a read, and a write only now and
then). The page says when it is hidden or left (mark_away), which sends a mail held
meanwhile. A page without JavaScript records nothing: it shows no move as it comes, so its
player's mail is not held.

A move that makes a seat due while it was seen in the last LOOKING gets the page's live
update at once, and its "your move" mail waits in the outbox (its next_attempt_at later
by the site's turn_mail_delay); the seat's own move deletes it, in the move's
transaction (issue 31: no mail while you look).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, Integer, bindparam, delete, or_, tuple_, update

from pbem.models import Outbox, Seat
from pbem.storage.db import write_session
from pbem.storage.writes import Writes

SEEN_EVERY = timedelta(seconds=20)  # a seat's seen_at is written at most this often
LOOKING = timedelta(seconds=60)  # seen this recently: the player is looking at the page
_SEATS = Seat.__table__  # type: ignore[attr-defined]
_OUTBOX = Outbox.__table__  # type: ignore[attr-defined]
_BATCH = 500  # seats one statement names at most (two parameters each)


def looking(seat: Seat, now: datetime) -> bool:
    """Whether the seat's page looked at the game in the last minute."""
    return seat.seen_at is not None and seat.seen_at > now - LOOKING


def _of_seat(table: Any, game_id: int, seat_no: int) -> tuple[Any, Any]:
    """The conditions that pick one seat's rows of `table` (seats, outbox)."""
    return table.c.game_id == game_id, table.c.seat == seat_no


def stale(seen_at: datetime | None, now: datetime) -> bool:
    """Whether a seat last seen at `seen_at` is to be marked seen again now."""
    return seen_at is None or seen_at <= now - SEEN_EVERY


def mark_seen(
    engine: Engine, game_id: int, seat_no: int, seen_at: datetime | None, now: datetime
) -> None:
    """Record that the seat looked at the game now, if it was last seen (`seen_at`, as the
    request read it) SEEN_EVERY ago or more. The UPDATE is conditional too, so that pages
    open on several hosts write once every SEEN_EVERY between them."""
    if not stale(seen_at, now):
        return  # a read only: most polls stop here
    with write_session(engine) as session:
        session.execute(
            update(_SEATS)
            .where(
                *_of_seat(_SEATS, game_id, seat_no),
                or_(_SEATS.c.seen_at.is_(None), _SEATS.c.seen_at <= now - SEEN_EVERY),
            )
            .values(seen_at=now)
        )


def mark_seen_many(engine: Engine, seats: Iterable[tuple[int, int]], now: datetime) -> None:
    """Record that these (game id, seat) pairs look at their game now: the seats whose page
    has a stream open in `pbem live`, every SEEN_EVERY, in one statement a batch; a seat
    marked in the last SEEN_EVERY (by another process, say) is left as it is."""
    pairs = sorted(set(seats))
    for start in range(0, len(pairs), _BATCH):
        with write_session(engine) as session:
            session.execute(
                update(_SEATS)
                .where(
                    tuple_(_SEATS.c.game_id, _SEATS.c.seat).in_(pairs[start : start + _BATCH]),
                    or_(_SEATS.c.seen_at.is_(None), _SEATS.c.seen_at <= now - SEEN_EVERY),
                )
                .values(seen_at=now)
            )


def mark_away(engine: Engine, game_id: int, seat_no: int, now: datetime) -> None:
    """Record that the seat's page was hidden or closed: it is looking no more, and a
    "your move" mail held while it looked goes now rather than at the end of its delay
    (the player left without moving: the table must not wait on a mail in the outbox)."""
    with write_session(engine) as session:
        session.execute(
            update(_SEATS)
            .where(
                *_of_seat(_SEATS, game_id, seat_no),
                _SEATS.c.seen_at.is_not(None),
            )
            .values(seen_at=None)
        )
        session.execute(
            update(_OUTBOX)
            .where(
                *_of_seat(_OUTBOX, game_id, seat_no),
                _OUTBOX.c.event == "your_turn",
                _OUTBOX.c.sent_at.is_(None),
                _OUTBOX.c.next_attempt_at > now,
                _OUTBOX.c.attempts == 0,  # held, not a failed send waiting its retry
            )
            .values(next_attempt_at=now)
        )


def _cancel_statement() -> object:
    return delete(_OUTBOX).where(
        _OUTBOX.c.game_id == bindparam("w_game", type_=Integer),
        _OUTBOX.c.seat == bindparam("w_seat", type_=Integer),
        _OUTBOX.c.event == "your_turn",
        _OUTBOX.c.sent_at.is_(None),
        # Only mails queued before this move: never one the move itself queues.
        _OUTBOX.c.ply <= bindparam("w_ply", type_=Integer),
    )


def cancel_held(writes: Writes, seat: Seat, ply: int) -> None:
    """The seat moves at `ply`: the "your move" mails not yet sent that it was queued
    before it (the one held while it looked, and any other still waiting) are deleted in
    the move's transaction, so none goes after the move. A sender that claimed one already
    (its delay was over before the move) sends it: it finds the row gone, and marks nothing."""
    if not seat.held_mail:
        return  # no mail held: the move reads and writes nothing more
    values = {"w_game": seat.game_id, "w_seat": seat.seat, "w_ply": ply}
    writes.run("cancel held turn mail", _cancel_statement, values)
    seat.held_mail = False
