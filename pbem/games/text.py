"""Turn game messages into sentences, from the JSON catalogues in messages/.

Catalogue files are named `<part>.<lang>.json`; all parts of one language are
merged. A key missing in a language falls back to English, then to the key.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from pbem.games.message import Message

LANGUAGES: tuple[str, ...] = ("en", "fr")
_DIR = Path(__file__).with_name("messages")


@cache
def catalogue(lang: str) -> dict[str, str]:
    """Every game string of one language."""
    merged: dict[str, str] = {}
    for path in sorted(_DIR.glob(f"*.{lang}.json")):
        merged.update(json.loads(path.read_text(encoding="utf-8")))
    return merged


def lookup(key: str, lang: str = "en") -> str:
    """The catalogue string for `key` in `lang`, else English, else the key."""
    return catalogue(lang).get(key) or catalogue("en").get(key) or key


def card_name(card_id: str, lang: str = "en") -> str:
    """A card's name in `lang`."""
    return lookup(f"card.{card_id}", lang)


def suit_name(suit: str, lang: str = "en") -> str:
    """A suit's name in `lang`."""
    return lookup(f"suit.{suit}", lang)


def seat_name(seat: int, lang: str = "en", names: list[str] | None = None) -> str:
    """A seat's player name, or "Player N" when names are not given."""
    if names is not None and 0 <= seat < len(names):
        return names[seat]
    return lookup("seat.default", lang).format(number=seat + 1)


def _param(name: str, value: Any, lang: str, names: list[str] | None) -> Any:
    if name.endswith("cards"):
        return ", ".join(card_name(c, lang) for c in value)
    if name.endswith("card"):
        return card_name(value, lang)
    if name.endswith("suit"):
        return suit_name(value, lang)
    if name.endswith("seat"):
        return seat_name(value, lang, names)
    if name.endswith("market"):
        return value + 1
    return value


def render(msg: Message, lang: str = "en", names: list[str] | None = None) -> str:
    """The message as a sentence in `lang`, with player names if given."""
    params = {k: _param(k, v, lang, names) for k, v in msg.params.items()}
    try:
        return lookup(msg.key, lang).format(**params)
    except (KeyError, IndexError, ValueError):
        return lookup(msg.key, "en").format(**params)
