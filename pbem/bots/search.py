"""Information-set Monte Carlo tree search: one tree over a seat's own choices.

Each simulation deals a full state from the seat's view (`game.deal`), so what the seat
cannot see is drawn afresh every time; the other seats' secret choices already made
(limits, sealed bids, lists of plays) are then redrawn from the opponent model, as a
uniformly random limit is not what a player sends. The tree holds only the searching seat's
decisions; other seats, and the seat itself below the tree, play the game's fast policy.
A child is scored by UCB over the simulations in which its move was available (the
"availability" count of single-observer ISMCTS), so moves legal in some deals only are
compared fairly. The number of simulations is fixed by the caller: the same view and
rng give the same move.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from typing import Any, Protocol

from pbem.games.base import Game, Move, State

EXPLORATION = 0.7


class GameBot(Protocol):
    """What a game's bot module offers the levels and the search."""

    # None: the search plays its most visited move; a margin: see `choice`.
    anchor: float | None

    def beginner(
        self, game: Game, view: dict[str, Any], legal: list[Move], rng: random.Random
    ) -> Move:
        """A legal move with a little sense."""
        ...

    def casual(
        self, game: Game, view: dict[str, Any], legal: list[Move], rng: random.Random
    ) -> Move:
        """The best move by a one-move lookahead with the game's own scoring."""
        ...

    def candidates(self, state: State, seat: int, legal: list[Move] | None) -> list[Move]:
        """The moves worth searching for `seat` (from its own information only)."""
        ...

    def model_secrets(self, state: State, seat: int, rng: random.Random) -> State:
        """A dealt state with the other seats' hidden choices (drawn at random by the deal)
        replaced by what the opponent model would have chosen."""
        ...

    def policy(self, state: State, seat: int, rng: random.Random) -> Move:
        """A quick, sensible move for any seat in a simulation."""
        ...

    def evaluate(self, state: State, seat: int) -> float:
        """How good the state is for `seat`, from 0 (lost) to 1 (won)."""
        ...

    def horizon(self, start: State, state: State) -> bool:
        """Whether a simulation from `start` may stop at `state` and be evaluated."""
        ...


class Node:
    """One decision of the searching seat: its children by move."""

    __slots__ = ("children", "visits", "total", "avail", "move")

    def __init__(self, move: Move | None = None) -> None:
        self.children: dict[str, Node] = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 0
        self.move = move


def move_key(move: Move) -> str:
    """A move as a dictionary key."""
    return json.dumps(move, sort_keys=True)


def _select(node: Node, options: list[Move], rng: random.Random) -> tuple[Node, bool]:
    """The child to follow: an untried option first, else the best by UCB; and whether new."""
    keyed = [(move_key(m), m) for m in options]
    untried = [(k, m) for k, m in keyed if k not in node.children]
    for k, _ in keyed:
        child = node.children.get(k)
        if child is not None:
            child.avail += 1
    if untried:
        k, m = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
        child = Node(m)
        child.avail = 1
        node.children[k] = child
        return child, True
    best: Node | None = None
    best_score = -1.0
    for k, _ in keyed:
        child = node.children[k]
        score = child.total / child.visits + EXPLORATION * math.sqrt(
            math.log(max(child.avail, 1)) / child.visits
        )
        if score > best_score:
            best, best_score = child, score
    assert best is not None
    return best, False


@dataclass(frozen=True)
class RootChild:
    """One of the seat's moves at the root after a search: how often it was followed and the
    sum of the values (0..1, the seat's win chance) its simulations came back with."""

    move: Move
    visits: int
    total: float
    first: bool = False  # the bot's first candidate: its own quick choice

    @property
    def mean(self) -> float:
        """The move's expected value: the mean win chance of its simulations."""
        return self.total / self.visits if self.visits else 0.0


def _grow(
    bot: GameBot,
    game: Game,
    view: dict[str, Any],
    seat: int,
    root_moves: list[Move],
    rng: random.Random,
    simulations: int,
) -> list[RootChild]:
    """Run `simulations` simulations over `root_moves`: the root's children, in the order
    they were first tried."""
    root = Node()
    for _ in range(simulations):
        state = bot.model_secrets(game.deal(view, seat, rng), seat, rng)
        start = state
        node = root
        path = [root]
        in_tree = True
        while not game.is_over(state):
            actor = game.to_act(state)[0]
            if actor == seat and in_tree:
                options = root_moves if node is root else bot.candidates(state, seat, None)
                if len(options) == 1 and node is not root:
                    move = options[0]
                else:
                    # A lone root move (a review's `follow`) still gets its child node.
                    node, new = _select(node, options, rng)
                    path.append(node)
                    assert node.move is not None
                    move = node.move
                    in_tree = not new
            else:
                move = bot.policy(state, actor, rng)
            state = game.apply(state, actor, move)
            if bot.horizon(start, state):
                break
        value = bot.evaluate(state, seat)
        for visited in path:
            visited.visits += 1
            visited.total += value
    children = []
    quick = move_key(root_moves[0])
    for key, child in root.children.items():
        assert child.move is not None
        children.append(RootChild(child.move, child.visits, child.total, key == quick))
    return children


def search_root(
    bot: GameBot,
    game: Game,
    view: dict[str, Any],
    seat: int,
    legal: list[Move],
    rng: random.Random,
    simulations: int,
    also: list[Move] | None = None,
) -> list[RootChild]:
    """The root's statistics after `simulations` simulations over the seat's candidate moves
    and the moves `also` gives (a review adds the move played): every root move is simulated,
    even a lone one, so each has a value."""
    first = bot.model_secrets(game.deal(view, seat, rng), seat, rng)
    root_moves = list(bot.candidates(first, seat, legal))
    known = {move_key(m) for m in root_moves}
    for move in also or []:
        if move_key(move) not in known:
            known.add(move_key(move))
            root_moves.append(move)
    return _grow(bot, game, view, seat, root_moves, rng, simulations)


def follow(
    bot: GameBot,
    game: Game,
    view: dict[str, Any],
    seat: int,
    move: Move,
    rng: random.Random,
    simulations: int,
) -> RootChild:
    """`simulations` more simulations that all start with `move` at the root: a review's
    measure of a move the search visited too seldom to say what it is worth."""
    return _grow(bot, game, view, seat, [move], rng, simulations)[0]


def best_of(children: list[RootChild]) -> RootChild:
    """The most visited child, the higher total between equals."""
    return max(children, key=lambda c: (c.visits, c.total))


def choice(bot: GameBot, children: list[RootChild]) -> RootChild:
    """The child a search plays: the most visited; for a bot with an `anchor` margin, its
    first candidate (its own quick choice) unless that one's mean value is beaten by more
    than the margin, as a few simulations a move are noisy."""
    best = best_of(children)
    if bot.anchor is not None:
        own = next((c for c in children if c.first), None)
        if own is not None and best.mean <= own.mean + bot.anchor:
            return own
    return best


def search(
    bot: GameBot,
    game: Game,
    view: dict[str, Any],
    seat: int,
    legal: list[Move],
    rng: random.Random,
    simulations: int,
) -> Move:
    """The move `choice` picks after `simulations` simulations over the seat's candidates."""
    first = bot.model_secrets(game.deal(view, seat, rng), seat, rng)
    root_moves = bot.candidates(first, seat, legal)
    if len(root_moves) == 1:
        return root_moves[0]
    return choice(bot, _grow(bot, game, view, seat, root_moves, rng, simulations)).move
