"""Helpers for the take-back tests: a game under way, moves made, take-backs asked and answered,
and what the tests read back."""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

from pbem import moves, play
from pbem.games import GAMES
from pbem.models import Game, Outbox, TakeBack
from pbem.storage.db import read_session, write_session
from pbem.takeback import consent

PEOPLE = [
    play.Invitee("Ana", "ana@example.org", "en"),
    play.Invitee("Léo", "leo@example.org", "fr"),
    play.Invitee("Zoé", "zoe@example.org", "en"),
]
SEED = 20261204


def started(app: Any, clock: Any, players: int = 2) -> int:
    """A Colour Bazaar game of `players`, everyone joined, dealt from a fixed seed."""
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    with write_session(engine) as session:
        game = play.create_game(
            session, site, "colour-bazaar", PEOPLE[:players], {}, clock(), seed=SEED
        )
        game_id = game.id
    assert game_id is not None
    with write_session(engine) as session:
        for seat in range(1, players):
            play.join(session, site, game_id, seat, clock())
    return game_id


def game_of(app: Any, game_id: int) -> Game:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None
        return game


def to_act(app: Any, game_id: int) -> int:
    game = game_of(app, game_id)
    assert game.state is not None
    (seat,) = GAMES[game.slug].to_act(game.state)
    return seat


def move(app: Any, game_id: int, clock: Any, pick: int = 0) -> dict[str, Any]:
    """The seat to act plays its `pick`-th legal move, as the page would; the move."""
    game = game_of(app, game_id)
    rules = GAMES[game.slug]
    seat = to_act(app, game_id)
    chosen = rules.legal_moves(game.state or {}, seat)[pick]
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    with write_session(engine) as session:
        token = rules.turn_token(game.state or {}, seat)
        moves.submit_move(session, site, game_id, seat, chosen, token, clock())
    return chosen


def ask(app: Any, game_id: int, seat: int, clock: Any) -> None:
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    with write_session(engine) as session:
        consent.ask(session, site, game_id, seat, clock())


def answer(app: Any, game_id: int, seat: int, allow: bool, clock: Any) -> None:
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    with write_session(engine) as session:
        consent.answer(session, site, game_id, seat, allow, clock())


def requests(app: Any, game_id: int) -> list[TakeBack]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        query = select(TakeBack).where(TakeBack.game_id == game_id)
        return list(session.exec(query.order_by(col(TakeBack.id))))


def mails(app: Any, game_id: int, event: str) -> list[Outbox]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        query = select(Outbox).where(Outbox.game_id == game_id, Outbox.event == event)
        return list(session.exec(query.order_by(col(Outbox.id))))
