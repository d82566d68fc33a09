"""Fantasy Business moves: checking a move and applying it, special cards included.

`apply_move` copies the state, applies the move, then lets `engine.run` carry the game
through the steps that need no decision.
"""

from __future__ import annotations

from typing import Any

from pbem.games.base import IllegalMove, State
from pbem.games.fantasy_business import auction as auc
from pbem.games.fantasy_business.cards import (
    ALL_CARD_IDS,
    ARTICLE_BY_ID,
    KIND_BY_ID,
    card_type,
)
from pbem.games.fantasy_business.engine import (
    clone,
    event,
    may_act,
    monopolies,
    must_price,
    on_sale,
    run,
    step_name,
)

FIELDS: dict[str, set[str]] = {
    "choose": {"slot"},
    "bid": {"amount"},
    "pass": set(),
    "take": set(),
    "play": {"card", "target", "article"},
    "done": set(),
    "prices": {"prices"},
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
    new = clone(state)
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
    else:
        _set_prices(new, seat, move.get("prices"))
    new["ply"] += 1
    run(new)
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
    if all(state["prices"][s] is not None for s in must_price(state)):
        state["step"] = "income"


def _target(state: State, seat: int, card: str, target: Any) -> int:
    if target is None:
        raise IllegalMove("fb.target_needed", card=card)
    if isinstance(target, bool) or not isinstance(target, int) or not 0 <= target < state["n"]:
        raise IllegalMove("fb.bad_target", count=state["n"])
    if target == seat:
        raise IllegalMove("fb.target_self", card=card)
    return target


def _held_article(state: State, card: str, target: int, article: Any) -> str:
    if article is None:
        raise IllegalMove("fb.article_needed", card=card)
    if not isinstance(article, str) or article not in ARTICLE_BY_ID:
        raise IllegalMove("fb.unknown_article", name=str(article)[:40])
    if not any(card_type(c) == article for c in state["articles"][target]):
        raise IllegalMove("fb.target_lacks", target_seat=target, article_card=article)
    return article


def play_special(state: State, seat: int, card: Any, target: Any, article: Any) -> None:
    """Spec, Special cards: play one special card, which is then discarded face up."""
    if not isinstance(card, str) or card not in ALL_CARD_IDS:
        raise IllegalMove("fb.unknown_card", name=str(card)[:40])
    kind = card_type(card)
    if kind not in KIND_BY_ID:
        raise IllegalMove("fb.not_special", card=card)
    if card not in state["specials"][seat]:
        raise IllegalMove("fb.not_held", card=card)
    record: dict[str, Any] = {
        "seat": seat,
        "card": card,
        "kind": kind,
        "target": None,
        "article": None,
    }
    if kind in ("subsidy", "defaulting") and article is not None:
        raise IllegalMove("fb.no_article", card=card)
    if kind == "subsidy":
        if target is not None:
            raise IllegalMove("fb.no_target", card=card)
        amount = state["table"]["subsidy"]["amount"]
        state["money"][seat] += amount
        record["amount"] = amount
        state["history"][-1]["ledger"][seat].append({"what": "subsidy", "amount": amount})
    elif kind == "theft":
        record["target"] = _target(state, seat, card, target)
        record["article"] = _held_article(state, card, record["target"], article)
        # Any card of the article will do; the thief takes the one the victim got last.
        victim = state["articles"][record["target"]]
        taken = next(c for c in reversed(victim) if card_type(c) == record["article"])
        victim.remove(taken)
        state["articles"][seat].append(taken)
        record["taken"] = taken
    elif kind == "defaulting":
        record["target"] = _target(state, seat, card, target)
        if record["target"] not in state["effects"]["defaulting"]:
            state["effects"]["defaulting"].append(record["target"])
    elif kind == "defective":
        record["target"] = _target(state, seat, card, target)
        record["article"] = _held_article(state, card, record["target"], article)
        pair = [record["target"], record["article"]]
        if pair not in state["effects"]["defective"]:
            state["effects"]["defective"].append(pair)
    else:
        _antitrust(state, seat, card, target, article, record)
    state["specials"][seat].remove(card)
    state["discard"].append(card)
    state["history"][-1]["played"].append(record)
    event(state, "played", **record)
    if record.get("cards"):
        state["auction"] = {
            "kind": "antitrust",
            "owner": record["target"],
            "article": record["article"],
            "queue": list(record["cards"]),
            "number": 0,
            "total": len(record["cards"]),
            "slot": None,
        }
        state["step"] = "antitrust_next"
    else:
        state["step"] = "specials_next"


def _antitrust(
    state: State, seat: int, card: str, target: Any, article: Any, record: dict[str, Any]
) -> None:
    # Spec, Special cards, antitrust: name a player who alone owns some article (any
    # player, the one who plays the card included); with no monopoly in play, no effect.
    held = monopolies(state)
    record["sales"] = []
    if target is None:
        if held:
            raise IllegalMove("fb.antitrust_target")
        if article is not None:
            raise IllegalMove("fb.target_needed", card=card)
        record["cards"] = []
        return
    if isinstance(target, bool) or not isinstance(target, int) or not 0 <= target < state["n"]:
        raise IllegalMove("fb.bad_target", count=state["n"])
    if target not in held:
        raise IllegalMove("fb.no_monopoly", target_seat=target)
    if article is None:
        # The article may be left out when the named player has a single monopoly.
        if len(held[target]) > 1:
            raise IllegalMove("fb.which_monopoly", target_seat=target)
        article = held[target][0]
    if not isinstance(article, str) or article not in ARTICLE_BY_ID:
        raise IllegalMove("fb.unknown_article", name=str(article)[:40])
    if article not in held[target]:
        raise IllegalMove("fb.not_monopoly", target_seat=target, article_card=article)
    cards = [c for c in state["articles"][target] if card_type(c) == article]
    state["articles"][target] = [c for c in state["articles"][target] if c not in cards]
    record.update(target=target, article=article, cards=cards)
