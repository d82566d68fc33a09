"""Fantasy Business, the orders auction (Spec, Playing by mail): a round in a few waits.

The first buyer gives the order of sale; every player who may buy sets a limit per card,
secretly and at once; the server works the sale out card by card. Specials are listed by
every holder at once and carried out clockwise; an Antitrust sale is sold by limits too.
All functions here change an already copied state in place and append to its events.
"""

from __future__ import annotations

from typing import Any

from pbem.games.base import IllegalMove, State
from pbem.games.fantasy_business.auction import clockwise, event
from pbem.games.fantasy_business.cards import article_base, base_price, is_special
from pbem.games.fantasy_business.specials import carry_out, check_play, skip, why_invalid

MAX_PLAYS_FIELDS = {"card", "target", "article"}


def _one(key: str, number: int) -> str:
    return f"{key}_1" if number == 1 else key


def settle_card(
    base: int, limits: list[tuple[int, int]], money: list[int]
) -> tuple[int | None, int | None]:
    """The winner and price of one card sold by limits; (None, None) when nobody bids.

    `limits` is (seat, limit) in tie-break order. Spec, Playing by mail, 4: a limit above the
    écus held counts as the écus held; bidders are those whose limit reaches the base price;
    one bidder pays the base price; else the highest limit wins at the second highest plus 1,
    never more than their own limit; equal highest limits go to the first in order.
    """
    bidders = []
    for seat, limit in limits:
        capped = min(limit, money[seat])
        if capped >= base:
            bidders.append((capped, seat))
    if not bidders:
        return None, None
    if len(bidders) == 1:
        return bidders[0][1], base
    best = max(capped for capped, _ in bidders)
    winner = next(seat for capped, seat in bidders if capped == best)
    second = max(capped for capped, seat in bidders if seat != winner)
    return winner, min(second + 1, best)


# --- order of sale ---------------------------------------------------------------------


def start_round(state: State) -> None:
    """After the reveal: the first buyer orders the row (nothing to order with one card)."""
    state["order"] = list(range(len(state["row"])))
    # The row as everyone may name it, noted once for the log lines of the round.
    state["shown_row"] = [public_card(card) for card in state["row"]]
    state["limits"] = [None] * state["n"]
    state["plays"] = [None] * state["n"]
    if len(state["row"]) > 1:
        state["step"] = "order"
    else:
        state["history"][-1]["order"] = list(state["order"])
        state["step"] = "limits_start"


def public_card(card: str) -> str:
    """A row card as everyone may name it: a face-down special is just "special"."""
    return "special" if is_special(card) else card


def set_order(state: State, order: Any) -> None:
    """Spec, Playing by mail, 2: the first buyer gives the order of sale, a permutation."""
    row = state["row"]
    if not isinstance(order, list) or any(
        isinstance(s, bool) or not isinstance(s, int) for s in order
    ):
        raise IllegalMove("fb.order_not_list", count=len(row))
    if sorted(order) != list(range(len(row))):
        raise IllegalMove("fb.order_not_permutation", count=len(row))
    state["order"] = list(order)
    state["history"][-1]["order"] = list(order)
    event(
        state,
        "order_set",
        seat=state["first"],
        cards=[public_card(row[slot]) for slot in order],
    )
    state["step"] = "limits_start"


# --- limits and the sale ---------------------------------------------------------------


def limit_seats(state: State) -> list[int]:
    """Spec, Playing by mail, 3: the players who may buy something of the row, clockwise."""
    row = state["row"]
    if not row:
        return []
    cheapest = min(base_price(card) for card in row)
    return [
        s
        for s in clockwise(state, state["first"])
        if s not in state["won"] and state["money"][s] >= cheapest
    ]


def start_limits(state: State) -> None:
    """Open the limits step, or work the sale out at once when nobody can buy."""
    state["limits"] = [None] * state["n"]
    # Nobody's écus change while limits are set: who is asked is noted once.
    state["asked"] = limit_seats(state)
    if state["asked"]:
        state["step"] = "limits"
        event(state, "limits_start")
    else:
        sale(state)


