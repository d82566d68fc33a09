"""Why a card of a Fantasy Business round went where it went, read back from its sale record.

The record (a lot: mode, bids or limits in tie-break order, winner, price) is all that is
needed, so old games read the same. Each reason is a Message whose key says which rule
decided, with the figures that show it (Spec, A round, 2, and Playing by mail, 4 and 6).
"""

from __future__ import annotations

from typing import Any

from pbem.games.message import Message


def why_sold(lot: dict[str, Any], base: int, owner: int | None = None) -> Message:
    """The rule that gave `lot` its winner and price; `owner` is the named player of an
    Antitrust sale (its ties count from their left)."""
    mode, winner, price = lot["mode"], lot["winner"], lot["price"]
    bids = [(seat, amount) for seat, amount in lot["bids"] if amount is not None]
    if winner is None or price is None:
        if mode == "open":
            return Message("fb.why.all_passed")
        return Message("fb.why.none" if mode != "single" else "fb.why.declined")
    if mode == "open":
        # Spec, A round, 2: the bidder wins when every other eligible player has passed.
        return Message("fb.why.last_bid")
    if mode == "single":
        # Spec, A round, 2: the last card with a single eligible player, taken at base.
        return Message("fb.why.single")
    given = dict(bids)
    mine = given.get(winner, price)
    bidders = [(seat, amount) for seat, amount in bids if amount >= base]
    tied = [seat for seat, amount in bidders if amount == mine and seat != winner]
    if mode == "sealed":
        if tied:
            return Message("fb.why.sealed_tie", {"price": price, "tied_seats": tied})
        return Message("fb.why.sealed_highest")
    # Orders and Antitrust sales by limits (Spec, Playing by mail, 4 and 6).
    if len(bidders) == 1 and price == base:
        return Message("fb.why.alone")
    if tied and price == mine:
        # Equal highest limits: the first of them clockwise wins, at that limit.
        if owner is not None:
            params = {"price": price, "tied_seats": tied, "owner_seat": owner}
            return Message("fb.why.tie_antitrust", params)
        return Message("fb.why.tie", {"price": price, "tied_seats": tied})
    others = [(seat, amount) for seat, amount in bidders if seat != winner]
    if others:
        second = max(amount for _, amount in others)
        if price == second + 1:
            second_seat = next(seat for seat, amount in others if amount == second)
            return Message("fb.why.second", {"second_seat": second_seat, "second": second})
    # A limit above the écus a player still held counted as those écus (an Antitrust sale,
    # where one player may win several cards and their écus shrink between them).
    return Message("fb.why.capped")
