"""The form of the round's step open to a seat: order, limits, lists, bids, specials, prices."""

from __future__ import annotations

from typing import Any

from pbem.games.fantasy_business import FantasyBusiness
from pbem.games.fantasy_business.cards import card_type
from pbem.present.fantasy_business.words import ecus, in_sale_order
from pbem.present.text import card_name, say

RULES = FantasyBusiness()


def _order_form(context: dict[str, Any]) -> dict[str, Any]:
    """Spec, Playing by mail, 2: the row, with a place in the order of sale for each card."""
    cards = in_sale_order(context["row"], None)
    return {"kind": "order", "cards": cards, "places": list(range(1, len(cards) + 1))}


def _limits_form(view: dict[str, Any], seat: int, context: dict[str, Any]) -> dict[str, Any]:
    """Spec, Playing by mail, 3: one limit per card, in the order of sale."""
    me = view["me"]
    mine = me.get("limits")
    ranges = me.get("limit_ranges") or [None] * len(context["row"])
    cards = [
        {
            **card,
            "can": ranges[card["slot"]] is not None,
            "max": ranges[card["slot"]][1] if ranges[card["slot"]] else 0,
            "value": mine[card["slot"]] if mine else 0,
        }
        for card in context["sale_order"]
    ]
    return {
        "kind": "limits",
        "cards": cards,
        "ecus": view["players"][seat]["ecus"],
        "set": mine is not None,
    }


def _target_choices(
    plays: list[dict[str, Any]], names: list[str], lang: str
) -> list[dict[str, str]]:
    """The form's choices for one special card: each legal target, with its article if any."""
    choices = []
    for play in plays:
        if "target" not in play:
            continue
        value = str(play["target"])
        label = names[play["target"]]
        if "article" in play:
            value += ":" + play["article"]
            label += " — " + card_name(play["article"], lang)
        choices.append({"value": value, "label": label})
    return choices


def _lists_form(
    state: dict[str, Any], view: dict[str, Any], seat: int, names: list[str], lang: str
) -> dict[str, Any]:
    """Spec, Playing by mail, 5: each special held, to list (in order) with its target."""
    listed = {play["card"]: (k, play) for k, play in enumerate(view["me"].get("plays") or [])}
    options: dict[str, list[dict[str, Any]]] = {}
    for move in RULES.legal_moves(state, seat)[1:]:
        (play,) = move["plays"]
        options.setdefault(play["card"], []).append(play)
    amount = view["specials_table"]["subsidy"].get("amount", 0)
    held = view["me"]["specials"]
    cards = []
    for card in held:
        kind = card_type(card)
        choices = _target_choices(options.get(card, []), names, lang)
        chosen = listed.get(card)
        picked = None
        if chosen and chosen[1]["target"] is not None:
            picked = str(chosen[1]["target"])
            if chosen[1]["article"] is not None and kind != "defaulting":
                picked += ":" + chosen[1]["article"]
        cards.append(
            {
                "card": card,
                "kind": kind,
                "name": card_name(kind, lang),
                "effect": say(lang, f"fb.page.effect.{kind}", amount=ecus(amount, lang)),
                "playable": card in options,
                "choices": choices,
                "listed": chosen is not None,
                "rank": chosen[0] + 1 if chosen else None,
                "picked": picked,
            }
        )
    return {
        "kind": "lists",
        "cards": cards,
        "places": list(range(1, len(cards) + 1)),
        "set": view["me"].get("plays") is not None,
    }


def _antitrust_form(view: dict[str, Any], seat: int) -> dict[str, Any]:
    """Spec, Playing by mail, 6: one limit, the most one would pay per card."""
    me, auction = view["me"], view["auction"]
    return {
        "kind": "antitrust_limit",
        "base": auction["base"],
        "max": view["players"][seat]["ecus"],
        "ecus": view["players"][seat]["ecus"],
        "value": me.get("limit") or 0,
        "set": me.get("limit") is not None,
        "count": len(auction["cards"]),
    }


def _specials_form(
    state: dict[str, Any], seat: int, mine: list[dict[str, Any]], names: list[str], lang: str
) -> dict[str, Any]:
    """Per kind held: the card played (the first copy) and its legal choices of player/article."""
    plays = [m for m in RULES.legal_moves(state, seat) if m["action"] == "play"]
    cards = []
    for entry in mine:
        card = entry["ids"][0]
        of_card = [move for move in plays if move["card"] == card]
        choices = _target_choices(of_card, names, lang)
        cards.append({**entry, "card": card, "playable": bool(of_card), "choices": choices})
    return {"kind": "specials", "cards": cards}


def step_form(
    state: dict[str, Any],
    view: dict[str, Any],
    seat: int,
    context: dict[str, Any],
    names: list[str],
    lang: str,
) -> dict[str, Any] | None:
    """What this seat may do now, or None."""
    me = view["me"]
    if view["over"] or not me["may_act"]:
        return None
    step = view["step"]
    money = view["players"][seat]["ecus"]
    if step == "choose":
        rows = context["row"]
        return {"kind": "choose", "slots": [rows[slot] for slot in view["pending"]]}
    if step == "open":
        low_high = me.get("bid_range")
        return {
            "kind": "open",
            "can_bid": low_high is not None,
            "min": low_high[0] if low_high else None,
            "max": low_high[1] if low_high else None,
        }
    if step == "sealed":
        return {"kind": "sealed", "min": 0, "max": money, "base": view["auction"]["base"]}
    if step == "single":
        base = view["auction"]["base"]
        return {"kind": "single", "can_take": money >= base, "base": base}
    if step == "specials":
        return _specials_form(state, seat, context["my_specials"], names, lang)
    if step == "order":
        return _order_form(context)
    if step == "limits":
        return _limits_form(view, seat, context)
    if step == "lists":
        return _lists_form(state, view, seat, names, lang)
    if step == "antitrust_limits":
        return _antitrust_form(view, seat)
    if step != "pricing":
        return None
    mine = me["prices"]
    held = view["players"][seat]["articles"]
    articles = [
        {
            "kind": article,
            "name": card_name(article, lang),
            "count": held.get(article, 0),
            "low": low,
            "high": high,
            "value": (mine or me["default_prices"]).get(article, low),
            # Public: who else has this article on sale this round (never at what price).
            "rivals": [
                names[p["seat"]]
                for p in view["players"]
                if p["seat"] != seat and article in p["on_sale"]
            ],
        }
        for article, (low, high) in me["price_ranges"].items()
    ]
    return {
        "kind": "pricing",
        "articles": articles,
        "set": mine is not None,
        "waiting": [names[s] for s in view["to_act"]],
    }
