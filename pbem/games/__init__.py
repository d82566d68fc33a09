"""The rules of the games, in pure Python: nothing here imports beyond the standard library."""

from __future__ import annotations

from pbem.games.base import BadOptions, Game, GameError, IllegalMove, Outcome
from pbem.games.colour_bazaar import ColourBazaar
from pbem.games.fantasy_business import FantasyBusiness
from pbem.games.message import Message

GAMES: dict[str, Game] = {game.slug: game for game in (ColourBazaar(), FantasyBusiness())}


__all__ = [
    "GAMES",
    "BadOptions",
    "Game",
    "GameError",
    "IllegalMove",
    "Message",
    "Outcome",
]
