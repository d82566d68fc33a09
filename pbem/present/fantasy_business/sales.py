"""A round's sale and income as the page, the log and mails show them: a row per card sold
with every limit, the winner, the price and why; each seller's income with its formula; the
round just over as an entry of its own; and the news since a seat's last move, which says
in one line what these tables show instead of running it on under the last answer.
"""

from __future__ import annotations

from typing import Any

from pbem.games.fantasy_business.cards import ARTICLE_IDS
from pbem.games.fantasy_business.log import describe_events
from pbem.games.fantasy_business.why import short_of, why_sold
from pbem.present.fantasy_business.words import name_of, played_lines, row_cards
from pbem.present.text import card_name, render, say

ROUND_END = "fb.log.prices_revealed"  # the log line of the move that ends a round


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


def round_income(record: dict[str, Any], names: list[str]) -> list[dict[str, Any]]:
    """Each player's income in a finished round, in seat order (0 for a player who sold
    nothing): numbers only, so the board shows it without putting the round in words."""
    income = record["income"] or [{} for _ in names]
    return [
        {"name": name, "amount": sum(entry["amount"] for entry in per.values())}
        for name, per in zip(names, income, strict=True)
    ]


def round_outcome(record: dict[str, Any], names: list[str], lang: str) -> dict[str, Any]:
    """A finished round as an entry of its own (issue 47): the sale, the specials played,
    the income article by article and each player's total."""
    return {**finished_round(record, names, lang), "income": round_income(record, names)}


# The log lines of each part shown on its own: the sale (a table on the page) and the end of
# the round (the round's own entry on the page and in the mail).
PARTS = {
    "sale": ("fb.log.sale_start", "fb.log.sold", "fb.why.", "fb.log.special_own"),
    "end": (ROUND_END, "fb.log.income_"),
}


def news_lines(entry: dict[str, Any], lang: str, shown: tuple[str, ...]) -> list[str]:
    """The entry's lines, each part named in `shown` ("sale", "end") said in one line."""
    text, keys = list(entry["text"]), list(entry.get("keys") or [])
    if len(keys) != len(text):
        return text  # an entry made before lines kept their keys
    lines, told = text[:1], set()
    for key, line in zip(keys[1:], text[1:], strict=True):
        part = next((p for p in shown if key.startswith(PARTS[p])), None)
        if part is None:
            lines.append(line)
        elif part not in told:
            told.add(part)
            lines.append(say(lang, f"fb.news.{part}"))
    return lines


def mail_news(entry: dict[str, Any], lang: str) -> list[str]:
    """A mail's news: the round's end is the mail's own part (mail/_rounds), the sale stays
    in words (a mail shows a round's sale as a table only once the round is over)."""
    return news_lines(entry, lang, ("end",))
