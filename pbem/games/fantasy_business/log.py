"""Fantasy Business log lines: the events of one move as a given viewer may read them."""

from __future__ import annotations

from typing import Any

from pbem.games.fantasy_business.cards import is_special
from pbem.games.fantasy_business.why import short_of, why_sold
from pbem.games.message import Message

# Reasons the sold line itself already gives ("the only bidder", "nobody bids").
_SAID = frozenset({"fb.why.alone", "fb.why.none"})


def one(key: str, number: int) -> str:
    """The key's singular variant ("_1") when the number is 1: "1 écu", not "1 écus"."""
    return f"{key}_1" if number == 1 else key


def _lot(ev: dict[str, Any]) -> list[Message]:
    special = is_special(ev["card"])
    params: dict[str, Any] = {"seat": ev["seat"], "base": ev["base"]}
    if not special:
        params["card"] = ev["card"]
    key = "fb.log.lot_last" if ev["auto"] else "fb.log.lot"
    if special:
        key = one(key + "_special", ev["base"])
    lines = [Message(key, params)]
    if ev["mode"] == "sealed":
        lines.append(Message("fb.log.sealed_start"))
    return lines


def _won(ev: dict[str, Any], viewer: int | None) -> Message:
    params = {"seat": ev["seat"], "price": ev["price"]}
    if not is_special(ev["card"]):
        return Message("fb.log.won", {**params, "card": ev["card"]})
    if viewer == ev["seat"]:
        # Spec, What each player sees: only the owner learns which special it is.
        return Message(one("fb.log.won_special_own", ev["price"]), {**params, "card": ev["card"]})
    return Message(one("fb.log.won_special", ev["price"]), params)


def _played(ev: dict[str, Any]) -> Message:
    kind = ev["kind"]
    params: dict[str, Any] = {"seat": ev["seat"], "card": ev["card"]}
    if ev.get("skipped"):
        # Spec, Playing by mail, 5: a listed play whose target is no longer valid.
        params.update(target_seat=ev["target"], article_card=ev["article"])
        return Message(f"fb.log.skipped_{ev['skipped']}", params)
    if kind == "subsidy":
        return Message(one("fb.log.subsidy", ev["amount"]), {**params, "amount": ev["amount"]})
    if kind == "antitrust" and not ev["cards"]:
        return Message("fb.log.antitrust_none", params)
    params["target_seat"] = ev["target"]
    if kind == "defaulting":
        return Message("fb.log.defaulting", params)
    params["article_card"] = ev["article"]
    if kind == "antitrust":
        params["count"] = len(ev["cards"])
        return Message(one("fb.log.antitrust", params["count"]), params)
    return Message(f"fb.log.{kind}", params)


def _income(ev: dict[str, Any]) -> Message:
    reason = ev["reason"]
    if reason == "all_equal" and ev["owners"] == 1:
        reason = "sole"
    params = {
        "seat": ev["seat"],
        "article_card": ev["article"],
        "count": ev["cards"],
        "amount": ev["amount"],
    }
    if ev["price"] is not None:
        params["price"] = ev["price"]
    return Message(f"fb.log.income_{reason}", params)


def _sealed_bid(ev: dict[str, Any], viewer: int | None) -> Message:
    if viewer != ev["seat"]:
        # Spec, A round, 2: a sealed bid stays secret until all are in.
        return Message("fb.log.sealed_bid", {"seat": ev["seat"]})
    if ev["amount"]:
        params = {"seat": ev["seat"], "amount": ev["amount"]}
        return Message(one("fb.log.sealed_bid_own", ev["amount"]), params)
    return Message("fb.log.sealed_none_own", {"seat": ev["seat"]})


def _prices_set(ev: dict[str, Any], viewer: int | None) -> list[Message]:
    if viewer != ev["seat"]:
        # Spec, What each player sees: prices are secret until all are revealed.
        return [Message("fb.log.prices_set", {"seat": ev["seat"]})]
    key = "fb.log.prices_revised_own" if ev["revised"] else "fb.log.prices_own"
    lines = [Message(key, {"seat": ev["seat"]})]
    lines.extend(
        Message("fb.log.price_own", {"article_card": article, "price": price})
        for article, price in ev["prices"].items()
    )
    return lines


