"""The Decktet: 45 cards with stable short ids, copied from shared/decktet.json.

Ids are lower-case and stable: they appear in URLs, emails and move logs.
"""

from __future__ import annotations

from dataclasses import dataclass

SUITS: tuple[str, ...] = ("moons", "suns", "waves", "leaves", "wyrms", "knots")
SUIT_COLOURS: dict[str, str] = {
    "moons": "#c7c8ca",
    "suns": "#e08426",
    "waves": "#6a9fcc",
    "leaves": "#bc8a5d",
    "wyrms": "#6fc055",
    "knots": "#d6dd40",
}

# id, English name, kind, rank, suits (in the conventional suit order)
_CARD_DATA: tuple[tuple[str, str, str, int | None, tuple[str, ...]], ...] = (
    ("ace-moons", "Ace of Moons", "ace", 1, ("moons",)),
    ("ace-suns", "Ace of Suns", "ace", 1, ("suns",)),
    ("ace-waves", "Ace of Waves", "ace", 1, ("waves",)),
    ("ace-leaves", "Ace of Leaves", "ace", 1, ("leaves",)),
    ("ace-wyrms", "Ace of Wyrms", "ace", 1, ("wyrms",)),
    ("ace-knots", "Ace of Knots", "ace", 1, ("knots",)),
    ("author", "The Author", "numeral", 2, ("moons", "knots")),
    ("desert", "The Desert", "numeral", 2, ("suns", "wyrms")),
    ("origin", "The Origin", "numeral", 2, ("waves", "leaves")),
    ("journey", "The Journey", "numeral", 3, ("moons", "waves")),
    ("painter", "The Painter", "numeral", 3, ("suns", "knots")),
    ("savage", "The Savage", "numeral", 3, ("leaves", "wyrms")),
    ("mountain", "The Mountain", "numeral", 4, ("moons", "suns")),
    ("sailor", "The Sailor", "numeral", 4, ("waves", "leaves")),
    ("battle", "The Battle", "numeral", 4, ("wyrms", "knots")),
    ("forest", "The Forest", "numeral", 5, ("moons", "leaves")),
    ("discovery", "The Discovery", "numeral", 5, ("suns", "waves")),
    ("soldier", "The Soldier", "numeral", 5, ("wyrms", "knots")),
    ("lunatic", "The Lunatic", "numeral", 6, ("moons", "waves")),
    ("penitent", "The Penitent", "numeral", 6, ("suns", "wyrms")),
    ("market", "The Market", "numeral", 6, ("leaves", "knots")),
    ("chance-meeting", "The Chance Meeting", "numeral", 7, ("moons", "leaves")),
    ("castle", "The Castle", "numeral", 7, ("suns", "knots")),
    ("cave", "The Cave", "numeral", 7, ("waves", "wyrms")),
    ("diplomat", "The Diplomat", "numeral", 8, ("moons", "suns")),
    ("mill", "The Mill", "numeral", 8, ("waves", "leaves")),
    ("betrayal", "The Betrayal", "numeral", 8, ("wyrms", "knots")),
    ("pact", "The Pact", "numeral", 9, ("moons", "suns")),
    ("darkness", "The Darkness", "numeral", 9, ("waves", "wyrms")),
    ("merchant", "The Merchant", "numeral", 9, ("leaves", "knots")),
    ("huntress", "The Huntress", "crown", None, ("moons",)),
    ("bard", "The Bard", "crown", None, ("suns",)),
    ("sea", "The Sea", "crown", None, ("waves",)),
    ("end", "The End", "crown", None, ("leaves",)),
    ("calamity", "The Calamity", "crown", None, ("wyrms",)),
    ("windfall", "The Windfall", "crown", None, ("knots",)),
    ("watchman", "The Watchman", "pawn", None, ("moons", "wyrms", "knots")),
    ("borderland", "The Borderland", "pawn", None, ("waves", "leaves", "wyrms")),
    ("harvest", "The Harvest", "pawn", None, ("moons", "suns", "leaves")),
    ("light-keeper", "The Light Keeper", "pawn", None, ("suns", "waves", "knots")),
    ("consul", "The Consul", "court", None, ("moons", "waves", "knots")),
    ("rite", "The Rite", "court", None, ("moons", "leaves", "wyrms")),
    ("window", "The Window", "court", None, ("suns", "leaves", "knots")),
    ("island", "The Island", "court", None, ("suns", "waves", "wyrms")),
    ("excuse", "The Excuse", "excuse", None, ()),
)


@dataclass(frozen=True)
class Card:
    """One Decktet card."""

    id: str
    name: str
    kind: str  # ace, numeral, crown, pawn, court or excuse
    rank: int | None  # 1 for aces, 2-9 for numerals, None otherwise
    suits: tuple[str, ...]
    mask: int  # one bit per suit, in SUITS order


def _mask(suits: tuple[str, ...]) -> int:
    return sum(1 << SUITS.index(suit) for suit in suits)


CARDS: dict[str, Card] = {
    cid: Card(cid, name, kind, rank, suits, _mask(suits))
    for cid, name, kind, rank, suits in _CARD_DATA
}
BASIC: tuple[str, ...] = tuple(
    c.id for c in CARDS.values() if c.kind in ("ace", "numeral", "crown")
)
PAWNS: tuple[str, ...] = tuple(c.id for c in CARDS.values() if c.kind == "pawn")
COURTS: tuple[str, ...] = tuple(c.id for c in CARDS.values() if c.kind == "court")
