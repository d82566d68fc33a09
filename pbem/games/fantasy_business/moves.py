"""Fantasy Business moves: checking a move and applying it, special cards included.

`apply_move` copies the state, applies the move, then lets `engine.run` carry the game
through the steps that need no decision.
"""

from __future__ import annotations

from typing import Any

from pbem.games.base import IllegalMove, State
from pbem.games.fantasy_business import auction as auc
from pbem.games.fantasy_business import orders
from pbem.games.fantasy_business.cards import ARTICLE_BY_ID
from pbem.games.fantasy_business.engine import (
    asked,
    clone,
    event,
    may_act,
    on_sale,
    run,
    step_name,
)
from pbem.games.fantasy_business.specials import carry_out, check_play

FIELDS: dict[str, set[str]] = {
    "choose": {"slot"},
    "bid": {"amount"},
    "pass": set(),
    "take": set(),
    "play": {"card", "target", "article"},
    "done": set(),
    "prices": {"prices"},
    "order": {"order"},
    "limits": {"limits"},
    "specials": {"plays"},
    "limit": {"amount"},
}


def parse(move: Any) -> str:
    """Check a move's shape and return its action."""
    if not isinstance(move, dict):
        raise IllegalMove("fb.malformed")
    action = move.get("action")
    if not isinstance(action, str):
        raise IllegalMove("fb.malformed")
    if action not in FIELDS:
        raise IllegalMove("fb.unknown_action", name=action[:40])
    extra = [str(k) for k in move if k != "action" and k not in FIELDS[action]]
    if extra:
        raise IllegalMove("fb.unknown_field", name=sorted(extra)[0][:40])
    return action


ACTIONS: dict[str, set[str]] = {
    "choose": {"choose"},
    "open": {"bid", "pass"},
    "sealed": {"bid"},
    "single": {"take", "pass"},
    "specials": {"play", "done"},
    "pricing": {"prices"},
    "order": {"order"},
    "limits": {"limits"},
    "lists": {"specials"},
    "antitrust_limits": {"limit"},
}


def refuse(state: State, seat: int) -> IllegalMove:
    """The error for a seat that may not move now, saying why."""
    step = step_name(state)
    if step == "over":
        return IllegalMove("error.game_over")
    if step == "choose":
        return IllegalMove("fb.wait_choose", first_seat=state["first"])
    if step in ("open", "sealed", "single"):
        auction = state["auction"]
        if auction["kind"] == "antitrust" and seat == auction["owner"]:
            return IllegalMove("fb.own_antitrust")
        if seat in state["won"] and auction["kind"] == "lot":
            return IllegalMove("fb.not_eligible")
        if step == "sealed":
            return IllegalMove("fb.already_bid")
        if seat not in auction["in"]:
            return IllegalMove("fb.out_of_auction")
        return IllegalMove("fb.wait_bid", turn_seat=auction["turn"])
    if step == "specials":
        return IllegalMove("fb.wait_specials", turn_seat=state["specials_order"][0])
    if step == "order":
        return IllegalMove("fb.wait_order", first_seat=state["first"])
    if step == "limits":
        return IllegalMove("fb.no_limits_needed")
    if step == "lists":
        return IllegalMove("fb.no_specials_held")
    if step == "antitrust_limits":
        if seat == state["auction"]["owner"]:
            return IllegalMove("fb.own_antitrust")
        return IllegalMove("fb.cannot_afford", base=state["auction"]["base"])
    return IllegalMove("fb.no_prices_needed")


