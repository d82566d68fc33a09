"""Why a card of a Fantasy Business round went where it went, read back from its sale record.

The record (a lot: mode, bids or limits in tie-break order, winner, price, and for an
Antitrust sale the écus each bidder held) is all that is needed, so old games read the same.
Each reason is a Message whose key says which rule decided, with the figures that show it
(Spec, A round, 2, and Playing by mail, 4 and 6).
"""

from __future__ import annotations

from typing import Any

from pbem.games.message import Message


def why_sold(lot: dict[str, Any], base: int, owner: int | None = None) -> Message:
    """The rule that gave `lot` its winner and price; `owner` is the named player of an
    Antitrust sale (its ties count from their left)."""
    mode, winner, price = lot["mode"], lot["winner"], lot["price"]
    if winner is None or price is None:
        if mode == "open":
            return Message("fb.why.all_passed")
        return Message("fb.why.declined" if mode == "single" else "fb.why.none")
    if mode == "open":
        # Spec, A round, 2: the bidder wins when every other eligible player has passed.
        return Message("fb.why.last_bid")
    if mode == "single":
        # Spec, A round, 2: the last card with a single eligible player, taken at base.
        return Message("fb.why.single")
    # Spec, Playing by mail, 4: a limit above the écus a player holds counts as those écus.
    held = dict((seat, money) for seat, money in lot.get("held") or [])
    order = [seat for seat, _ in lot["bids"]]
    counted = [
        (seat, min(amount, held.get(seat, amount)))
        for seat, amount in lot["bids"]
        if amount is not None
    ]
    bidders = [(seat, amount) for seat, amount in counted if amount >= base]
    mine = dict(bidders).get(winner, price)
    # Equal highest limits go to the first of them in order: one before the winner with
    # the same figure can only have held less (a record without the écus held).
    after = order[order.index(winner) + 1 :] if winner in order else []
    tied = [seat for seat, amount in bidders if amount == mine and seat in after]
    if mode == "sealed":
        if tied:
            return Message("fb.why.sealed_tie", {"price": price, "tied_seats": tied})
        return Message("fb.why.sealed_highest")
    if len(bidders) == 1 and price == base:
        return Message("fb.why.alone")
    if tied and price == mine:
        if owner is not None:
            params = {"price": price, "tied_seats": tied, "owner_seat": owner}
            return Message("fb.why.tie_antitrust", params)
        return Message("fb.why.tie", {"price": price, "tied_seats": tied})
    second = [seat for seat, amount in bidders if seat != winner and amount == price - 1]
    if second:
        return Message("fb.why.second", {"second_seat": second[0], "second": price - 1})
    # Old records of an Antitrust sale, without the écus held: the rule, without figures.
    return Message("fb.why.capped")


def short_of(lot: dict[str, Any]) -> list[Message]:
    """For each bidder whose limit counted as fewer écus (they held less), a line saying so."""
    held = dict((seat, money) for seat, money in lot.get("held") or [])
    return [
        Message("fb.why.held", {"seat": seat, "amount": held[seat]})
        for seat, amount in lot["bids"]
        if amount is not None and seat in held and held[seat] < amount
    ]