def set_limits(state: State, seat: int, limits: Any) -> None:
    """Spec, Playing by mail, 3: a limit per card, 0 or from its base price to the écus held."""
    row = state["row"]
    if not isinstance(limits, list) or len(limits) != len(row):
        raise IllegalMove("fb.limits_not_list", count=len(row))
    money = state["money"][seat]
    for slot, limit in enumerate(limits):
        if limit.__class__ is not int:  # a bool is not a number of écus either
            raise IllegalMove("fb.limit_not_int", number=slot + 1)
        if limit == 0:
            continue
        base = base_price(row[slot])
        if not base <= limit <= money:
            if limit > money and money >= base:
                raise IllegalMove(_one("fb.limit_too_high", money), number=slot + 1, money=money)
            if limit > money:
                raise IllegalMove("fb.limit_cannot_afford", number=slot + 1, base=base)
            raise IllegalMove(_one("fb.limit_too_low", base), number=slot + 1, base=base)
    revised = state["limits"][seat] is not None
    state["limits"][seat] = list(limits)
    cards = state.get("shown_row") or [public_card(card) for card in row]
    event(
        state,
        "limits_set",
        seat=seat,
        limits=list(limits),
        cards=cards,
        revised=revised,
        order=list(state["order"]),  # the log lists the limits as the form does
    )
    if all(state["limits"][s] is not None for s in state["asked"]):
        sale(state)


def sale(state: State) -> None:
    """Spec, Playing by mail, 4: the sale worked out card by card, in the order of sale."""
    row, limits, money = state["row"], state["limits"], state["money"]
    record = state["history"][-1]
    record["order"] = list(state["order"])
    for slot in state["order"]:
        card = row[slot]
        base = base_price(card)
        # Eligible: the players who have not won a card this round, clockwise from the
        # first buyer, which is the tie-break order.
        eligible = [s for s in clockwise(state, state["first"]) if s not in state["won"]]
        given = [(s, limits[s][slot] if limits[s] is not None else 0) for s in eligible]
        winner, price = settle_card(base, given, money)
        bids = [[s, limit or None] for s, limit in given]
        lot = {
            "slot": slot,
            "card": card,
            "mode": "orders",
            "winner": winner,
            "price": price,
            "bids": bids,
        }
        record["lots"].append(lot)
        event(state, "sold", slot=slot, card=card, base=base, bids=bids, seat=winner, price=price)
        if winner is None or price is None:
            # No bidder: the card is discarded (a face-down special stays unseen).
            (state["unseen"] if is_special(card) else state["discard"]).append(card)
            continue
        money[winner] -= price
        (state["specials"] if is_special(card) else state["articles"])[winner].append(card)
        state["won"].append(winner)
        record["ledger"][winner].append(
            {"what": "auction", "amount": -price, "card": None if is_special(card) else card}
        )
    state["pending"] = []
    state["step"] = "specials_start"


# --- specials as lists -------------------------------------------------------------------


def start_plays(state: State) -> None:
    """Spec, Playing by mail, 5: every holder of specials lists their plays, all at once."""
    state["plays"] = [None] * state["n"]
    state["queue"] = []
    state["asked"] = holders(state)
    if state["asked"]:
        state["step"] = "lists"
        event(state, "lists_start")
    else:
        state["step"] = "pricing_start"


def holders(state: State) -> list[int]:
    """The seats holding special cards, clockwise from the first buyer."""
    return [s for s in clockwise(state, state["first"]) if state["specials"][s]]


def set_plays(state: State, seat: int, plays: Any) -> None:
    """Check a list of plays against the state now and keep it (revisable until all are in)."""
    if not isinstance(plays, list) or len(plays) > len(state["specials"][seat]):
        raise IllegalMove("fb.plays_not_list")
    checked: list[dict[str, Any]] = []
    for play in plays:
        if not isinstance(play, dict) or "card" not in play:
            raise IllegalMove("fb.plays_not_list")
        extra = sorted(str(k) for k in play if k not in MAX_PLAYS_FIELDS)
        if extra:
            raise IllegalMove("fb.unknown_field", name=extra[0][:40])
        if any(p["card"] == play["card"] for p in checked):
            raise IllegalMove("fb.play_twice", card=play["card"])
        checked.append(
            check_play(state, seat, play["card"], play.get("target"), play.get("article"))
        )
    revised = state["plays"][seat] is not None
    state["plays"][seat] = checked
    event(state, "lists_set", seat=seat, plays=checked, revised=revised)
    if all(state["plays"][s] is not None for s in state["asked"]):
        # Carried out in clockwise order from the first buyer, each list in its own order.
        state["queue"] = [play for s in state["asked"] for play in state["plays"][s]]
        event(state, "lists_open")
        state["step"] = "carry_out"


