"""Fantasy Business on the page and in mail: the row, the auction, prices, the turn form, results.

Everything shown comes from the seat's view (pbem.games.fantasy_business.view), so a face-down
special, another seat's special cards, a sealed bid or an unrevealed price never reaches a page.
The state is only used to list the special card plays open to the seat itself.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from pbem.games.fantasy_business import FantasyBusiness
from pbem.games.fantasy_business.cards import ALL_CARD_IDS, ARTICLE_IDS, card_type, is_special
from pbem.games.fantasy_business.log import describe_events
from pbem.games.fantasy_business.why import short_of, why_sold
from pbem.present.common import FormError
from pbem.present.text import card_name, render, say

RULES = FantasyBusiness()
# Special kinds that cannot be played without naming another player.
_NEEDS_TARGET = {"theft", "defaulting", "defective"}
_NUMBER = re.compile(r"^\d{1,4}$")
_MAX_PRICES = len(ARTICLE_IDS)
_MAX_ROW = 8  # the most cards a row can hold (8 players)
ROUND_END = "fb.log.prices_revealed"  # the log line of the move that ends a round


def ecus(amount: int, lang: str) -> str:
    """An amount of money in words: "1 écu", "5 écus"."""
    return say(lang, "fb.results.ecus", count=amount)


def _name(seat: int | None, names: list[str]) -> str | None:
    return None if seat is None else names[seat]


def _articles(held: dict[str, int], lang: str) -> list[dict[str, Any]]:
    """Article counts in the rules' order: kind, name, count."""
    return [
        {"kind": a, "name": card_name(a, lang), "count": held[a]}
        for a in ARTICLE_IDS
        if held.get(a)
    ]


def _row(row: list[dict[str, Any]], names: list[str], lang: str) -> list[dict[str, Any]]:
    """The revealed cards; a special is named only when the view shows it (to its winner)."""
    return [
        {
            "slot": entry["slot"],
            "number": entry["slot"] + 1,
            "special": entry["special"],
            "name": card_name(entry["card"], lang) if entry["card"] else None,
            "base": entry["base"],
            "status": entry["status"],
            "winner": _name(entry["winner"], names),
            "price": entry["price"],
        }
        for entry in row
    ]


def _played(records: list[dict[str, Any]], names: list[str], lang: str) -> list[str]:
    """Played specials in words (they are discarded face up, so all of it is public)."""
    lines = describe_events([{"e": "played", **record} for record in records], None)
    return [render(line, lang, names) for line in lines]


def _lots(lots: list[dict[str, Any]], names: list[str], lang: str) -> list[dict[str, Any]]:
    """The cards sold in a round, each with every bid or limit (public once sold), the winner,
    the price and the rule that decided them."""
    return [
        {
            "special": lot["special"],
            "name": card_name(lot["card"], lang) if lot["card"] else None,
            "winner": _name(lot["winner"], names),
            "price": lot["price"],
            "mode": lot["mode"],
            "base": lot.get("base"),
            "reason": " ".join(
                render(line, lang, names) for line in [why_sold(lot, lot["base"]), *short_of(lot)]
            ),
            # Orders mode: one limit per eligible player ("–" for none); open: the bids.
            "bids": [
                {"name": names[s], "amount": amount, "won": s == lot["winner"]}
                for s, amount in lot["bids"]
            ],
        }
        for lot in lots
    ]


def _reason(entry: dict[str, Any]) -> str:
    # Spec, A round, 5: a lone owner counts as lowest; the log calls it the sole seller.
    if entry["reason"] == "all_equal" and entry["owners"] == 1:
        return "sole"
    return str(entry["reason"])


def _formula(entry: dict[str, Any]) -> str:
    """How an income was worked out, in numbers only: cards × price + 2 × cards = 16."""
    reason, price, cards = _reason(entry), entry["price"], entry["cards"]
    if reason in ("lowest", "all_equal", "sole"):
        return f"{cards} × {price} + 2 × {cards} = {entry['amount']}"
    if reason == "middle":
        return f"{cards} × {price} = {entry['amount']}"
    return "0"


