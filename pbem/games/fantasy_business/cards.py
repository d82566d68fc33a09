"""Fantasy Business cards: the article and special card data, kept in this one place.

Spec references ("Spec: ...") point at sections of shared/rules/fantasy-business-spec.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pbem.games.base import BadOptions


@dataclass(frozen=True)
class Article:
    """One of the eight articles: its id, names and base price in écus."""

    id: str
    en: str
    fr: str
    base: int


@dataclass(frozen=True)
class SpecialKind:
    """One kind of special card: its id, names, standard copies and amount (if any)."""

    id: str
    en: str
    fr: str
    copies: int
    amount: int | None = None


# Spec, Components: 48 article cards, 6 of each of 8 articles, with their base prices.
ARTICLES: tuple[Article, ...] = (
    Article("herbs", "Medicinal herbs", "Plantes médicinales", 2),
    Article("components", "Magic components", "Composants magiques", 3),
    Article("bows", "Bows and arrows", "Arcs et flèches", 3),
    Article("swords", "Swords", "Épées", 4),
    Article("armour", "Armour", "Armures", 5),
    Article("horses", "Horses", "Chevaux", 5),
    Article("scrolls", "Spell scrolls", "Parchemins de sort", 6),
    Article("potions", "Magic potions", "Potions magiques", 6),
)
COPIES_PER_ARTICLE = 6

# Spec, Special cards: the 24 specials; the subsidy's amount is the écus it gives.
SPECIAL_KINDS: tuple[SpecialKind, ...] = (
    SpecialKind("subsidy", "Special subsidy", "Subvention extraordinaire", 5, 5),
    SpecialKind("theft", "Theft", "Vol", 4),
    SpecialKind("defaulting", "Defaulting buyer", "Acheteur défaillant", 5),
    SpecialKind("defective", "Defective goods", "Article défectueux", 5),
    SpecialKind("antitrust", "Antitrust law", "Loi anti-trust", 5),
)
# Spec, Components: a special card's base price at auction.
SPECIAL_BASE = 1
MAX_COPIES = 10
AMOUNT_RANGE = (1, 20)

ARTICLE_BY_ID: dict[str, Article] = {a.id: a for a in ARTICLES}
KIND_BY_ID: dict[str, SpecialKind] = {k.id: k for k in SPECIAL_KINDS}
ARTICLE_IDS: tuple[str, ...] = tuple(a.id for a in ARTICLES)

# Every card id that can exist under any option: "herbs-1".."herbs-6", "subsidy-1".."subsidy-10".
ALL_CARD_IDS: frozenset[str] = frozenset(
    [f"{a.id}-{i}" for a in ARTICLES for i in range(1, COPIES_PER_ARTICLE + 1)]
    + [f"{k.id}-{i}" for k in SPECIAL_KINDS for i in range(1, MAX_COPIES + 1)]
)


def standard_table() -> dict[str, dict[str, int]]:
    """The special cards table of the spec: kind -> copies (and amount)."""
    table: dict[str, dict[str, int]] = {}
    for kind in SPECIAL_KINDS:
        entry = {"copies": kind.copies}
        if kind.amount is not None:
            entry["amount"] = kind.amount
        table[kind.id] = entry
    return table


def _no_specials() -> dict[str, dict[str, int]]:
    table = standard_table()
    for entry in table.values():
        entry["copies"] = 0
    return table


PRESETS: dict[str, Any] = {"standard": standard_table, "none": _no_specials}


def specials_table(value: Any) -> dict[str, dict[str, int]]:
    """Validate the `specials` option (a preset name or a table); return the full table.

    A table maps a kind to its copies (an int) or to {"copies": n, "amount": n}; kinds left
    out keep their standard entry. Only kinds with an amount (the subsidy) accept one.
    """
    if isinstance(value, str):
        if value not in PRESETS:
            raise BadOptions("fb.option_specials", choices=", ".join(PRESETS))
        preset: dict[str, dict[str, int]] = PRESETS[value]()
        return preset
    if not isinstance(value, dict):
        raise BadOptions("fb.option_specials", choices=", ".join(PRESETS))
    table = standard_table()
    for kind_id, given in value.items():
        if not isinstance(kind_id, str) or kind_id not in KIND_BY_ID:
            raise BadOptions("fb.option_specials_kind", name=str(kind_id)[:40])
        entry = table[kind_id]
        if not isinstance(given, dict):
            given = {"copies": given}
        for field, number in given.items():
            if field not in entry:
                raise BadOptions("fb.option_specials_field", card=kind_id, name=str(field)[:40])
            low, high = (0, MAX_COPIES) if field == "copies" else AMOUNT_RANGE
            if isinstance(number, bool) or not isinstance(number, int) or not low <= number <= high:
                raise BadOptions(f"fb.option_specials_{field}", card=kind_id, low=low, high=high)
            entry[field] = number
    return table


def build_deck(table: dict[str, dict[str, int]]) -> list[str]:
    """All the cards of a game, in a fixed order (shuffled by the caller)."""
    deck = [f"{a.id}-{i}" for a in ARTICLES for i in range(1, COPIES_PER_ARTICLE + 1)]
    for kind in SPECIAL_KINDS:
        deck.extend(f"{kind.id}-{i}" for i in range(1, table[kind.id]["copies"] + 1))
    return deck


# Precomputed card tables: the engine asks these questions on every move.
_TYPE: dict[str, str] = {card: card.rsplit("-", 1)[0] for card in ALL_CARD_IDS}
CARD_TYPE = _TYPE  # card id -> article id or special kind, for the engine's inner loops
_SPECIAL_IDS: frozenset[str] = frozenset(c for c, kind in _TYPE.items() if kind in KIND_BY_ID)
_BASE: dict[str, int] = {
    card: ARTICLE_BY_ID[kind].base if kind in ARTICLE_BY_ID else SPECIAL_BASE
    for card, kind in _TYPE.items()
}


def card_type(card: str) -> str:
    """The article id or special kind of a card id: "herbs-3" -> "herbs"."""
    kind = _TYPE.get(card)
    return kind if kind is not None else card.rsplit("-", 1)[0]


def is_special(card: str) -> bool:
    """Whether a card id is a special card."""
    return card in _SPECIAL_IDS or (card not in _TYPE and card_type(card) in KIND_BY_ID)


def base_price(card: str) -> int:
    """The auction base price of a card (spec, Components: 1 écu for a special)."""
    price = _BASE.get(card)
    if price is not None:
        return price
    kind = card_type(card)
    return ARTICLE_BY_ID[kind].base if kind in ARTICLE_BY_ID else SPECIAL_BASE


def article_base(article: str) -> int:
    """The base price of an article id."""
    return ARTICLE_BY_ID[article].base
