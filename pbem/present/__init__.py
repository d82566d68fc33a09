"""Per-game presentation: turn a game's view into page and mail data, and forms into moves."""

from __future__ import annotations

from importlib import import_module
from types import ModuleType
from typing import Any

from pbem.games import GAMES

_MODULES = {
    "colour-bazaar": "pbem.present.colour_bazaar",
    "fantasy-business": "pbem.present.fantasy_business",
}


def playable() -> dict[str, Any]:
    """The registered games that have pages, in registry order."""
    return {slug: game for slug, game in GAMES.items() if slug in _MODULES}


def presenter(slug: str) -> ModuleType:
    """The presentation module of a game."""
    return import_module(_MODULES[slug])
