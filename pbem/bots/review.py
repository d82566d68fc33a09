"""A finished game's review for one seat: each of its decisions beside the strong level's.

For every move the seat made, the review rebuilds the state before it, and from then on
works from the seat's view alone (what the seat could see then, as `pbem.bots.decide`
does): the strong level searches that view with the move played added to its root moves,
and the root's statistics give each move's expected value, the mean win chance (0..1) of
the simulations that followed it. The loss of a decision is the strong level's best
value less the played move's (0 when they agree, never below 0: the strong level's choice
is its most visited move, which a few simulations may rate a hair below another). The
rng of each decision comes from the game's seed, the ply and the seat with a salt of its
own, so a review is the same every time it is worked out, and not the bots' own rng.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pbem.bots import STRONG_SIMULATIONS, bot_of, seeded_rng
from pbem.bots.search import RootChild, choice, follow, move_key, search_root
from pbem.games import fairdeal
from pbem.games.base import Game, GameError, Move, State

# Below this loss (in win chance, 0..1) a decision cost nothing worth showing.
LOSS_THRESHOLD = 0.02
# The played move is measured over at least this share of the budget, searched or added.
MIN_SHARE = 0.15
COSTLIEST = 3  # the moments that cost most, shown first
# The log's sources whose moves the seat's person did not choose (pbem.models.Move.source).
NOT_THEIRS = frozenset({"computer", "left"})
SALT = "review"


@dataclass(frozen=True)
class Setup:
    """What rebuilds a game's states from its log: players, options, seed, and where take
    backs shuffled the pile (pbem.games.fairdeal)."""

    players: int
    options: dict[str, Any]
    seed: int
    shuffles: Sequence[tuple[int, int]] = ()


@dataclass(frozen=True)
class Played:
    """One move of the log: who made it, the move, and how it came (web, mail, timeout...)."""

    seat: int
    move: Move
    source: str = "web"


@dataclass
class Decision:
    """One decision of the seat, judged from its view at the time."""

    ply: int  # the move's place in the log (0: the first move); the replay's ply before it
    source: str
    played: Move
    best: Move
    played_said: list[dict[str, Any]]  # the move in words (pbem.games.message.Message.to_json)
    best_said: list[dict[str, Any]]
    played_value: float  # the mean win chance of the simulations that followed it
    best_value: float
    loss: float
    options: int  # the moves the search compared

    @property
    def agrees(self) -> bool:
        """Whether the strong level would have made the same move."""
        return move_key(self.played) == move_key(self.best)

    def to_json(self) -> dict[str, Any]:
        """The decision as plain data, for storage."""
        return {
            "ply": self.ply,
            "source": self.source,
            "played": self.played,
            "best": self.best,
            "played_said": self.played_said,
            "best_said": self.best_said,
            "played_value": round(self.played_value, 4),
            "best_value": round(self.best_value, 4),
            "loss": round(self.loss, 4),
            "agrees": self.agrees,
            "options": self.options,
        }


@dataclass
class Review:
    """A seat's review: every decision in order, and the plies of the costliest ones."""

    seat: int
    simulations: int
    decisions: list[Decision] = field(default_factory=list)

    def costliest(self, count: int = COSTLIEST) -> list[Decision]:
        """The `count` decisions that lost most (above LOSS_THRESHOLD), the worst first."""
        lost = [d for d in self.decisions if d.loss > LOSS_THRESHOLD]
        return sorted(lost, key=lambda d: (-d.loss, d.ply))[:count]

    def to_json(self) -> dict[str, Any]:
        """The review as plain data, for storage."""
        return {
            "seat": self.seat,
            "simulations": self.simulations,
            "decisions": [d.to_json() for d in self.decisions],
            "costliest": [d.ply for d in self.costliest()],
        }


