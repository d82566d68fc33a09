"""A round's sale and income as the page, the log and mails show them: a row per card sold
with every limit, the winner, the price and why; each seller's income with its formula.
"""

from __future__ import annotations

from typing import Any

from pbem.games.fantasy_business.cards import ARTICLE_IDS
from pbem.games.fantasy_business.log import describe_events
from pbem.games.fantasy_business.why import short_of, why_sold
from pbem.present.fantasy_business.words import name_of, played_lines, row_cards
from pbem.present.text import card_name, render, say


def lot_rows(lots: list[dict[str, Any]], names: list[str], lang: str) -> list[dict[str, Any]]:
    """The cards sold in a round, each with every bid or limit (public once sold), the winner,
    the price and the rule that decided them."""
    return [
        {
            "special": lot["special"],
            "name": card_name(lot["card"], lang) if lot["card"] else None,
            "winner": name_of(lot["winner"], names),
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


def income_line(
    seat: int, article: str, entry: dict[str, Any], names: list[str], lang: str
) -> dict[str, Any]:
    """One seller's income from one article: price, reason, formula and the log's sentence."""
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


def income_by_article(
    income: list[dict[str, dict[str, Any]]], names: list[str], lang: str
) -> list[dict[str, Any]]:
    """A round's income, article by article, each seller with price, reason and amount."""
    groups = []
    for article in ARTICLE_IDS:
        sellers = [
            income_line(seat, article, per[article], names, lang)
            for seat, per in enumerate(income)
            if article in per
        ]
        if sellers:
            groups.append({"kind": article, "name": card_name(article, lang), "sellers": sellers})
    return groups


def finished_round(record: dict[str, Any], names: list[str], lang: str) -> dict[str, Any]:
    """A round whose prices are revealed: the reveal, the lots, the specials and the income."""
    income = record["income"] or [{} for _ in names]
    return {
        "round": record["round"],
        "first": names[record["first"]],
        "row": row_cards(record["row"], names, lang),
        "lots": lot_rows(record["lots"], names, lang),
        "played": played_lines(record["played"], names, lang),
        "articles": income_by_article(income, names, lang),
        "totals": [
            {"name": names[s], "amount": sum(e["amount"] for e in per.values())}
            for s, per in enumerate(income)
            if per
        ],
    }
