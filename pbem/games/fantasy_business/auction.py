"""Fantasy Business auctions: the round's lots and antitrust sales, open, sealed or single.

All functions here change an already copied state in place and append to its events.
"""

from __future__ import annotations

from typing import Any

from pbem.games.base import IllegalMove, State
from pbem.games.fantasy_business.cards import article_base, base_price, is_special


def event(state: State, name: str, /, **data: Any) -> None:
    """Note what happened, for the log lines of the move being applied."""
    state["events"].append({"e": name, **data})


def _one(key: str, number: int) -> str:
    # The singular variant of an error key: "1 écu", not "1 écus".
    return f"{key}_1" if number == 1 else key


def clockwise(state: State, start: int) -> list[int]:
    """All seats in clockwise (seat) order, beginning with `start`."""
    n = state["n"]
    return [(start + i) % n for i in range(n)]


def min_bid(auction: dict[str, Any]) -> int:
    """The lowest bid allowed now in an open auction."""
    # Spec, A round, 2: the base price for the first bid, else one écu over the current bid.
    bid: int | None = auction["bid"]
    base: int = auction["base"]
    return base if bid is None else bid + 1


def start_lot(state: State, slot: int, auto: bool) -> None:
    """Put a revealed card up for auction, in the mode the table and the rules call for."""
    state["pending"].remove(slot)
    card = state["row"][slot]
    # Spec, A round, 2: only players who have not won a card this round may bid, starting
    # with the first buyer if eligible, else the next eligible player clockwise.
    eligible = [s for s in clockwise(state, state["first"]) if s not in state["won"]]
    mode = state["options"]["auction"]
    if not state["pending"] and len(eligible) == 1:
        # Spec, A round, 2: last card with a single eligible player: take at base or decline.
        mode = "single"
    auction = {
        "kind": "lot",
        "mode": mode,
        "slot": slot,
        "card": card,
        "base": base_price(card),
        "eligible": eligible,
        "in": list(eligible),
        "bid": None,
        "bidder": None,
        "turn": eligible[0] if eligible else None,
        "bids": None,
        "log": [],
    }
    state["auction"] = auction
    state["step"] = "auction"
    event(
        state,
        "lot",
        seat=state["first"],
        slot=slot,
        card=card,
        base=auction["base"],
        mode=mode,
        auto=auto,
    )
    begin(state)


def start_antitrust_card(state: State) -> None:
    """Auction the next card of an antitrust sale, open, among all but the named player."""
    auction = state["auction"]
    card = auction["queue"].pop(0)
    owner = auction["owner"]
    # Spec, Special cards, antitrust: open auction at base price, starting left of the owner.
    eligible = clockwise(state, owner)[1:]
    auction.update(
        card=card,
        base=article_base(auction["article"]),
        eligible=eligible,
        mode="open",
        bid=None,
        bidder=None,
        turn=eligible[0],
        log=[],
        number=auction["number"] + 1,
    )
    auction["in"] = list(eligible)
    state["step"] = "auction"
    event(
        state,
        "sale",
        card=card,
        owner=owner,
        base=auction["base"],
        number=auction["number"],
        total=auction["total"],
    )
    begin(state)


def begin(state: State) -> None:
    """Open the bidding on the current card, settling at once whatever needs no decision."""
    auction = state["auction"]
    mode = auction["mode"]
    if not auction["eligible"]:
        unsold(state)
    elif mode == "open":
        settle_open(state)
    elif mode == "sealed":
        auction["bids"] = [None] * state["n"]
        for seat in auction["eligible"]:
            if state["money"][seat] < auction["base"]:
                # A player who cannot pay the base price can only bid 0: done for them.
                auction["bids"][seat] = 0
                event(state, "sealed_auto", seat=seat)
        settle_sealed(state)
    else:
        seat = auction["eligible"][0]
        event(state, "single", seat=seat, card=auction["card"], base=auction["base"])
        if state["money"][seat] < auction["base"]:
            event(state, "decline", seat=seat, auto=True)
            unsold(state)


def next_turn(auction: dict[str, Any], after: int) -> int | None:
    """The next bidder clockwise after `after`: still in, and not the current high bidder."""
    order = auction["eligible"]
    i = order.index(after)
    for k in range(1, len(order) + 1):
        seat: int = order[(i + k) % len(order)]
        if seat in auction["in"] and seat != auction["bidder"]:
            return seat
    return None


def settle_open(state: State) -> None:
    """End the open auction if it is over; pass for whoever cannot afford the next bid."""
    auction = state["auction"]
    while True:
        if auction["bidder"] is not None and auction["in"] == [auction["bidder"]]:
            # Spec, A round, 2: every other eligible player passed: the bidder wins and pays.
            sold(state, auction["bidder"], auction["bid"])
            return
        if not auction["in"]:
            # Spec, A round, 2: everyone passed without a bid: the card is discarded.
            unsold(state)
            return
        seat = auction["turn"]
        if state["money"][seat] >= min_bid(auction):
            return
        # Spec, A round, 2: nobody bids more écus than they hold; a pass is all that is left.
        auction["in"].remove(seat)
        auction["log"].append([seat, None])
        event(state, "pass", seat=seat, auto=True)
        auction["turn"] = next_turn(auction, seat)


