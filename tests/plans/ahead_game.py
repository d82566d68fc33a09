"""A two-player Colour Bazaar to plan ahead in, moved through the one move path, and what the
tests read of it (its moves logged, the plan a seat keeps)."""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

from pbem import moves, play
from pbem.games import GAMES
from pbem.models import Game, Move, Seat
from pbem.plans import seat_plans
from pbem.storage.db import read_session, write_session

PEOPLE = [
    play.Invitee("Ana", "ana@example.org", "en"),
    play.Invitee("Léo", "leo@example.org", "fr"),
]
RULES = GAMES["colour-bazaar"]


def started(app: Any, clock: Any, seed: int = 7) -> int:
    """A two-player Colour Bazaar under way; its id."""
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    with write_session(engine) as session:
        game = play.create_game(session, site, "colour-bazaar", PEOPLE, {}, clock(), seed=seed)
        game_id = game.id
    assert game_id is not None
    with write_session(engine) as session:
        play.join(session, site, game_id, 1, clock())
    return game_id


def game_of(app: Any, game_id: int) -> Game:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.state is not None
        session.expunge(game)
        return game


def move(
    app: Any, clock: Any, game_id: int, seat: int, made: dict[str, Any], source: str = "web"
) -> None:
    """A move by `seat` through the one path (as a reply by mail or a timeout makes it)."""
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    state = game_of(app, game_id).state
    assert state is not None
    token = RULES.turn_token(state, seat)
    with write_session(engine) as session:
        moves.submit_move(session, site, game_id, seat, made, token, clock(), source)


def leave_plan(app: Any, clock: Any, game_id: int, seat: int, tree: list[dict[str, Any]]) -> None:
    with write_session(app.extensions["pbem"]["engine"]) as session:
        seat_plans.set_plan(session, game_id, seat, tree, clock())


def a_play(state: dict[str, Any], seat: int, skip: int = 0) -> dict[str, Any]:
    """A legal card play of `seat` (the real table: the test knows every hand)."""
    return [m for m in RULES.legal_moves(state, seat) if "card" in m][skip]


def logged(app: Any, game_id: int) -> list[Move]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        rows = session.exec(select(Move).where(Move.game_id == game_id).order_by(col(Move.ply)))
        return list(rows.all())


def plan_kept(app: Any, game_id: int, seat: int) -> dict[str, Any] | None:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        row = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == seat)).one()
        return row.ahead
