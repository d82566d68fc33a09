"""A move checked and applied to the game as read, writing nothing: the first step of the
one path for a move (pbem.moves), and of each answer a plan or standing orders play."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pbem.errors import Gone, PlayError, Stale
from pbem.games import GAMES, GameError, Message
from pbem.games import Game as Rules
from pbem.models import Game
from pbem.storage.store import id_of


class Unreadable(PlayError):
    """A move whose fields the rules cannot read at all (wrong types, missing keys): only
    the API takes a move as it is sent; the page's and the mail's are read by their forms."""


@dataclass
class Prepared:
    """A move checked and applied to the game as it was read: what writing it needs."""

    game_id: int
    seat: int
    move: dict[str, Any]
    source: str
    ply: int  # the ply the move was made at
    new_state: dict[str, Any]
    before_acting: set[int]
    lines: dict[str, Any]
    outcome: dict[str, Any] | None


def check_turn(rules: Rules, state: dict[str, Any], seat_no: int, token: str) -> None:
    """Refuse a form made for an earlier turn (Stale) or sent by a seat that may not act."""
    if token != rules.turn_token(state, seat_no):
        raise Stale("play.error.stale")
    if not rules.may_act(state, seat_no):
        raise Stale("play.error.not_your_turn")


def prepare_move(
    game: Game,
    seat_count: int,
    seat_no: int,
    move: dict[str, Any],
    token: str,
    source: str,
    left: bool = False,
) -> Prepared:
    """Check and apply a move to the game as read, writing nothing (no lock needed).

    `left`: the seat's player left the game (a computer plays it; no move from the web).
    Raises Gone, Stale, or the game's IllegalMove.
    """
    if game.status != "active" or game.state is None:
        raise Gone("play.error.not_active")
    rules = GAMES[game.slug]
    state = game.state
    # Promise 2: a move carries the turn it was made for; a repeat or an old form is stale.
    check_turn(rules, state, seat_no, token)
    if source == "web" and left:
        raise Gone("play.error.left")
    return applied(rules, id_of(game), state, game.ply, seat_count, seat_no, move, source)


def applied(
    rules: Rules,
    game_id: int,
    state: dict[str, Any],
    ply: int,
    seat_count: int,
    seat_no: int,
    move: dict[str, Any],
    source: str,
) -> Prepared:
    """A move applied to `state` with its log lines, for each viewer and the onlookers."""
    before_acting = set(rules.to_act(state))
    try:
        new_state = rules.apply(state, seat_no, move)
    except GameError:
        raise  # IllegalMove and its kin: the rules say why
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        raise Unreadable("api.error.move") from None
    viewers: list[int | None] = [*range(seat_count), None]
    lines: dict[str, Any] = {}
    for viewer in viewers:
        said = rules.describe(state, seat_no, move, viewer)
        if source == "ahead":
            said.append(Message("ahead.log.played", {"seat": seat_no}))
        elif source == "standing":
            said.append(Message("standing.log.played", {"seat": seat_no}))
        lines["watch" if viewer is None else str(viewer)] = _to_json(said)
    result = rules.outcome(new_state)
    outcome = None
    if result is not None:
        outcome = {"scores": result.scores, "ranks": result.ranks, "breakdown": result.breakdown}
    return Prepared(game_id, seat_no, move, source, ply, new_state, before_acting, lines, outcome)


def _to_json(messages: list[Message]) -> list[dict[str, Any]]:
    return [m.to_json() for m in messages]
