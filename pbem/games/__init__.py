"""The rules of the games, in pure Python: nothing here imports beyond the standard library."""

from __future__ import annotations

from pbem.games.base import BadOptions, Game, GameError, IllegalMove, Message, Outcome
from pbem.games.colour_bazaar import ColourBazaar
from pbem.games.fantasy_business import FantasyBusiness

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