def apply_move(state: State, seat: Any, move: Any) -> State:
    """Check and apply one move; return the new state (the given one is left untouched)."""
    if state["step"] == "over":
        raise IllegalMove("error.game_over")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state["n"]:
        raise IllegalMove("error.not_your_turn")
    if not may_act(state, seat):
        raise refuse(state, seat)
    action = parse(move)
    step = step_name(state)
    if action not in ACTIONS[step]:
        raise IllegalMove(f"fb.expect_{step}")
    new = _light_clone(state, seat, action) or clone(state)
    if action == "choose":
        _choose(new, move.get("slot"))
    elif action == "bid":
        auc.bid(new, seat, move.get("amount"))
    elif action == "pass":
        auc.pass_(new, seat)
    elif action == "take":
        auc.take(new, seat)
    elif action == "play":
        play_special(new, seat, move.get("card"), move.get("target"), move.get("article"))
    elif action == "done":
        new["specials_order"].pop(0)
        event(new, "done", seat=seat)
        new["step"] = "specials_next"
    elif action == "order":
        orders.set_order(new, move.get("order"))
    elif action == "limits":
        orders.set_limits(new, seat, move.get("limits"))
    elif action == "specials":
        orders.set_plays(new, seat, move.get("plays"))
    elif action == "limit":
        orders.set_antitrust_limit(new, seat, move.get("amount"))
    else:
        _set_prices(new, seat, move.get("prices"))
    new["ply"] += 1
    run(new)
    return new


# The simultaneous steps: the action, and where each seat's answer is kept.
_ANSWERS = {"limits": "limits", "specials": "plays", "prices": "prices", "limit": "auction"}


def _light_clone(state: State, seat: int, action: str) -> State | None:
    """A cheap copy for an answer in a simultaneous step while others are still to answer.

    Such a move only sets the seat's own answer (and the log), so only that list is copied;
    None when the move may complete the step (then everything may change).
    """
    key = _ANSWERS.get(action)
    if key is None:
        return None
    answers = state["auction"]["limits"] if key == "auction" else state[key]
    if all(answers[s] is not None for s in asked(state) if s != seat):
        return None
    new = dict(state)
    if key == "auction":
        new["auction"] = {**state["auction"], "limits": list(answers)}
    else:
        new[key] = list(answers)
    new["events"] = []
    return new


def _choose(state: State, slot: Any) -> None:
    row = state["row"]
    if isinstance(slot, bool) or not isinstance(slot, int) or not 0 <= slot < len(row):
        raise IllegalMove("fb.bad_slot", count=len(row))
    if slot not in state["pending"]:
        raise IllegalMove("fb.slot_done", number=slot + 1)
    # Spec, A round, 2: the first buyer picks the next card to auction.
    auc.start_lot(state, slot, auto=False)


def _set_prices(state: State, seat: int, prices: Any) -> None:
    if not isinstance(prices, dict):
        raise IllegalMove("fb.prices_not_object")
    selling = on_sale(state, seat)
    for article in prices:
        if not isinstance(article, str) or article not in ARTICLE_BY_ID:
            raise IllegalMove("fb.unknown_article", name=str(article)[:40])
        if article not in selling:
            raise IllegalMove("fb.price_not_owned", article_card=article)
    chosen: dict[str, int] = {}
    for article in selling:
        if article not in prices:
            raise IllegalMove("fb.price_missing", article_card=article)
        price = prices[article]
        base = ARTICLE_BY_ID[article].base
        if isinstance(price, bool) or not isinstance(price, int):
            raise IllegalMove("fb.price_not_int", article_card=article)
        # Spec, A round, 4: a whole number from the base price to twice the base price.
        if not base <= price <= 2 * base:
            raise IllegalMove("fb.price_range", article_card=article, low=base, high=2 * base)
        chosen[article] = price
    revised = state["prices"][seat] is not None
    state["prices"][seat] = chosen
    event(state, "prices_set", seat=seat, prices=chosen, revised=revised)
    if all(state["prices"][s] is not None for s in asked(state)):
        state["step"] = "income"


def play_special(state: State, seat: int, card: Any, target: Any, article: Any) -> None:
    """Spec, Special cards: play one special card, which is then discarded face up."""
    play = check_play(state, seat, card, target, article)
    cards = carry_out(state, play)
    if cards:
        state["auction"] = {
            "kind": "antitrust",
            "owner": play["target"],
            "article": play["article"],
            "queue": cards,
            "number": 0,
            "total": len(cards),
            "slot": None,
        }
        state["step"] = "antitrust_next"
    else:
        state["step"] = "specials_next"
