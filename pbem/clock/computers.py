"""The clock's sweep for computer moves: never inside a web request.

Each seat due (`Seat.computer_due_at` older than the delay, so the table sees the moves
arrive) has its move worked out from the seat's view outside any transaction, then
applied in its own transaction through `moves.submit_move`, as a timeout is applied; if
someone moved meanwhile, the move is worked out again.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import select

from pbem.bots import decide
from pbem.games import GAMES
from pbem.models import Game, Seat, level_for
from pbem.moves import submit_move
from pbem.storage.db import read_session, write_session
from pbem.storage.store import lock_game, seat_of

MAX_ROUNDS = 50  # a sweep stops after this many batches even if more keeps falling due


def _due(engine: Engine, before: datetime, batch: int) -> list[tuple[int, int]]:
    query = (
        select(Seat.game_id, Seat.seat)
        .where(Seat.computer_due_at <= before)  # type: ignore[operator]
        .order_by(Seat.computer_due_at)  # type: ignore[arg-type]
        .limit(batch)
    )
    with read_session(engine) as session:
        return [(g, s) for g, s in session.exec(query).all()]


def _work_out(engine: Engine, game_id: int, seat_no: int, before: datetime) -> Any:
    """(ply, token, move) for a seat still due, (ply, None, None) if it is not, or None."""
    with read_session(engine) as session:
        game = session.get(Game, game_id)
        seat = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == seat_no)).one()
        if game is None or seat.computer_due_at is None or seat.computer_due_at > before:
            return None
        rules = GAMES[game.slug]
        level = level_for(game, seat)
        state = game.state
        if game.status != "active" or state is None or level is None:
            return game.ply, None, None
        if not rules.may_act(state, seat_no):
            return game.ply, None, None
        # The bot sees the seat's view only; its rng comes from the game's seed and the ply.
        move = decide(rules, state, seat_no, level, game.seed)
        return game.ply, rules.turn_token(state, seat_no), move


def sweep_computers(
    engine: Engine, site: Any, now: datetime, delay: timedelta, batch: int = 20
) -> int:
    """Make every computer move due for at least `delay`; return how many were made."""
    done = 0
    before = now - delay
    previous: list[tuple[int, int]] | None = None
    for _ in range(MAX_ROUNDS):
        due = _due(engine, before, batch)
        if not due or due == previous:
            break
        previous = due
        for game_id, seat_no in due:
            worked = _work_out(engine, game_id, seat_no, before)
            if worked is None:
                continue
            ply, token, move = worked
            with write_session(engine) as session:
                game = lock_game(session, game_id)
                if game.ply != ply:
                    continue  # someone moved meanwhile: work it out again next round
                seat = session.exec(
                    select(Seat).where(Seat.game_id == game_id, Seat.seat == seat_no)
                ).one()
                if move is None:
                    seat.computer_due_at = None
                    session.add(seat)
                    continue
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
                done += 1
    return done