def _simple(ev: dict[str, Any]) -> list[Message]:
    kind = ev["e"]
    if kind == "round":
        return [Message("fb.log.round", {k: ev[k] for k in ("round", "rounds", "seat")})]
    if kind == "revealed":
        articles = [c for c in ev["row"] if not is_special(c)]
        hidden = len(ev["row"]) - len(articles)
        if not ev["row"]:
            return [Message("fb.log.revealed_none")]
        lines = [Message("fb.log.revealed", {"cards": articles})] if articles else []
        if hidden:
            lines.append(Message("fb.log.revealed_hidden", {"count": hidden}))
        return lines
    if kind == "single":
        params = {"seat": ev["seat"], "base": ev["base"]}
        if is_special(ev["card"]):
            return [Message(one("fb.log.single_special", ev["base"]), params)]
        return [Message("fb.log.single", {**params, "card": ev["card"]})]
    if kind == "bid":
        params = {"seat": ev["seat"], "amount": ev["amount"]}
        return [Message(one("fb.log.bid", ev["amount"]), params)]
    if kind in ("pass", "decline"):
        suffix = "_auto" if ev["auto"] else ""
        return [Message(f"fb.log.{kind}{suffix}", {"seat": ev["seat"]})]
    if kind == "sealed_auto":
        return [Message("fb.log.sealed_auto", {"seat": ev["seat"]})]
    if kind == "sealed_open":
        return [
            Message(one("fb.log.sealed_was", amount), {"seat": s, "amount": amount})
            if amount
            else Message("fb.log.sealed_was_none", {"seat": s})
            for s, amount in ev["bids"]
        ]
    if kind == "unsold":
        if is_special(ev["card"]):
            return [Message("fb.log.unsold_special")]
        return [Message("fb.log.unsold", {"card": ev["card"]})]
    if kind in ("specials_turn", "done"):
        return [Message(f"fb.log.{kind}", {"seat": ev["seat"]})]
    if kind == "sale":
        params = {k: ev[k] for k in ("card", "base", "number", "total")}
        return [Message("fb.log.sale", {**params, "owner_seat": ev["owner"]})]
    if kind == "sale_won":
        params = {"seat": ev["seat"], "card": ev["card"], "price": ev["price"]}
        return [Message("fb.log.sale_won", {**params, "owner_seat": ev["owner"]})]
    if kind in ("pricing", "prices_revealed"):
        return [Message(f"fb.log.{kind}")]
    if kind == "over":
        lines = [Message("fb.log.over")]
        lines.extend(
            Message("fb.log.score", {"seat": seat, **score})
            for seat, score in enumerate(ev["scores"])
        )
        return lines
    return []


def _sold(ev: dict[str, Any], viewer: int | None) -> list[Message]:
    """Spec, Playing by mail, 4: one card of the sale, with every limit, the winner, the price."""
    special = is_special(ev["card"])
    params: dict[str, Any] = {"base": ev["base"], "limits": ev["bids"]}
    key = "fb.log.sold_special" if special else "fb.log.sold"
    if not special:
        params["card"] = ev["card"]
    if ev["seat"] is None:
        return [Message(key + "_none", params)]
    params.update(seat=ev["seat"], price=ev["price"])
    bidders = sum(1 for _, amount in ev["bids"] if amount is not None and amount >= ev["base"])
    lines = [Message(key + ("_base" if bidders == 1 else ""), params)]
    why = why_sold({"mode": "orders", **ev, "winner": ev["seat"]}, ev["base"])
    if why.key not in _SAID:
        lines.append(why)
    if special and viewer == ev["seat"]:
        # Spec, What each player sees: only the winner learns which special it is.
        lines.append(Message("fb.log.special_own", {"seat": ev["seat"], "card": ev["card"]}))
    return lines


def _limits_set(ev: dict[str, Any], viewer: int | None) -> list[Message]:
    if viewer != ev["seat"]:
        # Spec, Playing by mail, 3: limits are secret until the sale is worked out.
        return [Message("fb.log.limits_set", {"seat": ev["seat"]})]
    key = "fb.log.limits_revised_own" if ev["revised"] else "fb.log.limits_own"
    lines = [Message(key, {"seat": ev["seat"]})]
    # In the order of sale, as the form lists the cards (a move logged before the order was
    # noted in the event: the row's order).
    order = ev.get("order") or range(len(ev["cards"]))
    lines.extend(
        Message(
            "fb.log.limit_own" if ev["limits"][slot] else "fb.log.limit_none_own",
            {"card": ev["cards"][slot], "amount": ev["limits"][slot]},
        )
        for slot in order
    )
    return lines


