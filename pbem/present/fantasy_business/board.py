"""The Fantasy Business page: the round's board, the auction, the players, past rounds, the form.

Everything shown comes from the seat's view (pbem.games.fantasy_business.view), so a face-down
special, another seat's special cards, a sealed bid or an unrevealed price never reaches a page.
The state is only used to list the special card plays open to the seat itself.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from pbem.games.fantasy_business.cards import card_type
from pbem.present.fantasy_business.sales import (
    finished_round,
    lot_rows,
    news_lines,
    round_income,
    round_outcome,
)
from pbem.present.fantasy_business.steps import step_form
from pbem.present.fantasy_business.words import (
    ecus,
    held_articles,
    in_sale_order,
    name_of,
    played_lines,
    row_cards,
)
from pbem.present.text import card_name, say


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
            bidder=name_of(auction["bidder"], names),
            still_in=[names[s] for s in auction["still_in"]],
            turn=name_of(auction["turn"], names),
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


def _effects(view: dict[str, Any], names: list[str], lang: str) -> list[dict[str, Any]]:
    effects = [{"kind": "defaulting", "name": names[s]} for s in view["effects"]["defaulting"]]
    effects.extend(
        {"kind": "defective", "name": names[s], "article": card_name(a, lang)}
        for s, a in view["effects"]["defective"]
    )
    return effects


def my_specials_of(view: dict[str, Any], lang: str) -> list[dict[str, Any]]:
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


PAST_ROUNDS = 1  # the last finished round on the page; the rest behind a link (flat cost)


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
    finished in all is read from the state (which may hold only the last ones too)."""
    step = view["step"]
    current = view["history"][-1] if view["history"] else None
    finished = [r for r in view["history"] if r["income"] is not None]
    if not whole:
        finished = finished[-PAST_ROUNDS:]
    # Counted from the last record's number: the stored state holds the last rounds only.
    last_record = state["history"][-1]
    ended = last_record["round"] - (last_record["income"] is None)
    older = ended - len(finished)
    # Issue 47: the round just over is an entry of its own, open on the page, until the new
    # round has sold a card; it is then one of the past rounds again.
    last = finished[-1] if finished else None
    fresh = (
        last is not None
        and current is not None
        and current["income"] is None
        and not current["lots"]
        and not view["over"]
    )
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
                "articles": held_articles(p["articles"], lang),
                "specials": p["specials"],
                "won_this_round": p["won_this_round"],
                "priced": p["priced"],
                "to_act": s in view["to_act"],
                "me": s == seat,
            }
        )
    pricing = view["pricing"]
    row = row_cards(view["row"], names, lang)
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
        "sale_order": in_sale_order(row, current["order"] if current is not None else None),
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
        "specials_turn": name_of(view["specials_turn"], names),
        "played": played_lines(current["played"], names, lang)
        if current is not None and current["income"] is None
        else [],
        # The round's sales so far (limits are public once the sale is worked out).
        "sales": lot_rows(current["lots"], names, lang)
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
            {"round": r["round"], "report": partial(finished_round, r, names, lang)}
            for r in reversed(finished)
            if not (fresh and r is last)
        ],
        # The round just over: each player's income in numbers for the board's summary,
        # and the whole entry (sale, specials, income) put in words only when drawn.
        "outcome": {
            "round": last["round"],
            "income": round_income(last, names),
            "report": partial(round_outcome, last, names, lang),
        }
        if fresh and last is not None
        else None,
        "history_older": older,
        # Since your last move: the sale and the round's end are tables of their own here.
        "news": partial(news_lines, lang=lang, shown=("sale", "end")),
        "my_specials": [],
        "my_bid": None,
        "form": None,
    }
    if seat is None:
        return context
    context["my_specials"] = my_specials_of(view, lang)
    auction = view["auction"]
    if auction is not None and auction["mode"] == "sealed":
        context["my_bid"] = auction.get("my_bid")
    context["form"] = step_form(state, view, seat, context, names, lang)
    return context
