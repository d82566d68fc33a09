"""Standing orders played at once: kept, then the move they decide at the step under way
goes through the one move path. The caller owns the transaction."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session

from pbem.games import GAMES
from pbem.games.fantasy_business.standing import standing_move
from pbem.moves import plan_move, read_table, write_move
from pbem.moves.prepare import prepare_move
from pbem.plans import seat_orders
from pbem.site import Site


def keep_orders(
    session: Session, site: Site, game_id: int, seat_no: int, orders: Any, now: datetime
) -> dict[str, Any]:
    """Keep a seat's standing orders (pbem.plans.seat_orders) and play at once what they
    decide at the step under way; the orders as kept. In the caller's write transaction;
    Gone outside a Fantasy Business game under way, IllegalMove for wrong orders."""
    kept = seat_orders.set_orders(session, game_id, seat_no, orders)
    play_standing(session, site, game_id, seat_no, now)
    return kept


def play_standing(session: Session, site: Site, game_id: int, seat_no: int, now: datetime) -> bool:
    """Play at once the move a seat's standing orders, just set, decide at the step under way,
    through the one move path (in the caller's write transaction); True when one was played."""
    read = read_table(session, game_id, now)
    game, seat = read.game, read.seats[seat_no]
    if game.status != "active" or game.state is None:
        return False
    decided = standing_move(game.state, seat_no, (seat.ahead or {}).get("standing"))
    if decided is None or game.slug != "fantasy-business":
        return False
    token = GAMES[game.slug].turn_token(game.state, seat_no)
    prepared = prepare_move(game, len(read.seats), seat_no, decided, token, "standing")
    write_move(session, site, prepared, plan_move(site, read, prepared, now), now)
    return True