def _list_item(number: int, play: dict[str, Any]) -> Message:
    params: dict[str, Any] = {"number": number, "card": play["card"]}
    if play["target"] is None:
        return Message("fb.log.list_item", params)
    params["target_seat"] = play["target"]
    if play["article"] is None:
        return Message("fb.log.list_item_target", params)
    return Message("fb.log.list_item_article", {**params, "article_card": play["article"]})


def _lists_set(ev: dict[str, Any], viewer: int | None) -> list[Message]:
    if viewer != ev["seat"]:
        # Spec, Playing by mail, 5: the lists are secret until they are carried out.
        return [Message("fb.log.lists_set", {"seat": ev["seat"]})]
    if not ev["plays"]:
        return [Message("fb.log.lists_none_own", {"seat": ev["seat"]})]
    key = "fb.log.lists_revised_own" if ev["revised"] else "fb.log.lists_own"
    lines = [Message(key, {"seat": ev["seat"]})]
    lines.extend(_list_item(i, play) for i, play in enumerate(ev["plays"], start=1))
    return lines


def _antitrust_limit(ev: dict[str, Any], viewer: int | None) -> Message:
    if viewer != ev["seat"]:
        return Message("fb.log.antitrust_limit_set", {"seat": ev["seat"]})
    if ev["amount"]:
        return Message("fb.log.antitrust_limit_own", {"seat": ev["seat"], "amount": ev["amount"]})
    return Message("fb.log.antitrust_limit_none_own", {"seat": ev["seat"]})


def _antitrust_sold(ev: dict[str, Any]) -> list[Message]:
    params: dict[str, Any] = {k: ev[k] for k in ("card", "base", "number", "total")}
    params.update(limits=ev["bids"], owner_seat=ev["owner"])
    if ev["seat"] is None:
        return [Message("fb.log.antitrust_sold_none", params)]
    params.update(seat=ev["seat"], price=ev["price"])
    bidders = sum(1 for _, amount in ev["bids"] if amount is not None and amount >= ev["base"])
    lines = [Message("fb.log.antitrust_sold" + ("_base" if bidders == 1 else ""), params)]
    lot = {"mode": "limits", **ev, "winner": ev["seat"]}
    why = why_sold(lot, ev["base"], ev["owner"])
    if why.key not in _SAID:
        lines.append(why)
    lines.extend(short_of(lot))
    return lines


def _orders(ev: dict[str, Any], viewer: int | None) -> list[Message] | None:
    """The orders mode's events (Spec, Playing by mail), or None for another event."""
    kind = ev["e"]
    if kind == "order_set":
        return [Message("fb.log.order_set", {"seat": ev["seat"], "cards": ev["cards"]})]
    if kind == "sold":
        return _sold(ev, viewer)
    if kind == "limits_set":
        return _limits_set(ev, viewer)
    if kind == "lists_set":
        return _lists_set(ev, viewer)
    if kind in ("limits_start", "lists_start", "lists_open"):
        return [Message(f"fb.log.{kind}")]
    if kind == "antitrust_start":
        params = {"owner_seat": ev["owner"], "article_card": ev["article"], "count": ev["count"]}
        return [Message(one("fb.log.antitrust_start", ev["count"]), params)]
    if kind == "antitrust_limit_set":
        return [_antitrust_limit(ev, viewer)]
    if kind == "antitrust_sold":
        return _antitrust_sold(ev)
    return None


def describe_events(events: list[dict[str, Any]], viewer: int | None) -> list[Message]:
    """Log lines for the events of one move, hiding what `viewer` may not see."""
    lines: list[Message] = []
    previous = None
    for ev in events:
        kind = ev["e"]
        if kind == "sold" and previous != "sold":
            # Spec, Playing by mail, 4: the server works the sale out, not the last player
            # to send limits, whose move it follows in the log.
            lines.append(Message("fb.log.sale_start"))
        previous = kind
        if kind == "lot":
            lines.extend(_lot(ev))
        elif kind == "won":
            lines.append(_won(ev, viewer))
        elif kind == "played":
            lines.append(_played(ev))
        elif kind == "income":
            lines.append(_income(ev))
        elif kind == "sealed_bid":
            lines.append(_sealed_bid(ev, viewer))
        elif kind == "prices_set":
            lines.extend(_prices_set(ev, viewer))
        elif (orders := _orders(ev, viewer)) is not None:
            lines.extend(orders)
        else:
            lines.extend(_simple(ev))
    return lines
