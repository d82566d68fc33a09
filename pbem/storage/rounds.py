"""Finished rounds a game's state released (rules.release_history), one GameRound row each:
written by the move that releases them, read only by what shows them (a page of every
round, the API, a computer player, a mail that reports rounds the state no longer holds,
the outcome at the game's end).

A game stored before the rows existed holds its whole history in its state: rules.released
then names no round, nothing is read, and the game's next move releases them into rows.
"""

from __future__ import annotations

from typing import Any, Protocol

from sqlalchemy import select

from pbem.games import GAMES
from pbem.games.base import State
from pbem.models import GameRound
from pbem.storage.rawsql import Runner
from pbem.storage.writes import Writes

ROUNDS = GameRound.__table__  # type: ignore[attr-defined]


class StoredGame(Protocol):
    """A game as read: its model, or a plain row with these columns."""

    @property
    def id(self) -> int | None: ...
    @property
    def slug(self) -> str: ...
    @property
    def state(self) -> dict[str, Any] | None: ...


def released_records(session: Runner, game_id: int, numbers: list[int]) -> list[dict[str, Any]]:
    """The records of the game's released rounds numbered `numbers`, oldest first."""
    if not numbers:
        return []
    query = (
        select(ROUNDS.c.record)
        .where(ROUNDS.c.game_id == game_id, ROUNDS.c.round.in_(numbers))
        .order_by(ROUNDS.c.round)
    )
    return [row[0] for row in session.execute(query)]


def state_with(session: Runner, slug: str, game_id: int, state: State, numbers: list[int]) -> State:
    """`state` with its released rounds numbered `numbers` read back (no read when none)."""
    if not numbers:
        return state
    return GAMES[slug].restore_history(state, released_records(session, game_id, numbers))


def viewed_state(session: Runner, game: StoredGame, rounds: int | None = None) -> State:
    """The game's state holding every round a view of the current round and the `rounds`
    before it shows (None: every round); the rows are read only for rounds it released."""
    assert game.state is not None and game.id is not None
    wanted = GAMES[game.slug].released(game.state, rounds)
    return state_with(session, game.slug, game.id, game.state, wanted)


def released(writes: Writes, slug: str, game_id: int, state: State) -> State:
    """The state to store after a move: the rounds the rules release from it go to `writes`
    as new rows (a released round's record never changes, so each is written once)."""
    kept, records = GAMES[slug].release_history(state)
    for record in records:
        writes.add(GameRound, {"game_id": game_id, "round": record["round"], "record": record})
    return kept


def written(writes: Writes, game_id: int) -> list[dict[str, Any]]:
    """The round records `writes` holds for the game (released by the move being written)."""
    return [values["record"] for values in writes.added(GameRound) if values["game_id"] == game_id]


def whole_outcome(
    session: Runner, slug: str, game_id: int, values: dict[str, Any], writes: Writes
) -> None:
    """At the game's end, the outcome in `values` (a move's new game columns) made again from
    the whole game: the move's plan made it from the state it stores, which holds only the
    last rounds, and the outcome breaks every round down. Nothing to do before the end."""
    if values.get("outcome") is None:
        return
    rules = GAMES[slug]
    state = rules.restore_history(values["state"], written(writes, game_id))
    state = state_with(session, slug, game_id, state, rules.released(state))
    result = rules.outcome(state)
    assert result is not None  # the plan found the game over
    # In place: the plan's game (and a caller answering from it) holds the same outcome.
    values["outcome"].update(scores=result.scores, ranks=result.ranks, breakdown=result.breakdown)
