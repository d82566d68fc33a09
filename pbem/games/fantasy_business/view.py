"""Fantasy Business views: what one seat (or a spectator) may see of the state.

Spec, What each player sees: specials are known to their owner only (others see how
many each player holds); a face-down special nobody won is never shown; prices set but
not revealed are seen by their owner only; sealed bids stay hidden until resolved.
"""

from __future__ import annotations

from typing import Any

from pbem.games.base import State
from pbem.games.fantasy_business import engine
from pbem.games.fantasy_business.auction import min_bid
from pbem.games.fantasy_business.cards import ARTICLE_BY_ID, base_price, is_special
from pbem.games.fantasy_business.tally import counts, goods_value


def _shown(card: str | None, viewer: int | None, owner: int | None) -> str | None:
    """A card id as the viewer may see it: a special only to the seat that won it."""
    if card is None or not is_special(card):
        return card
    return card if viewer is not None and viewer == owner else None


def _lot_view(lot: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    return {
        "slot": lot["slot"],
        "card": _shown(lot["card"], viewer, lot["winner"]),
        "special": is_special(lot["card"]),
        "base": base_price(lot["card"]),
        "mode": lot["mode"],
        "winner": lot["winner"],
        "price": lot["price"],
        "bids": [list(entry) for entry in lot["bids"]],
        # An Antitrust sale's lots note the écus each bidder held (public, like all écus).
        "held": [list(entry) for entry in lot.get("held") or []],
    }


def _played_view(played: dict[str, Any]) -> dict[str, Any]:
    # A played special is discarded face up: everything about it is public.
    result = {k: json_copy(v) for k, v in played.items() if k not in ("cards", "sales")}
    if "cards" in played:
        result["cards"] = list(played["cards"])
        result["sales"] = [_lot_view(sale, None) for sale in played["sales"]]
    return result


def round_view(record: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """One round's record as `viewer` may see it."""
    lots = {lot["slot"]: lot for lot in record["lots"]}
    row = []
    for slot, card in enumerate(record["row"]):
        lot = lots.get(slot)
        status = "pending"
        if lot is not None:
            status = "won" if lot["winner"] is not None else "discarded"
        row.append(
            {
                "slot": slot,
                "card": _shown(card, viewer, lot["winner"] if lot else None),
                "special": is_special(card),
                "base": base_price(card),
                "status": status,
                "winner": lot["winner"] if lot else None,
                "price": lot["price"] if lot else None,
            }
        )
    return {
        "round": record["round"],
        "first": record["first"],
        # Orders mode: the order of sale, by slot, once the first buyer has given it.
        "order": list(record["order"]) if record.get("order") is not None else None,
        "row": row,
        "lots": [_lot_view(lot, viewer) for lot in record["lots"]],
        "played": [_played_view(p) for p in record["played"]],
        "effects": json_copy(record.get("effects")),
        # Prices and income are filled in when the round's prices are revealed.
        "prices": json_copy(record["prices"]),
        "income": json_copy(record["income"]),
        "ledger": json_copy(record["ledger"]),
    }


def _antitrust_limits_view(state: State, viewer: int | None) -> dict[str, Any]:
    """Spec, Playing by mail, 6: an Antitrust sale by limits; the limits stay secret."""
    auction = state["auction"]
    result: dict[str, Any] = {
        "kind": "antitrust",
        "mode": "limits",
        "slot": None,
        "card": auction["cards"][0],
        "special": False,
        "base": auction["base"],
        "eligible": list(auction["eligible"]),
        "waiting": engine.to_act(state),
        "owner": auction["owner"],
        "article": auction["article"],
        "cards": list(auction["cards"]),
        "total": auction["total"],
        "number": 1,
        "queue": list(auction["cards"][1:]),
        "limit_seats": engine.asked(state),
        "limit_in": [s for s in auction["eligible"] if auction["limits"][s] is not None],
    }
    if viewer is not None and viewer in auction["eligible"]:
        result["my_limit"] = auction["limits"][viewer]
    return result


def _auction_view(state: State, viewer: int | None) -> dict[str, Any] | None:
    auction = state["auction"]
    if state["step"] == "antitrust_limits":
        return _antitrust_limits_view(state, viewer)
    if state["step"] != "auction" or auction is None:
        return None
    mode = auction["mode"]
    result: dict[str, Any] = {
        "kind": auction["kind"],
        "mode": mode,
        "slot": auction.get("slot"),
        # An auctioned special is face down for everyone until it is won.
        "card": None if is_special(auction["card"]) else auction["card"],
        "special": is_special(auction["card"]),
        "base": auction["base"],
        "eligible": list(auction["eligible"]),
        "waiting": engine.to_act(state),
    }
    if mode == "sealed":
        # Spec, A round, 2: sealed bids are secret; only who has bid is shown.
        result["bid_in"] = [s for s in auction["eligible"] if auction["bids"][s] is not None]
        if viewer is not None and viewer in auction["eligible"]:
            result["my_bid"] = auction["bids"][viewer]
    else:
        result.update(
            bid=auction["bid"],
            bidder=auction["bidder"],
            still_in=list(auction["in"]),
            turn=auction["turn"],
            bids=[list(entry) for entry in auction["log"]],
        )
        if mode == "open":
            result["min_bid"] = min_bid(auction)
    if auction["kind"] == "antitrust":
        result.update(
            owner=auction["owner"],
            article=auction["article"],
            number=auction["number"],
            total=auction["total"],
            queue=list(auction["queue"]),
        )
    return result


def _my_view(state: State, seat: int) -> dict[str, Any]:
    selling = engine.on_sale(state, seat)
    ranges = {a: [ARTICLE_BY_ID[a].base, 2 * ARTICLE_BY_ID[a].base] for a in selling}
    mine: dict[str, Any] = {
        "seat": seat,
        "specials": list(state["specials"][seat]),
        "may_act": engine.may_act(state, seat) if state["step"] != "over" else False,
        "price_ranges": ranges,
        "prices": dict(state["prices"][seat]) if state["prices"][seat] else None,
        "default_prices": engine.default_prices(state, seat),
        "last_prices": dict(state["last_prices"][seat]),
    }
    auction = state["auction"]
    money = state["money"][seat]
    if state["step"] == "auction" and engine.may_act(state, seat):
        low = min_bid(auction) if auction["mode"] == "open" else auction["base"]
        mine["bid_range"] = [low, money] if low <= money else None
    step = state["step"]
    if step in ("limits", "lists", "antitrust_limits"):
        # Spec, Playing by mail: a seat sees its own limits and list, nobody else's.
        mine["limits"] = _own(state.get("limits"), seat)
        mine["plays"] = _own(state.get("plays"), seat)
    if step == "limits" and engine.may_act(state, seat):
        mine["limit_ranges"] = [
            [base_price(card), money] if money >= base_price(card) else None
            for card in state["row"]
        ]
    if step == "antitrust_limits" and engine.may_act(state, seat):
        mine["limit_range"] = [auction["base"], money]
        mine["limit"] = auction["limits"][seat]
    return mine


def _own(per_seat: list[Any] | None, seat: int) -> Any:
    if not per_seat or per_seat[seat] is None:
        return None
    return json_copy(per_seat[seat])


def _mark_auction(state: State, row: list[dict[str, Any]]) -> None:
    """The row's card under auction is shown as such."""
    auction = state["auction"]
    if state["step"] == "auction" and auction["kind"] == "lot":
        row[auction["slot"]]["status"] = "auction"


def build_view(
    state: State, seat: int | None, slug: str, rounds: int | None = None
) -> dict[str, Any]:
    """Everything a play page needs, and nothing `seat` may not see; of the history, the
    current round and the `rounds` before it (None: every round)."""
    n = state["n"]
    held = counts(state)
    players = [
        {
            "seat": s,
            "ecus": state["money"][s],
            "articles": held[s],
            "cards": list(state["articles"][s]),
            "goods_value": goods_value(state, s),
            "specials": len(state["specials"][s]),
            "won_this_round": s in state["won"],
            "priced": state["prices"][s] is not None,
            "on_sale": engine.on_sale(state, s),
        }
        for s in range(n)
    ]
    step = engine.step_name(state)
    # round_view builds fresh data, so the history is not copied again below: in a long game
    # it was most of the page's copying. The current round's row is the last record's.
    records = state["history"] if rounds is None else state["history"][-(rounds + 1) :]
    history = [round_view(record, seat) for record in records]
    result: dict[str, Any] = {
        "game": slug,
        "n": n,
        "seat": seat,
        "options": state["options"],
        "specials_table": state["table"],
        "round": state["round"],
        "rounds": state["rounds"],
        "first": state["first"],
        "step": step,
        "to_act": engine.to_act(state),
        "ply": state["ply"],
        "over": step == "over",
        "draw_count": len(state["deck"]),
        "discard": list(state["discard"]),
        "unseen_count": len(state["unseen"]),
        "players": players,
        "row": history[-1]["row"],
        "pending": list(state["pending"]),
        "auction": _auction_view(state, seat),
        "specials_turn": state["specials_order"][0] if step == "specials" else None,
        "effects": {
            "defaulting": list(state["effects"]["defaulting"]),
            "defective": [list(pair) for pair in state["effects"]["defective"]],
        },
        # Orders mode (Spec, Playing by mail): who may act and who has, never what.
        "limits": {
            "seats": engine.asked(state),
            "set": [s for s in range(n) if state["limits"][s] is not None],
        }
        if step == "limits"
        else None,
        "lists": {
            "holders": engine.asked(state),
            "set": [s for s in range(n) if state["plays"][s] is not None],
        }
        if step == "lists"
        else None,
        "pricing": {
            "sellers": engine.asked(state),
            "set": [s for s in range(n) if state["prices"][s] is not None],
        }
        if step == "pricing"
        else None,
        "scores": engine.scores(state),
    }
    if seat is not None:
        result["me"] = _my_view(state, seat)
    result = json_copy(result)  # the row copied too: marking it leaves the history alone
    _mark_auction(state, result["row"])
    result["history"] = history
    return result


def json_copy(data: Any) -> Any:
    """A fresh copy of plain data, so a view shares nothing with the state."""
    if isinstance(data, dict):
        return {k: json_copy(v) for k, v in data.items()}
    if isinstance(data, list):
        return [json_copy(v) for v in data]
    return data