def said(game: Game, view: dict[str, Any], seat: int, move: Move) -> list[dict[str, Any]]:
    """The move in words as its player may read it before sending it (game.review), from a
    state dealt from the view: only what the seat saw goes into the words."""
    state = game.deal(view, seat, random.Random(0))
    try:
        return [m.to_json() for m in game.review(state, seat, move)]
    except GameError:
        return []


def judge(
    game: Game,
    view: dict[str, Any],
    legal: list[Move],
    played: Move,
    rng: random.Random,
    simulations: int,
) -> tuple[Move, float, float, int]:
    """(the strong level's move, its value, the played move's value, moves compared) from
    the seat's `view` only: the strong search with the played move among its root moves."""
    seat = view["seat"]
    children = search_root(bot_of(game), game, view, seat, legal, rng, simulations, [played])
    best = choice(bot_of(game), children)
    # A budget smaller than the root moves may leave the played move untried.
    tried = [c for c in children if move_key(c.move) == move_key(played)]
    mine = tried[0] if tried else RootChild(played, 0, 0.0)
    short = max(math.ceil(simulations * MIN_SHARE), 1) - mine.visits
    if short > 0:
        # UCB leaves a weak move few simulations: a value from one or two is a coin toss.
        more = follow(bot_of(game), game, view, seat, played, rng, short)
        mine = RootChild(played, mine.visits + more.visits, mine.total + more.total)
        if move_key(played) == move_key(best.move):
            best = mine
    return best.move, best.mean, mine.mean, len(children)


def decision_at(
    game: Game,
    state: State,
    seat: int,
    ply: int,
    played: Played,
    game_seed: Any,
    simulations: int,
) -> Decision | None:
    """The seat's decision at `ply` judged from its view of `state` (None when the move was
    forced: one legal move, nothing to choose)."""
    view = game.view(state, seat)
    legal = game.legal_moves(state, seat)
    del state  # as pbem.bots.decide: the view and the legal moves, nothing more
    if len(legal) == 1 and move_key(legal[0]) == move_key(played.move):
        return None
    rng = seeded_rng(f"{SALT}:{game_seed}", ply, seat)
    best, best_value, played_value, options = judge(
        game, view, legal, played.move, rng, simulations
    )
    agrees = move_key(best) == move_key(played.move)
    loss = 0.0 if agrees else max(0.0, best_value - played_value)
    return Decision(
        ply=ply,
        source=played.source,
        played=played.move,
        best=best,
        played_said=said(game, view, seat, played.move),
        best_said=said(game, view, seat, best),
        played_value=played_value,
        best_value=best_value,
        loss=loss,
        options=options,
    )


def states_before(game: Game, setup: Setup, log: Sequence[Played]) -> list[State]:
    """The state before each move of `log`, rebuilt from the seed (pbem.present.replay's
    states: the same seed, moves and shuffles give the same states)."""
    state = game.setup(setup.players, setup.options, setup.seed)
    found = []
    for ply, played in enumerate(log):
        state = fairdeal.shuffled_at(state, setup.seed, setup.shuffles, ply)
        found.append(state)
        state = game.apply(state, played.seat, played.move)
    return found


def simulations_for(game: Game, simulations: int | None = None) -> int:
    """The budget of one decision's review: `simulations`, else the strong level's."""
    return simulations or STRONG_SIMULATIONS[game.slug]


def review_seat(
    game: Game,
    setup: Setup,
    log: Sequence[Played],
    seat: int,
    simulations: int | None = None,
) -> Review:
    """The review of `seat` over a finished game's `log`: each move it chose, judged."""
    budget = simulations_for(game, simulations)
    review = Review(seat, budget)
    for ply, (state, played) in enumerate(zip(states_before(game, setup, log), log, strict=True)):
        if played.seat != seat or played.source in NOT_THEIRS:
            continue
        found = decision_at(game, state, seat, ply, played, setup.seed, budget)
        if found is not None:
            review.decisions.append(found)
    return review


__all__ = ["Decision", "Played", "Review", "Setup", "decision_at", "judge", "review_seat"]