def carry_on(state: State) -> None:
    """Carry out the listed plays in turn, until an Antitrust sale needs limits or all are done."""
    queue = state["queue"]
    while queue:
        play = queue.pop(0)
        why = why_invalid(state, play)
        if why is not None:
            skip(state, play, why)
            continue
        cards = carry_out(state, play)
        if cards:
            start_antitrust(state, play["target"], play["article"], cards)
            return
    state["step"] = "pricing_start"


# --- the Antitrust sale by limits ------------------------------------------------------------


def start_antitrust(state: State, owner: int, article: str, cards: list[str]) -> None:
    """Spec, Playing by mail, 6: the other players each set one limit, secretly, at once."""
    state["auction"] = {
        "kind": "antitrust",
        "mode": "limits",
        "owner": owner,
        "article": article,
        "cards": list(cards),
        "base": article_base(article),
        # Spec, Rulings: everyone but the named player, winners of this round included;
        # ties go clockwise from the left of the named player.
        "eligible": clockwise(state, owner)[1:],
        "limits": [None] * state["n"],
        "total": len(cards),
        "slot": None,
    }
    state["asked"] = antitrust_seats(state)
    if state["asked"]:
        state["step"] = "antitrust_limits"
        event(state, "antitrust_start", owner=owner, article=article, count=len(cards))
    else:
        antitrust_sale(state)


def antitrust_seats(state: State) -> list[int]:
    """The players who must set a limit in the Antitrust sale: those who can pay the base."""
    auction = state["auction"]
    return [s for s in auction["eligible"] if state["money"][s] >= auction["base"]]


def set_antitrust_limit(state: State, seat: int, amount: Any) -> None:
    """One limit per card for the Antitrust sale: 0 or from the base price to the écus held."""
    auction = state["auction"]
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise IllegalMove("fb.amount_not_int")
    money, base = state["money"][seat], auction["base"]
    if amount != 0 and amount < base:
        raise IllegalMove(_one("fb.sealed_too_low", base), base=base)
    if amount > money:
        raise IllegalMove(_one("fb.bid_too_high", money), money=money)
    revised = auction["limits"][seat] is not None
    auction["limits"][seat] = amount
    event(state, "antitrust_limit_set", seat=seat, amount=amount, revised=revised)
    if all(auction["limits"][s] is not None for s in state["asked"]):
        antitrust_sale(state)


def antitrust_sale(state: State) -> None:
    """The cards sold one by one by the limits; the named player receives the money."""
    auction = state["auction"]
    owner, base, money = auction["owner"], auction["base"], state["money"]
    record = state["history"][-1]
    given = [(s, auction["limits"][s] or 0) for s in auction["eligible"]]
    bids = [[s, limit or None] for s, limit in given]
    for number, card in enumerate(auction["cards"], start=1):
        # A limit above the écus a player still holds counts as the écus held.
        winner, price = settle_card(base, given, money)
        # The écus each bidder held as this card was sold (public): why_sold reads a tie or
        # a second highest limit through them.
        held = [[seat, money[seat]] for seat, _ in given]
        lot = {"slot": None, "card": card, "mode": "limits", "winner": winner, "price": price}
        lot["bids"] = [list(entry) for entry in bids]
        lot["held"] = held
        record["played"][-1]["sales"].append(lot)
        event(
            state,
            "antitrust_sold",
            card=card,
            base=base,
            bids=bids,
            held=held,
            seat=winner,
            price=price,
            owner=owner,
            number=number,
            total=auction["total"],
        )
        if winner is None or price is None:
            state["discard"].append(card)
            continue
        money[winner] -= price
        money[owner] += price
        state["articles"][winner].append(card)
        record["ledger"][winner].append({"what": "antitrust_buy", "amount": -price, "card": card})
        record["ledger"][owner].append({"what": "antitrust_sale", "amount": price, "card": card})
    state["auction"] = None
    state["step"] = "carry_out"
