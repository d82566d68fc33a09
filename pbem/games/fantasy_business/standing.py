"""Standing orders in Fantasy Business: a seat's input decided in advance for the rest of
the game, where it fits the steps (issue 34), pure rules.

Two orders, each set and cancelled at any time:
  - "pass_above": N: pass on every lot whose price is above N écus: in an open auction,
    pass once the lowest bid allowed is above N; in a single offer, a sealed bid or an
    Antitrust sale, pass (or bid 0) on a card whose base price is above N; in the orders
    auction, limit 0 on every card above N (which decides the step only when every card
    of the row is above N).
  - "base_prices": true: price each article at its base price.
`standing_move` gives the move the orders decide for a seat at the step the game is in,
or None when they do not decide the whole of it (the seat is then waited for as usual).
"""

from __future__ import annotations

from typing import Any

from pbem.games.base import IllegalMove, Move, State
from pbem.games.fantasy_business import engine
from pbem.games.fantasy_business.auction import min_bid
from pbem.games.fantasy_business.cards import article_base, base_price

SLUG = "fantasy-business"
KEYS = ("pass_above", "base_prices")
MOST = 1000  # no lot costs this much: a larger N is a slip


def check_orders(orders: Any) -> dict[str, Any]:
    """The orders as kept: known keys only, N a whole number, base_prices true or left out.
    IllegalMove ("standing.error.*") for anything else; {} cancels every order."""
    if not isinstance(orders, dict) or set(orders) - set(KEYS):
        raise IllegalMove("standing.error.shape")
    kept: dict[str, Any] = {}
    above = orders.get("pass_above")
    if above is not None:
        if isinstance(above, bool) or not isinstance(above, int) or not 0 <= above <= MOST:
            raise IllegalMove("standing.error.amount", most=MOST)
        kept["pass_above"] = above
    base = orders.get("base_prices")
    if base not in (None, False, True):
        raise IllegalMove("standing.error.shape")
    if base:
        kept["base_prices"] = True
    return kept


def standing_move(state: State, seat: int, orders: dict[str, Any] | None) -> Move | None:
    """The move `seat`'s standing orders decide now, or None (nothing set, or not all of the
    seat's input at this step)."""
    # Only a seat the step waits on: one that set its prices may revise them, not be re-set.
    if not orders or seat not in engine.to_act(state):
        return None
    step = engine.step_name(state)
    above = orders.get("pass_above")
    auction = state.get("auction") or {}
    if step == "pricing" and orders.get("base_prices"):
        selling = engine.on_sale(state, seat)
        return {"action": "prices", "prices": {a: article_base(a) for a in selling}}
    if above is None:
        return None
    if step == "open" and min_bid(auction) > above:
        return {"action": "pass"}
    if step == "single" and auction["base"] > above:
        return {"action": "pass"}
    if step == "sealed" and auction["base"] > above:
        return {"action": "bid", "amount": 0}
    if step == "antitrust_limits" and auction["base"] > above:
        return {"action": "limit", "amount": 0}
    if step == "limits" and all(base_price(card) > above for card in state["row"]):
        return {"action": "limits", "limits": [0 for _ in state["row"]]}
    return None