def settle_sealed(state: State) -> None:
    """Resolve sealed bids once every eligible player has bid."""
    auction = state["auction"]
    bids = auction["bids"]
    if any(bids[seat] is None for seat in auction["eligible"]):
        return
    auction["log"] = [[seat, bids[seat]] for seat in auction["eligible"]]
    event(state, "sealed_open", bids=auction["log"])
    best = max(bids[seat] for seat in auction["eligible"])
    if best == 0:
        unsold(state)
        return
    # Spec, A round, 2: highest bid wins; a tie goes to the first clockwise from the first
    # buyer, which is the order of `eligible`.
    winner = next(seat for seat in auction["eligible"] if bids[seat] == best)
    sold(state, winner, best)


def bid(state: State, seat: int, amount: Any) -> None:
    """A bid in an open auction or a sealed bid."""
    auction = state["auction"]
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise IllegalMove("fb.amount_not_int")
    money = state["money"][seat]
    if auction["mode"] == "sealed":
        # Spec, A round, 2, sealed bids: 0 is no bid, else at least the base price.
        if amount != 0 and amount < auction["base"]:
            raise IllegalMove(_one("fb.sealed_too_low", auction["base"]), base=auction["base"])
        if amount > money:
            raise IllegalMove(_one("fb.bid_too_high", money), money=money)
        auction["bids"][seat] = amount
        event(state, "sealed_bid", seat=seat, amount=amount)
        settle_sealed(state)
        return
    minimum = min_bid(auction)
    if amount < minimum:
        raise IllegalMove(_one("fb.bid_too_low", minimum), minimum=minimum)
    if amount > money:
        raise IllegalMove(_one("fb.bid_too_high", money), money=money)
    auction["bid"] = amount
    auction["bidder"] = seat
    _logged(state, seat, amount, "bid", amount=amount)


def pass_(state: State, seat: int) -> None:
    """A pass in an open auction (final for this card), or declining the last card."""
    auction = state["auction"]
    if auction["mode"] == "single":
        event(state, "decline", seat=seat, auto=False)
        unsold(state)
        return
    auction["in"].remove(seat)
    _logged(state, seat, None, "pass", auto=False)


def _logged(state: State, seat: int, amount: int | None, kind: str, /, **said: Any) -> None:
    """An open auction's bid (`amount`) or pass (None) logged and told, then the turn moves
    on; settle_open ends the auction when it is over."""
    auction = state["auction"]
    auction["log"].append([seat, amount])
    event(state, kind, seat=seat, **said)
    auction["turn"] = next_turn(auction, seat)
    settle_open(state)


def take(state: State, seat: int) -> None:
    """Take the last card at its base price (the single eligible player)."""
    auction = state["auction"]
    if state["money"][seat] < auction["base"]:
        raise IllegalMove("fb.cannot_afford", base=auction["base"])
    sold(state, seat, auction["base"])


def sold(state: State, winner: int, price: int) -> None:
    """The winner pays and takes the card; for an antitrust sale the owner is paid."""
    auction = state["auction"]
    card = auction["card"]
    record = state["history"][-1]
    special = is_special(card)
    state["money"][winner] -= price
    (state["specials"] if special else state["articles"])[winner].append(card)
    if auction["kind"] == "lot":
        state["won"].append(winner)
        record["ledger"][winner].append(
            {"what": "auction", "amount": -price, "card": None if special else card}
        )
        record["lots"].append(_lot_record(auction, winner, price))
        event(state, "won", seat=winner, card=card, price=price)
        state["auction"] = None
        state["step"] = "lots"
        return
    owner = auction["owner"]
    state["money"][owner] += price
    record["ledger"][winner].append({"what": "antitrust_buy", "amount": -price, "card": card})
    record["ledger"][owner].append({"what": "antitrust_sale", "amount": price, "card": card})
    record["played"][-1]["sales"].append(_lot_record(auction, winner, price))
    event(state, "sale_won", seat=winner, card=card, price=price, owner=owner)
    state["step"] = "antitrust_next"


def unsold(state: State) -> None:
    """Nobody bought the card: it is discarded (a face-down special stays unseen)."""
    auction = state["auction"]
    card = auction["card"]
    record = state["history"][-1]
    if is_special(card):
        # Spec, What each player sees: a face-down special nobody won is never revealed.
        state["unseen"].append(card)
    else:
        state["discard"].append(card)
    event(state, "unsold", card=card)
    if auction["kind"] == "lot":
        record["lots"].append(_lot_record(auction, None, None))
        state["auction"] = None
        state["step"] = "lots"
    else:
        record["played"][-1]["sales"].append(_lot_record(auction, None, None))
        state["step"] = "antitrust_next"


def _lot_record(auction: dict[str, Any], winner: int | None, price: int | None) -> dict[str, Any]:
    return {
        "slot": auction.get("slot"),
        "card": auction["card"],
        "mode": auction["mode"],
        "winner": winner,
        "price": price,
        "bids": [list(entry) for entry in auction["log"]],
    }
