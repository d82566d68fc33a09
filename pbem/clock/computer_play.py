"""Computer moves, claimed: never inside a web request, never worked out twice.

A worker (the clock's job, or a `pbem computers` process) claims a few seats due
(`Seat.computer_due_at` older than the delay, so the table sees the moves arrive) in one
short write transaction, leasing each until `computer_claimed_until`; PostgreSQL's
`FOR UPDATE SKIP LOCKED` lets claims by other workers pass each other, SQLite's
BEGIN IMMEDIATE takes them one at a time. Only then is a claimed seat's move worked out,
from the seat's view, outside any transaction, and applied in its own through
`moves.submit_move`, whose turn token refuses a decision gone stale. A worker killed
mid-decision leaves its seats to be taken again once their lease is past.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import or_, update
from sqlalchemy.engine import Engine
from sqlmodel import col, select

from pbem.bots import decide
from pbem.counters import metrics
from pbem.errors import PlayError
from pbem.games import GAMES
from pbem.models import Game, Seat, level_for
from pbem.moves import submit_move
from pbem.site import Site
from pbem.storage.db import read_session, write_session
from pbem.storage.rounds import viewed_state
from pbem.storage.store import lock_game, seat_of

log = logging.getLogger(__name__)

MAX_ROUNDS = 50  # a sweep stops after this many batches even if more keeps falling due
# Long beside a decision (a strong one is about a second of one core, a batch a few), so a
# live worker keeps its seats; short enough that a killed one's seats wait little.
LEASE = timedelta(minutes=2)


def claim_due(
    engine: Engine, now: datetime, before: datetime, batch: int, lease: timedelta = LEASE
) -> list[tuple[int, int]]:
    """Claim up to `batch` computer seats due since `before` that no worker holds at `now`:
    their (game, seat), leased to the caller until `now + lease`."""
    free = or_(col(Seat.computer_claimed_until).is_(None), col(Seat.computer_claimed_until) <= now)
    query = (
        select(Seat.id, Seat.game_id, Seat.seat)
        .where(col(Seat.computer_due_at) <= before, free)
        .order_by(col(Seat.computer_due_at))
        .limit(batch)
        # PostgreSQL: rows another worker is claiming are passed over, not waited for.
        # SQLite has no row locks (the clause is left out): BEGIN IMMEDIATE serialises claims.
        .with_for_update(skip_locked=True)
    )
    with write_session(engine) as session:
        rows = session.exec(query).all()
        if rows:
            session.execute(
                update(Seat)
                .where(col(Seat.id).in_([row[0] for row in rows]))
                .values(computer_claimed_until=now + lease)
            )
    return [(game_id, seat_no) for _, game_id, seat_no in rows]


def _release(engine: Engine, game_id: int, seat_no: int, until: datetime) -> None:
    """Give up a claim leased until `until`, unless another worker has taken it since."""
    with write_session(engine) as session:
        session.execute(
            update(Seat)
            .where(
                col(Seat.game_id) == game_id,
                col(Seat.seat) == seat_no,
                col(Seat.computer_claimed_until) == until,
            )
            .values(computer_claimed_until=None)
        )


def _work_out(engine: Engine, game_id: int, seat_no: int, before: datetime) -> Any:
    """(ply, token, move) for a seat still due, (ply, None, None) if it is not, or None."""
    with read_session(engine) as session:
        game = session.get(Game, game_id)
        seat = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == seat_no)).one()
        if game is None or seat.computer_due_at is None or seat.computer_due_at > before:
            return None
        rules = GAMES[game.slug]
        level = level_for(game, seat)
        if game.status != "active" or game.state is None or level is None:
            return game.ply, None, None
        if not rules.may_act(game.state, seat_no):
            return game.ply, None, None
        state = viewed_state(session, game)  # the bot sees every round its seat saw
        # The bot sees the seat's view only; its rng comes from the game's seed and the ply.
        started = time.perf_counter()
        move = decide(rules, state, seat_no, level, game.seed)
        metrics.DECISIONS.labels(game.slug, level).observe(time.perf_counter() - started)
        return game.ply, rules.turn_token(state, seat_no), move


def _apply(
    engine: Engine, site: Site, game_id: int, seat_no: int, worked: Any, now: datetime,
    until: datetime,
) -> bool:  # fmt: skip
    """Apply a claimed seat's worked-out move, if the claim is still this worker's: whether
    a move was made. The claim ends with it."""
    ply, token, move = worked
    with write_session(engine) as session:
        game = lock_game(session, game_id)
        seat = seat_of(session, game_id, seat_no)
        if seat.computer_claimed_until != until:
            # The lease ran out and another worker took the seat: its decision stands.
            return False
        # Flushed before the move reads the table: the claim ends with this transaction.
        seat.computer_claimed_until = None
        session.add(seat)
        if move is None:
            if game.ply == ply:
                seat.computer_due_at = None  # not this seat's turn after all
            return False
        # A seat whose player left is marked so in the log, move by move.
        source = "left" if seat.left else "computer"
        submit_move(session, site, game_id, seat_no, move, token, now, source)
        # The move took the rows it read out of the session: read them again.
        game = lock_game(session, game_id)
        seat = seat_of(session, game_id, seat_no)
        rules = GAMES[game.slug]
        state = game.state
        if game.status == "active" and state and seat_no in rules.to_act(state):
            # Its turn again at once (more specials to play): after the delay too.
            seat.computer_due_at = now
        session.add(seat)
        return True


def move_claimed(
    engine: Engine, site: Site, claimed: list[tuple[int, int]], now: datetime,
    before: datetime, until: datetime,
) -> int:  # fmt: skip
    """Work out and make the moves of seats this worker claimed until `until`: how many."""
    done = 0
    for game_id, seat_no in claimed:
        try:
            worked = _work_out(engine, game_id, seat_no, before)
            if worked is None:
                _release(engine, game_id, seat_no, until)
            elif _apply(engine, site, game_id, seat_no, worked, now, until):
                done += 1
        except PlayError:
            # Someone moved meanwhile (a stale token) or the game ended: the seat, if still
            # due, is claimed and worked out again on a later round.
            _release(engine, game_id, seat_no, until)
        except Exception as exc:
            # Not the message: a bot's error could name a card of the hidden hand. The
            # lease is kept, so the seat is tried again once it is past, not in a loop.
            log.error("computer move in game %s, seat %s failed: %s", game_id, seat_no,
                      type(exc).__name__)  # fmt: skip
    return done


def sweep_computers(
    engine: Engine,
    site: Site,
    now: datetime,
    delay: timedelta,
    batch: int = 20,
    lease: timedelta = LEASE,
) -> int:
    """Claim the computer seats due for at least `delay`, a batch at a time, and make their
    moves; return how many were made."""
    done = 0
    before = now - delay
    for _ in range(MAX_ROUNDS):
        claimed = claim_due(engine, now, before, batch, lease)
        if not claimed:
            break
        done += move_claimed(engine, site, claimed, now, before, now + lease)
    return done
