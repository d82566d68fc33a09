"""The game interface every game implements, and the small types it speaks in.

A game is a stateless object; all of a game's data lives in its state, a plain
JSON-serialisable dict. Moves are plain dicts too. All randomness is drawn from
the seed given to `setup`, so replaying the move log from the seed rebuilds the
state exactly.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from pbem.games.message import Message

State = dict[str, Any]
Move = dict[str, Any]


class GameError(ValueError):
    """Base of the errors a game raises; carries a translatable message."""

    def __init__(self, key: str, **params: Any) -> None:
        self.msg = Message(key, params)
        super().__init__(key)

    def __str__(self) -> str:
        # The sentence is the presentation's business (pbem.present.text.error_text).
        return f"{self.msg.key} {self.msg.params}" if self.msg.params else self.msg.key


class IllegalMove(GameError):
    """The move is well formed but the rules forbid it, or it is malformed."""


class BadOptions(GameError):
    """The options or the number of players do not fit the game."""


@dataclass(frozen=True)
class Option:
    """One setting a game offers at creation."""

    name: str
    kind: str  # "bool", "int" or "choice"
    default: Any
    choices: tuple[Any, ...] = ()
    minimum: int | None = None
    maximum: int | None = None


@dataclass
class Outcome:
    """The result of a finished game."""

    scores: list[int]
    ranks: list[int]  # 1 is best; tied seats share a rank
    breakdown: dict[str, Any]

    def winners(self) -> list[int]:
        """Seats ranked first."""
        return [seat for seat, rank in enumerate(self.ranks) if rank == 1]


def shared_ranks(scores: list[int]) -> list[int]:
    """Rank scores, highest first; equal scores share the better rank."""
    return [1 + sum(other > score for other in scores) for score in scores]


class Game:
    """The interface: subclasses fill in the rules of one game."""

    slug: str = ""
    title: str = ""
    min_players: int = 2
    max_players: int = 2
    options: tuple[Option, ...] = ()

    def check_options(self, n_players: int, options: dict[str, Any] | None) -> dict[str, Any]:
        """Validate options for `n_players`; return them complete with defaults."""
        if not self.min_players <= n_players <= self.max_players:
            raise BadOptions(
                "error.players", low=self.min_players, high=self.max_players, count=n_players
            )
        given = dict(options or {})
        known = {opt.name: opt for opt in self.options}
        for name in given:
            if name not in known:
                raise BadOptions("error.option_unknown", name=name)
        result: dict[str, Any] = {}
        for opt in self.options:
            value = given.get(opt.name, opt.default)
            result[opt.name] = _check_option(opt, value)
        return result

    def setup(self, n_players: int, options: dict[str, Any] | None, seed: int) -> State:
        """A new game's state."""
        raise NotImplementedError

    def to_act(self, state: State) -> list[int]:
        """The seats that may act now; several for simultaneous steps, none when over."""
        raise NotImplementedError

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Every move `seat` may make now (empty when it is not their turn)."""
        raise NotImplementedError

    def apply(self, state: State, seat: int, move: Move) -> State:
        """The state after `seat` makes `move`; the given state is left untouched."""
        raise NotImplementedError

    def view(self, state: State, seat: int | None, rounds: int | None = None) -> dict[str, Any]:
        """What `seat` may see of the state; None is a spectator.

        `rounds`: in a game played in rounds, the view's history holds the current round and
        only the `rounds` before it (a page shows the last ones; None, every round). A game
        without such a history ignores it.
        """
        raise NotImplementedError

    def release_history(self, state: State) -> tuple[State, list[dict[str, Any]]]:
        """`state` as stored between moves, without the finished rounds no rule needs any more,
        and those rounds' records (each a dict with its number, "round"), to be kept apart.

        A state that does not grow keeps them all (the default): nothing is released."""
        return state, []

    def released(self, state: State, rounds: int | None = None) -> list[int]:
        """The numbers of the released rounds a view of the current round and the `rounds`
        before it needs back (None: every round); none in a game that releases none."""
        return []

    def restore_history(self, state: State, records: list[dict[str, Any]]) -> State:
        """`state` with released `records` (release_history's) put back, as if never released;
        a view, an outcome or a computer player then see the rounds they held."""
        return state

    def deal(self, view: dict[str, Any], seat: int, rng: random.Random) -> State:
        """A full state that gives `seat` exactly `view`: whatever the seat cannot see
        (hidden hands, the draw pile, secret bids and prices) drawn with `rng` from what
        it has not seen. Search bots sample these; the real state is never needed."""
        raise NotImplementedError

    def outcome(self, state: State) -> Outcome | None:
        """Scores, ranks and breakdown of a finished game, else None."""
        raise NotImplementedError

    def timeout_move(self, state: State, seat: int) -> Move:
        """A sensible, deterministic move for a seat whose time ran out."""
        raise NotImplementedError

    def describe(self, state: State, seat: int, move: Move, viewer: int | None) -> list[Message]:
        """The log line(s) for `move` made by `seat` from `state`, as `viewer` may read them."""
        raise NotImplementedError

    def review(self, state: State, seat: int, move: Move) -> list[Message]:
        """What `seat` is shown of its own `move` before sending it (IllegalMove if refused).

        Only what the mover may see now: the move itself, never what it would reveal
        (another player's hand, a card drawn, others' bids or prices). Those appear in
        the log once the move is sent, or a player could probe for free by reviewing.
        """
        raise NotImplementedError

    def turn_token(self, state: State, seat: int) -> str:
        """A token that changes whenever what `seat` may do changes; a move sent with an
        older token is stale. By default the ply: any move by anyone makes a form stale."""
        return str(state["ply"])

    def may_act(self, state: State, seat: int) -> bool:
        """Whether `seat` may send a move now (a seat that already acted in a
        simultaneous step may still revise, while the table waits on others)."""
        return seat in self.to_act(state)

    def is_over(self, state: State) -> bool:
        """Whether the game has ended."""
        return not self.to_act(state)


def _check_option(opt: Option, value: Any) -> Any:
    if opt.kind == "bool":
        if not isinstance(value, bool):
            raise BadOptions("error.option_bool", name=opt.name)
        return value
    if opt.kind == "int":
        if value is None and opt.default is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadOptions("error.option_int", name=opt.name)
        if (opt.minimum is not None and value < opt.minimum) or (
            opt.maximum is not None and value > opt.maximum
        ):
            raise BadOptions("error.option_range", name=opt.name, low=opt.minimum, high=opt.maximum)
        return value
    if value not in opt.choices:
        raise BadOptions(
            "error.option_choice", name=opt.name, choices=", ".join(map(str, opt.choices))
        )
    return value
