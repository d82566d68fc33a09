"""Fantasy Business in words: amounts, names, articles, the row and the specials played."""

from __future__ import annotations

from typing import Any

from pbem.games.fantasy_business.cards import ARTICLE_IDS, card_type
from pbem.games.fantasy_business.log import describe_events
from pbem.present.text import card_name, render, say


def ecus(amount: int, lang: str) -> str:
    """An amount of money in words: "1 écu", "5 écus"."""
    return say(lang, "fb.results.ecus", count=amount)


def name_of(seat: int | None, names: list[str]) -> str | None:
    """The seat's name, or None for no seat."""
    return None if seat is None else names[seat]


def held_articles(held: dict[str, int], lang: str) -> list[dict[str, Any]]:
    """Article counts in the rules' order: kind, name, short name (for chips), count."""
    return [
        {"kind": a, "name": card_name(a, lang), "short": short_name(a, lang), "count": held[a]}
        for a in ARTICLE_IDS
        if held.get(a)
    ]


def short_name(article: str, lang: str) -> str:
    """An article's name in a word or two ("Potions"), for the board's chips on a phone."""
    return say(lang, f"fb.short.{article}")


def row_cards(row: list[dict[str, Any]], names: list[str], lang: str) -> list[dict[str, Any]]:
    """The revealed cards; a special is named only when the view shows it (to its winner)."""
    return [
        {
            "slot": entry["slot"],
            "number": entry["slot"] + 1,
            "special": entry["special"],
            "name": card_name(entry["card"], lang) if entry["card"] else None,
            "short": _short(entry["card"], entry["special"], lang),
            "base": entry["base"],
            "status": entry["status"],
            "winner": name_of(entry["winner"], names),
            "price": entry["price"],
        }
        for entry in row
    ]


def _short(card: str | None, special: bool, lang: str) -> str | None:
    if card is None:
        return None  # a special face down: the page says so in its own words
    return card_name(card, lang) if special else short_name(card_type(card), lang)


def in_sale_order(row: list[dict[str, Any]], order: list[int] | None) -> list[dict[str, Any]]:
    """The row in the order of sale, each card with its place in it ("position", from 1)."""
    slots = order if order is not None and len(order) == len(row) else range(len(row))
    return [{**row[slot], "position": k} for k, slot in enumerate(slots, start=1)]


def played_lines(records: list[dict[str, Any]], names: list[str], lang: str) -> list[str]:
    """Played specials in words (they are discarded face up, so all of it is public)."""
    lines = describe_events([{"e": "played", **record} for record in records], None)
    return [render(line, lang, names) for line in lines]
