"""Per-game presentation: turn a game's view into page and mail data, and forms into moves."""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

_MODULES = {"colour-bazaar": "pbem.present.colour_bazaar"}


def presenter(slug: str) -> ModuleType:
    """The presentation module of a game."""
    return import_module(_MODULES[slug])
