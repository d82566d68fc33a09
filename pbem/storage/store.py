"""The queries and locks every layer needs; they only know models (errors are in pbem.errors).

Every function takes the session first; the caller owns the transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any, TypeVar

from sqlalchemy import and_, bindparam
from sqlalchemy import select as core_select
from sqlmodel import Session, col, select

from pbem.errors import PlayError
from pbem.games.fairdeal import live_shuffles
from pbem.models import Game, League, Move, Player, Seat, TakeBack, Vacation
from pbem.storage.rawsql import Runner

Locked = TypeVar("Locked", Game, League)


def id_of(row: Game | Player) -> int:
    """The id of a row the database has numbered (loaded, or added and flushed)."""
    if row.id is None:
        raise RuntimeError(f"{type(row).__name__} has no id yet: flush it first")
    return row.id


def lock_game(session: Session, game_id: int) -> Game:
    """The game row, locked for this transaction (SQLite is locked already by BEGIN IMMEDIATE)."""
    return lock_row(session, Game, game_id, PlayError("error.no_game"))


def lock_row(session: Session, model: type[Locked], row_id: int, none: Exception) -> Locked:
    """A game's or league's row, locked for this transaction; `none` raised when there is none."""
    row = session.exec(select(model).where(col(model.id) == row_id).with_for_update()).first()
    if row is None:
        raise none
    return row


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


# Built once: seats_of runs for every page, move and mail.
_SEATS = select(Seat).where(col(Seat.game_id) == bindparam("game_id")).order_by(col(Seat.seat))


def seats_of(session: Session, game: Game) -> list[Seat]:
    """The game's seats in seat order."""
    return list(session.exec(_SEATS, params={"game_id": game.id}))


def shuffles_of(session: Session, game: Game) -> list[tuple[int, int]]:
    """Where the game's take backs shuffled its pile, as (ply, number): what replays it."""
    if not game.takebacks:
        return []  # most games never take a move back: no query
    query = select(TakeBack.ply).where(TakeBack.game_id == game.id, TakeBack.answer == "allowed")
    plies = session.exec(query.order_by(col(TakeBack.id))).all()
    return live_shuffles([(ply, number) for number, ply in enumerate(plies, start=1)])


def moves_of(session: Session, game: Game, since: int = 0, until: int | None = None) -> list[Move]:
    """The game's moves from ply `since` on (and before ply `until`, if given), in order."""
    query = select(Move).where(Move.game_id == game.id, Move.ply >= since)
    if until is not None:
        query = query.where(Move.ply < until)
    return list(session.exec(query.order_by(col(Move.ply))))


def seats_with_players(session: Session, game_id: int) -> list[tuple[Seat, Player]]:
    """The game's seats in seat order, each with its player, in one query."""
    query = (
        select(Seat, Player)
        .join(Player, col(Player.id) == col(Seat.player_id))
        .where(Seat.game_id == game_id)
        .order_by(col(Seat.seat))
    )
    return [(seat, player) for seat, player in session.exec(query)]


@dataclass(slots=True)
class LoggedMove:
    """A move as the log shows it to one viewer: plain data, not a database row."""

    ply: int
    seat: int
    source: str
    created_at: datetime
    lines: dict[str, Any]


def log_of(
    session: Runner, game: Game, viewer: int | None, since: int = 0, until: int | None = None
) -> list[LoggedMove]:
    """The game's moves from ply `since` (before `until`), with only `viewer`'s lines read.

    The database picks the viewer's lines out of each move's JSON, so a page decodes its
    own lines, not every viewer's.
    """
    key = "watch" if viewer is None else str(viewer)
    params = {"game_id": game.id, "since": since, "until": until}
    return [
        LoggedMove(ply, seat, source, at, {key: mine or []})
        for ply, seat, source, at, mine in session.execute(
            _log_query(key, until is not None), params
        )
    ]


@lru_cache(maxsize=64)
def _log_query(key: str, bounded: bool) -> Any:
    """The log's statement for one viewer's lines, built once (a page and a mail run it)."""
    lines = Move.__table__.c.lines[key]  # type: ignore[attr-defined]
    query = core_select(
        col(Move.ply), col(Move.seat), col(Move.source), col(Move.created_at), lines
    ).where(col(Move.game_id) == bindparam("game_id"), col(Move.ply) >= bindparam("since"))
    if bounded:
        query = query.where(col(Move.ply) < bindparam("until"))
    return query.order_by(col(Move.ply))


# Built once: a statement made anew for each page cost more than running it. It binds
# the game's id and the moment, at which a vacation under way is the seat's.
_TABLE = (
    select(Seat, Player, Vacation.ends_at)
    .join(Player, col(Player.id) == col(Seat.player_id))
    .outerjoin(
        Vacation,
        and_(
            col(Vacation.player_id) == col(Seat.player_id),
            col(Vacation.starts_at) <= bindparam("now"),
            col(Vacation.ends_at) > bindparam("now"),
        ),
    )
    .where(col(Seat.game_id) == bindparam("game_id"))
    .order_by(col(Seat.seat))
)
_GAME = select(Game).where(col(Game.id) == bindparam("game_id"))
_PLAYER = select(Player).where(col(Player.id) == bindparam("player_id"))


def game_by_id(session: Session, game_id: int) -> Game | None:
    """The game with this id, or None (as session.get, with a statement built once)."""
    return session.exec(_GAME, params={"game_id": game_id}).first()


def player_by_id(session: Session, player_id: int) -> Player | None:
    """The player with this id, or None (as session.get, with a statement built once)."""
    return session.exec(_PLAYER, params={"player_id": player_id}).first()


def table_of(
    session: Session, game_id: int, now: datetime
) -> list[tuple[Seat, Player, datetime | None]]:
    """The game's seats in order, each with its player and when their vacation under way
    at `now` ends (None when not away): one query for the page."""
    table: dict[int, tuple[Seat, Player, datetime | None]] = {}
    for seat, player, ends in session.exec(_TABLE, params={"game_id": game_id, "now": now}):
        known = table.get(seat.seat)
        if known is None or (ends is not None and (known[2] is None or ends > known[2])):
            table[seat.seat] = (seat, player, ends)
    return [table[n] for n in sorted(table)]