def _income_line(
    seat: int, article: str, entry: dict[str, Any], names: list[str], lang: str
) -> dict[str, Any]:
    reason = _reason(entry)
    (sentence,) = describe_events(
        [{"e": "income", "seat": seat, "article": article, **entry}], None
    )
    return {
        "seat": seat,
        "name": names[seat],
        "article": card_name(article, lang),
        "kind": article,
        "cards": entry["cards"],
        "price": entry["price"],
        "reason": reason,
        "reason_text": say(lang, f"fb.results.reason.{reason}"),
        "formula": _formula(entry),
        "amount": entry["amount"],
        "text": render(sentence, lang, names),
    }


def _by_article(
    income: list[dict[str, dict[str, Any]]], names: list[str], lang: str
) -> list[dict[str, Any]]:
    """A round's income, article by article, each seller with price, reason and amount."""
    groups = []
    for article in ARTICLE_IDS:
        sellers = [
            _income_line(seat, article, per[article], names, lang)
            for seat, per in enumerate(income)
            if article in per
        ]
        if sellers:
            groups.append({"kind": article, "name": card_name(article, lang), "sellers": sellers})
    return groups


def _finished_round(record: dict[str, Any], names: list[str], lang: str) -> dict[str, Any]:
    """A round whose prices are revealed: the reveal, the lots, the specials and the income."""
    income = record["income"] or [{} for _ in names]
    return {
        "round": record["round"],
        "first": names[record["first"]],
        "row": _row(record["row"], names, lang),
        "lots": _lots(record["lots"], names, lang),
        "played": _played(record["played"], names, lang),
        "articles": _by_article(income, names, lang),
        "totals": [
            {"name": names[s], "amount": sum(e["amount"] for e in per.values())}
            for s, per in enumerate(income)
            if per
        ],
    }


def _auction(view: dict[str, Any], names: list[str], lang: str) -> dict[str, Any] | None:
    auction = view["auction"]
    if auction is None:
        return None
    info: dict[str, Any] = {
        "kind": auction["kind"],
        "mode": auction["mode"],
        "number": auction["slot"] + 1 if auction["slot"] is not None else None,
        "special": auction["special"],
        "name": card_name(auction["card"], lang) if auction["card"] else None,
        "base": auction["base"],
        "eligible": [names[s] for s in auction["eligible"]],
        "waiting": [names[s] for s in auction["waiting"]],
    }
    if auction["mode"] == "sealed":
        info["bid_in"] = [names[s] for s in auction["bid_in"]]
        info["my_bid"] = auction.get("my_bid")
    elif auction["mode"] == "limits":
        # Spec, Playing by mail, 6: who has set a limit, never how much.
        info["limit_in"] = [names[s] for s in auction["limit_in"]]
        info["count"] = len(auction["cards"])
        info["my_limit"] = auction.get("my_limit")
    else:
        info.update(
            bid=auction["bid"],
            bidder=_name(auction["bidder"], names),
            still_in=[names[s] for s in auction["still_in"]],
            turn=_name(auction["turn"], names),
            min_bid=auction.get("min_bid"),
            bids=[{"name": names[s], "amount": amount} for s, amount in auction["bids"]],
        )
    if auction["kind"] == "antitrust":
        info.update(
            owner=names[auction["owner"]],
            article=card_name(auction["article"], lang),
            sale=auction["number"],
            total=auction["total"],
        )
    return info


def _in_order(row: list[dict[str, Any]], order: list[int] | None) -> list[dict[str, Any]]:
    """The row in the order of sale, each card with its place in it ("position", from 1)."""
    slots = order if order is not None and len(order) == len(row) else range(len(row))
    return [{**row[slot], "position": k} for k, slot in enumerate(slots, start=1)]


def _order_form(context: dict[str, Any]) -> dict[str, Any]:
    """Spec, Playing by mail, 2: the row, with a place in the order of sale for each card."""
    cards = _in_order(context["row"], None)
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


