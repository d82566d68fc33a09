"""A three-player Fantasy Business to leave standing orders in, moved through the one move
path, and what the tests read of it (its state, its moves logged)."""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

from pbem import moves, play
from pbem.games import GAMES
from pbem.models import Game, Move
from pbem.plans import play_orders, seat_orders
from pbem.storage.db import read_session, write_session

PEOPLE = [
    play.Invitee("Ana", "ana@example.org", "en"),
    play.Invitee("Léo", "leo@example.org", "fr"),
    play.Invitee("Zoé", "zoe@example.org", "en"),
]
RULES = GAMES["fantasy-business"]


def started(app: Any, clock: Any, options: dict[str, Any]) -> int:
    engine_, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    with write_session(engine_) as session:
        game = play.create_game(session, site, "fantasy-business", PEOPLE, options, clock(), seed=5)
        game_id = game.id
    assert game_id is not None
    with write_session(engine_) as session:
        for seat in (1, 2):
            play.join(session, site, game_id, seat, clock())
    return game_id


def state_of(app: Any, game_id: int) -> dict[str, Any]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.state is not None
        return game.state


def move(app: Any, clock: Any, game_id: int, seat: int, made: dict[str, Any]) -> None:
    engine_, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    token = RULES.turn_token(state_of(app, game_id), seat)
    with write_session(engine_) as session:
        moves.submit_move(session, site, game_id, seat, made, token, clock(), "web")


def order(app: Any, clock: Any, game_id: int, seat: int, orders: dict[str, Any]) -> bool:
    """Set the seat's orders as the page and the API do; True when a move was played."""
    engine_, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    with write_session(engine_) as session:
        seat_orders.set_orders(session, game_id, seat, orders)
    with write_session(engine_) as session:
        return play_orders.play_standing(session, site, game_id, seat, clock())


def logged(app: Any, game_id: int) -> list[Move]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        rows = session.exec(select(Move).where(Move.game_id == game_id).order_by(col(Move.ply)))
        return list(rows.all())
