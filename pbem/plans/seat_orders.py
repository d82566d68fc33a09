"""A Fantasy Business seat's standing orders, kept and read: secret to the seat that set them.

The orders' rules are pbem.games.fantasy_business.standing; the move path (pbem.moves)
plays the moves they decide. They are kept on the seat's row (Seat.ahead, as
{"standing": {...}}: the same secret column as a Colour Bazaar plan ahead).
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from pbem.errors import Gone
from pbem.games.fantasy_business import FantasyBusiness
from pbem.games.fantasy_business.standing import check_orders
from pbem.models import Game, Seat
from pbem.storage.store import lock_game, seat_of


def orders_of(seat: Seat) -> dict[str, Any]:
    """The seat's standing orders ({} when none)."""
    return dict((seat.ahead or {}).get("standing") or {})


def may_order(game: Game) -> bool:
    """True in a Fantasy Business game under way: orders may be set or cancelled any time."""
    return game.slug == FantasyBusiness.slug and game.status == "active"


def set_orders(session: Session, game_id: int, seat_no: int, orders: Any) -> dict[str, Any]:
    """Replace the seat's standing orders by `orders`, checked ({} cancels them all); the
    orders as kept. Raises Gone outside a Fantasy Business game under way, IllegalMove for
    orders that cannot be kept."""
    game = lock_game(session, game_id)
    kept = check_orders(orders)
    if not kept:
        cancel_orders(session, game_id, seat_no)  # cancelling is always allowed
        return kept
    if not may_order(game):
        raise Gone("standing.error.not_now")
    seat = seat_of(session, game_id, seat_no)
    seat.ahead = {"standing": kept} if kept else None
    session.add(seat)
    return kept


def standing_json(game: Game, seat: Seat) -> dict[str, Any]:
    """The seat's orders for the API: may it set them now, and the orders kept."""
    kept = orders_of(seat)
    return {
        "may_order": may_order(game),
        "pass_above": kept.get("pass_above"),
        "base_prices": bool(kept.get("base_prices")),
    }


def cancel_orders(session: Session, game_id: int, seat_no: int) -> None:
    """Cancel the seat's standing orders (at any time; a plan ahead it holds stays)."""
    seat = seat_of(session, game_id, seat_no)
    rest = {k: v for k, v in (seat.ahead or {}).items() if k != "standing"}
    seat.ahead = rest or None
    session.add(seat)