def _effects(view: dict[str, Any], names: list[str], lang: str) -> list[dict[str, Any]]:
    effects = [{"kind": "defaulting", "name": names[s]} for s in view["effects"]["defaulting"]]
    effects.extend(
        {"kind": "defective", "name": names[s], "article": card_name(a, lang)}
        for s, a in view["effects"]["defective"]
    )
    return effects


def _my_specials(view: dict[str, Any], lang: str) -> list[dict[str, Any]]:
    """The seat's own special cards, face up, one entry per kind."""
    kinds: dict[str, list[str]] = {}
    for card in view["me"]["specials"]:
        kinds.setdefault(card_type(card), []).append(card)
    amount = view["specials_table"]["subsidy"].get("amount", 0)
    return [
        {
            "kind": kind,
            "name": card_name(kind, lang),
            "count": len(cards),
            "ids": cards,
            "effect": say(lang, f"fb.page.effect.{kind}", amount=ecus(amount, lang)),
        }
        for kind, cards in kinds.items()
    ]


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


def _form(
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


PAST_ROUNDS = 1  # the last finished round on the page; the rest behind a link (flat cost)
# A queued mail keeps the current round and the number of the one before (mail_view).
MAIL_ROUNDS = 1


def play_context(
    state: dict[str, Any],
    view: dict[str, Any],
    seat: int | None,
    lang: str,
    names: list[str],
    whole: bool = False,
) -> dict[str, Any]:
    """Everything the play page shows, from the seat's view (all past rounds if `whole`).

    The view may hold only the last rounds (rules.view's `rounds`): how many rounds are
    finished in all is read from the state."""
    step = view["step"]
    current = view["history"][-1] if view["history"] else None
    finished = [r for r in view["history"] if r["income"] is not None]
    if not whole:
        finished = finished[-PAST_ROUNDS:]
    ended = sum(1 for record in state["history"] if record["income"] is not None)
    older = ended - len(finished)
    players = []
    for p in view["players"]:
        s = p["seat"]
        score = view["scores"][s]
        players.append(
            {
                "seat": s,
                "name": names[s],
                "ecus": p["ecus"],
                "goods": p["goods_value"],
                "score": score["score"],
                "articles": _articles(p["articles"], lang),
                "specials": p["specials"],
                "won_this_round": p["won_this_round"],
                "priced": p["priced"],
                "to_act": s in view["to_act"],
                "me": s == seat,
            }
        )
    pricing = view["pricing"]
    row = _row(view["row"], names, lang)
    waiting = [names[s] for s in view["to_act"]]
    simultaneous = view["limits"] or view["lists"]
    context: dict[str, Any] = {
        "round": view["round"],
        "rounds": view["rounds"],
        "step": step,
        "step_name": say(lang, f"fb.step.{step}"),
        "first": names[view["first"]],
        "mode": view["options"]["auction"],
        "draw_count": view["draw_count"],
        "row": row,
        # Orders mode: the row in the order of sale, once the first buyer has given it.
        "sale_order": _in_order(row, current["order"] if current is not None else None),
        "order_set": step != "order" and current is not None and current["order"] is not None,
        # Orders mode: who has sent limits or a list of specials (never what).
        "answers": {
            "step": step,
            "set": [names[s] for s in simultaneous["set"]],
            "waiting": waiting,
        }
        if simultaneous
        else None,
        "auction": _auction(view, names, lang),
        "specials_turn": _name(view["specials_turn"], names),
        "played": _played(current["played"], names, lang)
        if current is not None and current["income"] is None
        else [],
        # The round's sales so far (limits are public once the sale is worked out).
        "sales": _lots(current["lots"], names, lang)
        if current is not None and current["income"] is None
        else [],
        "effects": _effects(view, names, lang),
        "pricing": {
            "sellers": [names[s] for s in pricing["sellers"]],
            "set": [names[s] for s in pricing["set"]],
            "waiting": [names[s] for s in view["to_act"]],
        }
        if pricing
        else None,
        "players": players,
        # Each past round as its number and how to put it in words: a page that has the
        # round drawn already (pbem/web/fragments.py) does not ask.
        "history": [
            {"round": r["round"], "report": partial(_finished_round, r, names, lang)}
            for r in reversed(finished)
        ],
        "history_older": older,
        "my_specials": [],
        "my_bid": None,
        "form": None,
    }
    if seat is None:
        return context
    context["my_specials"] = _my_specials(view, lang)
    auction = view["auction"]
    if auction is not None and auction["mode"] == "sealed":
        context["my_bid"] = auction.get("my_bid")
    context["form"] = _form(state, view, seat, context, names, lang)
    return context


def _number(raw: Any, key: str) -> int:
    text = str(raw).strip()
    if not _NUMBER.match(text):
        raise FormError(key)
    return int(text)


def _play(form: Any, card: str) -> dict[str, Any]:
    if card not in ALL_CARD_IDS or not is_special(card):
        raise FormError("fb.form.garbled")
    move: dict[str, Any] = {"action": "play", "card": card}
    pick = str(form.get(f"pick_{card}", "")).strip()
    if not pick:
        if card_type(card) in _NEEDS_TARGET:
            raise FormError("fb.form.no_target")
        return move
    target, sep, article = pick.partition(":")
    move["target"] = _number(target, "fb.form.garbled")
    if sep:
        if not article or len(article) > 40:
            raise FormError("fb.form.garbled")
        move["article"] = article
    return move


def _prices(form: Any) -> dict[str, Any]:
    prices = {}
    for key in form:
        if str(key).startswith("price_"):
            prices[str(key)[len("price_") :]] = _number(form.get(key, ""), "fb.form.bad_price")
    if not prices:
        raise FormError("fb.form.no_prices")
    if len(prices) > _MAX_PRICES:
        raise FormError("fb.form.garbled")
    return {"action": "prices", "prices": prices}


def _numbered(form: Any, prefix: str, key: str, blank: int | None) -> list[int]:
    """Fields prefix0, prefix1, ... as numbers, in slot order; a blank field is `blank`."""
    found: dict[int, int] = {}
    for name in form:
        name = str(name)
        if not name.startswith(prefix):
            continue
        slot = _number(name[len(prefix) :], "fb.form.garbled")
        raw = str(form.get(name, "")).strip()
        if not raw and blank is not None:
            found[slot] = blank
        else:
            found[slot] = _number(raw, key)
    if not found or sorted(found) != list(range(len(found))) or len(found) > _MAX_ROW:
        raise FormError("fb.form.garbled")
    return [found[slot] for slot in range(len(found))]


def _order(form: Any) -> dict[str, Any]:
    # Spec, Playing by mail, 2: each card of the row gets its place in the order of sale.
    places = _numbered(form, "place_", "fb.form.bad_order", None)
    if sorted(places) != list(range(1, len(places) + 1)):
        raise FormError("fb.form.bad_order")
    return {"action": "order", "order": sorted(range(len(places)), key=lambda s: places[s])}


def _lists(form: Any) -> dict[str, Any]:
    # Spec, Playing by mail, 5: the cards ticked, in the order of their places, with targets.
    chosen: list[tuple[int, int, dict[str, Any]]] = []
    for name in form:
        name = str(name)
        if not name.startswith("use_"):
            continue
        card = name[len("use_") :]
        raw = str(form.get(f"rank_{card}", "")).strip()
        rank = _number(raw, "fb.form.garbled") if raw else 99
        play = _play(form, card)
        del play["action"]
        chosen.append((rank, len(chosen), play))
    if len(chosen) > _MAX_ROW * 3:
        raise FormError("fb.form.garbled")
    return {"action": "specials", "plays": [play for _, _, play in sorted(chosen)]}


def parse_form(form: Any) -> dict[str, Any]:
    """The move a turn form describes; FormError when a part is missing or garbled."""
    action = str(form.get("action", "")).strip()
    if action == "order":
        return _order(form)
    if action == "limits":
        # A blank limit is no bid: a phone user may leave the cards they do not want empty.
        return {"action": "limits", "limits": _numbered(form, "limit_", "fb.form.bad_limit", 0)}
    if action == "specials":
        return _lists(form)
    if action == "limit":
        raw = str(form.get("amount", "")).strip()
        return {"action": "limit", "amount": _number(raw, "fb.form.bad_amount") if raw else 0}
    if action == "choose":
        if not str(form.get("slot", "")).strip():
            raise FormError("fb.form.no_slot")
        return {"action": "choose", "slot": _number(form.get("slot"), "fb.form.garbled")}
    if action == "bid":
        if not str(form.get("amount", "")).strip():
            raise FormError("fb.form.no_amount")
        return {"action": "bid", "amount": _number(form.get("amount"), "fb.form.bad_amount")}
    if action in ("pass", "take", "done"):
        return {"action": action}
    if action.startswith("play:"):
        return _play(form, action[len("play:") :])
    if action == "prices":
        return _prices(form)
    raise FormError("fb.form.no_action")


def results(outcome: dict[str, Any], names: list[str], lang: str) -> dict[str, Any]:
    """Final standings (écus + goods) and, round by round, who earned or paid what and why."""
    breakdown = outcome["breakdown"]
    players = []
    for seat, name in enumerate(names):
        final = breakdown["players"][seat]
        players.append(
            {
                "seat": seat,
                "name": name,
                "rank": outcome["ranks"][seat],
                "score": outcome["scores"][seat],
                "total": outcome["scores"][seat],
                "ecus": final["ecus"],
                "goods": final["goods"],
                "articles": [
                    {
                        "name": card_name(a, lang),
                        "count": final["articles"][a]["cards"],
                        "base": final["articles"][a]["base"],
                        "value": final["articles"][a]["value"],
                    }
                    for a in ARTICLE_IDS
                    if a in final["articles"]
                ],
                "specials_unplayed": final["specials_unplayed"],
            }
        )
    rounds = []
    for record in breakdown["rounds"]:
        income = [p["income"] for p in record["players"]]
        rows = []
        for seat, entry in enumerate(record["players"]):
            lines = [
                _income_line(seat, a, entry["income"][a], names, lang)
                for a in ARTICLE_IDS
                if a in entry["income"]
            ]
            if not (lines or entry["ledger"]):
                continue
            rows.append(
                {
                    "name": names[seat],
                    "paid": entry["paid_at_auction"],
                    "subsidies": entry["subsidies"],
                    "antitrust": entry["antitrust_proceeds"],
                    "income": lines,
                    "earned": sum(line["amount"] for line in lines),
                    "net": entry["net"],
                }
            )
        rounds.append(
            {
                "round": record["round"],
                "first": names[record["first"]],
                "lots": _lots(record["lots"], names, lang),
                "played": _played(record["played"], names, lang),
                "articles": _by_article(income, names, lang),
                "players": rows,
            }
        )
    order = sorted(range(len(names)), key=lambda n: (outcome["ranks"][n], n))
    return {
        "players": players,
        "standings": [players[n] for n in order],
        "winners": [names[n] for n in order if outcome["ranks"][n] == 1],
        "rounds": rounds,
    }


def mail_view(view: dict[str, Any]) -> dict[str, Any]:
    """What a queued mail keeps of the seat's view: all but the finished rounds, which the
    sender takes from the game when it renders (a finished round's record never changes).

    The view needs only the current round and the one before: MAIL_ROUNDS, 1."""
    finished = [r["round"] for r in view["history"] if r["income"] is not None]
    return {
        **view,
        "history": [r for r in view["history"] if r["income"] is None],
        "mail_finished": max(finished, default=0),
    }


def mail_view_then(kept: dict[str, Any], now: dict[str, Any]) -> dict[str, Any]:
    """The seat's view when the mail was queued, from what mail_view kept and its view now."""
    then = {k: v for k, v in kept.items() if k != "mail_finished"}
    finished = [
        r for r in now["history"] if r["income"] is not None and r["round"] <= kept["mail_finished"]
    ]
    then["history"] = finished + kept["history"]
    return then


def mail_rounds_then(kept: dict[str, Any], state: dict[str, Any], reported: int) -> int:
    """The finished rounds before the current one that a mail's view at render time must
    hold (rules.view's `rounds`): back to the first of the `reported` rounds it reports, and
    at least the last one finished when it was queued (mail_view_then, round_reports).

    Counted from the end of the history, so a mail late in a game views what one early does."""
    first = kept["mail_finished"] - max(reported, 1) + 1
    held = 0
    for record in reversed(state["history"]):
        if record["round"] < first:
            break
        held += 1
    return max(held - 1, 0)


def turn_prompt(
    view: dict[str, Any], seat: int, names: list[str], lang: str
) -> dict[str, Any] | None:
    """For a turn mail: what the step asks of the seat, in words, and the row as it stands."""
    if view["over"] or seat not in view["to_act"]:
        return None
    step = view["step"]
    money = view["players"][seat]["ecus"]
    params: dict[str, Any] = {"ecus": ecus(money, lang), "count": len(view["row"])}
    auction = view["auction"]
    if auction is not None:
        params["card"] = (
            card_name(auction["card"], lang)
            if auction["card"] and not auction["special"]
            else say(lang, "fb.page.special_face_down")
        )
        if auction["kind"] == "antitrust":
            params.update(
                owner=names[auction["owner"]], article=card_name(auction["article"], lang)
            )
    row = _row(view["row"], names, lang)
    current = view["history"][-1] if view["history"] else None
    order = current["order"] if current is not None and step != "order" else None
    lines = []
    for card in _in_order(row, order):
        name = card["name"] or say(lang, "fb.page.special_face_down")
        base = say(lang, "fb.page.base", price=ecus(card["base"], lang))
        text = f"{card['position']}. {name} ({base})"
        if card["status"] == "won":
            text += " — " + say(
                lang, "fb.page.won_by", name=card["winner"], price=ecus(card["price"], lang)
            )
        elif card["status"] == "discarded":
            text += " — " + say(lang, "fb.page.unsold")
        lines.append(text)
    return {"ask": say(lang, f"fb.page.ask.{step}", **params), "row": lines}


def round_reports(
    view: dict[str, Any], names: list[str], lang: str, count: int
) -> list[dict[str, Any]]:
    """The last `count` finished rounds, for a mail: one block per card sold (every limit or
    bid, the winner, the price) and the income, seller by seller."""
    finished = [r for r in view["history"] if r["income"] is not None][-count:] if count else []
    reports = []
    for record in finished:
        lots = []
        for lot in _lots(record["lots"], names, lang):
            title = lot["name"] or say(lang, "fb.page.special_face_down")
            bids = ", ".join(
                f"{b['name']} {b['amount'] if b['amount'] is not None else '–'}"
                for b in lot["bids"]
            )
            result = (
                say(lang, "fb.page.won_by", name=lot["winner"], price=ecus(lot["price"], lang))
                if lot["winner"]
                else say(lang, "fb.page.unsold")
            )
            base = say(lang, "fb.page.base", price=ecus(lot["base"], lang))
            lots.append(
                {
                    "title": f"{title} ({base})",
                    "name": title,
                    "base": base,
                    "bids": lot["bids"],
                    "bids_text": bids,
                    "result": result,
                    "winner": lot["winner"],
                    "price": ecus(lot["price"], lang) if lot["price"] is not None else None,
                    "reason": lot["reason"],
                }
            )
        income = [
            {
                "name": seller["name"],
                "article": group["name"],
                "cards": seller["cards"],
                "price": seller["price"],
                "amount": seller["amount"],
                "reason": seller["reason_text"],
                "formula": seller["formula"],
            }
            for group in _by_article(record["income"], names, lang)
            for seller in group["sellers"]
        ]
        reports.append(
            {
                "round": record["round"],
                "lots": lots,
                "played": _played(record["played"], names, lang),
                "income": income,
            }
        )
    return reports
