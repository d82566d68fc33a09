"""The queries and locks every layer needs, and the errors they raise; they only know models.

Every function takes the session first; the caller owns the transaction.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from pbem.models import Game, Move, Player, Seat


class PlayError(Exception):
    """A request the game cannot take; carries a catalogue key for the page."""

    status = 400

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


class Stale(PlayError):
    """The move was made for a turn that has already been played."""

    status = 409


class Gone(PlayError):
    """The game is not in a state that allows this."""

    status = 409


def id_of(row: Game | Player) -> int:
    """The id of a row the database has numbered (loaded, or added and flushed)."""
    if row.id is None:
        raise RuntimeError(f"{type(row).__name__} has no id yet: flush it first")
    return row.id


def lock_game(session: Session, game_id: int) -> Game:
    """The game row, locked for this transaction (SQLite is locked already by BEGIN IMMEDIATE)."""
    game = session.exec(select(Game).where(Game.id == game_id).with_for_update()).first()
    if game is None:
        raise PlayError("error.no_game")
    return game


def find_seat(session: Session, game_id: int, seat_no: int) -> Seat | None:
    """Seat number `seat_no` of the game, or None."""
    return session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == seat_no)).first()


def seat_of(session: Session, game_id: int, seat_no: int) -> Seat:
    """Seat number `seat_no` of the game; PlayError if the game has no such seat."""
    seat = find_seat(session, game_id, seat_no)
    if seat is None:
        raise PlayError("error.no_seat")
    return seat


def player_of(session: Session, seat: Seat) -> Player:
    """The player sitting in `seat` (a seat always has one: the foreign key says so)."""
    player = session.get(Player, seat.player_id)
    if player is None:
        raise PlayError("error.no_seat")
    return player


def seats_of(session: Session, game: Game) -> list[Seat]:
    """The game's seats in seat order."""
    return list(session.exec(select(Seat).where(Seat.game_id == game.id).order_by(col(Seat.seat))))


def moves_of(session: Session, game: Game, since: int = 0) -> list[Move]:
    """The game's moves from ply `since` on, in order."""
    return list(
        session.exec(
            select(Move).where(Move.game_id == game.id, Move.ply >= since).order_by(col(Move.ply))
        )
    )
