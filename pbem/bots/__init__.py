"""Computer players, in pure Python like the rules: nothing here imports beyond the stdlib.

A bot decides from what its seat may see and nothing else:
`choose(game, view, legal_moves, rng, budget) -> move`. Its input is the seat's view and
the legal moves, never the state; search bots sample full states with `game.deal`.
Levels are named for players: "beginner" (legal moves with a little sense), "casual"
(one-move lookahead with the game's own scoring) and "strong" (information-set Monte
Carlo tree search over dealt states). The budget is a number of simulations, never a
clock, so a decision depends only on the view and the rng; `seeded_rng` derives that
rng from the game's seed, the ply and the seat, so a replay or a test gives the same
moves. A finished game's review (`pbem.bots.review`) judges a seat's decisions with the
strong level's search, from the seat's views alone.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import Any

from pbem.bots import colour_bazaar, fantasy_business
from pbem.bots.search import GameBot, search
from pbem.games.base import Game, Move, State

LEVELS: tuple[str, ...] = ("beginner", "casual", "strong")

# Simulations per decision at the strong level: about one second of one core (bench/bots.py).
STRONG_SIMULATIONS = {"colour-bazaar": 300, "fantasy-business": 150}

_BOTS: dict[str, GameBot] = {
    "colour-bazaar": colour_bazaar.BOT,
    "fantasy-business": fantasy_business.BOT,
}


@dataclass(frozen=True)
class Budget:
    """How hard a bot thinks: its level, and for "strong" the simulations per decision
    (None: the default, about one second of one core)."""

    level: str = "strong"
    simulations: int | None = None

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"unknown level {self.level!r}")


def bot_of(game: Game) -> GameBot:
    """The game's bot module: its levels and what the search asks of it."""
    return _BOTS[game.slug]


def seeded_rng(game_seed: Any, ply: int, seat: int) -> random.Random:
    """The rng of one decision: from the game's seed, the ply and the seat, nothing else."""
    digest = hashlib.sha256(f"pbem-bot:{game_seed}:{ply}:{seat}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def choose(
    game: Game,
    view: dict[str, Any],
    legal_moves: list[Move],
    rng: random.Random,
    budget: Budget | str = "strong",
) -> Move:
    """The move a bot of `budget`'s level makes, seeing only `view` and `legal_moves`."""
    if isinstance(budget, str):
        budget = Budget(budget)
    if not legal_moves:
        raise ValueError("no legal move to choose from")
    bot = _BOTS[game.slug]
    seat = view["seat"]
    if len(legal_moves) == 1 and budget.level != "beginner":
        return legal_moves[0]
    if budget.level == "beginner":
        return bot.beginner(game, view, legal_moves, rng)
    if budget.level == "casual":
        return bot.casual(game, view, legal_moves, rng)
    simulations = budget.simulations or STRONG_SIMULATIONS[game.slug]
    return search(bot, game, view, seat, legal_moves, rng, simulations)


def decide(
    game: Game,
    state: State,
    seat: int,
    level: str,
    game_seed: Any,
    simulations: int | None = None,
) -> Move:
    """The server's entry: the bot of `level` at `seat` moves, from that seat's view only."""
    view = game.view(state, seat)
    legal = game.legal_moves(state, seat)
    del state  # the bot sees the view and the legal moves, nothing more
    rng = seeded_rng(game_seed, view["ply"], seat)
    return choose(game, view, legal, rng, Budget(level, simulations))


__all__ = ["LEVELS", "Budget", "bot_of", "choose", "decide", "seeded_rng"]
