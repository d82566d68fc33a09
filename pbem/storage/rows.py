"""A game and its table read as plain rows: one compiled statement on the driver's cursor.

A seat link's request (a move, the seat's page, the JSON API) and a move under the write
lock read the same rows: the game, its seats in order, each seat's player and the end of
a vacation under way. They come in one SELECT compiled once per database (pbem.storage.
rawsql), not through the ORM's session: no identity map, no unit of work, nothing to
expunge. Each row becomes an object of its model built as the ORM's loader builds one
(its columns set, no session), so what reads a Game or a Seat reads these the same way;
a move changes them as values (pbem.moves) and writes its own statements.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Connection, Integer, and_, bindparam, select
from sqlmodel import SQLModel

from pbem.models import Game, Player, Seat, Vacation
from pbem.storage.rawsql import Runner, compiled, fetch

GAMES = Game.__table__  # type: ignore[attr-defined]
SEATS = Seat.__table__  # type: ignore[attr-defined]
PLAYERS = Player.__table__  # type: ignore[attr-defined]
VACATIONS = Vacation.__table__  # type: ignore[attr-defined]
Table = list[tuple[Seat, Player, datetime | None]]
Row = TypeVar("Row", bound=SQLModel)


def _keys(table: Any) -> tuple[str, ...]:
    return tuple(column.key for column in table.columns)


def _statement(lock: bool) -> Any:
    """Game, seat, player and vacation end columns, a row a seat in seat order; `lock`: the
    game row locked for the transaction (FOR UPDATE OF game; SQLite's BEGIN IMMEDIATE has
    locked the database already)."""
    now = bindparam("now", type_=VACATIONS.c.starts_at.type)
    query = (
        select(*GAMES.columns, *SEATS.columns, *PLAYERS.columns, VACATIONS.c.ends_at)
        .select_from(
            SEATS.join(GAMES, GAMES.c.id == SEATS.c.game_id)
            .join(PLAYERS, PLAYERS.c.id == SEATS.c.player_id)
            .outerjoin(
                VACATIONS,
                and_(
                    VACATIONS.c.player_id == SEATS.c.player_id,
                    VACATIONS.c.starts_at <= now,
                    VACATIONS.c.ends_at > now,
                ),
            )
        )
        .where(SEATS.c.game_id == bindparam("w_game", type_=Integer))
        .order_by(SEATS.c.seat)
    )
    return query.with_for_update(of=GAMES) if lock else query


def detached(model: type[Row], keys: tuple[str, ...], values: tuple[Any, ...]) -> Row:
    """An object of `model` with these columns, in no session (as the ORM's loader makes
    one, without its identity map): read as any row is, changed as a plain value."""
    row: Row = model._sa_class_manager.new_instance()  # type: ignore[attr-defined]
    row.__dict__.update(zip(keys, values, strict=True))
    return row


def game_and_table(
    session: Runner, game_id: int, at: datetime, lock: bool = False
) -> tuple[Game, Table] | None:
    """The game and its table (each seat with its player and when their vacation under way
    `at` ends, None when not away), in one statement on the session's connection; None when
    the game is not there (or has no seat). `lock`: the game row locked, for a write."""
    connection = session if isinstance(session, Connection) else session.connection()
    key = ("game and table", lock)
    statement = compiled(connection.dialect, key, lambda: _statement(lock))
    rows = fetch(connection, statement, statement.parameters({"w_game": game_id, "now": at}))
    if not rows:
        return None
    game_keys, seat_keys, player_keys = _keys(GAMES), _keys(SEATS), _keys(PLAYERS)
    seat_at, player_at = len(game_keys), len(game_keys) + len(seat_keys)
    ends_at = player_at + len(player_keys)
    player_id = player_at + player_keys.index("id")
    game = detached(Game, game_keys, rows[0][:seat_at])
    players: dict[Any, Player] = {}  # two computer seats of one level share one account
    table: dict[int, tuple[Seat, Player, datetime | None]] = {}
    for row in rows:
        seat = detached(Seat, seat_keys, row[seat_at:player_at])
        player = players.get(row[player_id])
        if player is None:
            player = players[row[player_id]] = detached(Player, player_keys, row[player_at:ends_at])
        ends = row[ends_at]
        known = table.get(seat.seat)
        # Two vacations under way at once: the seat is away until the later one ends.
        if known is None or (ends is not None and (known[2] is None or ends > known[2])):
            table[seat.seat] = (known[0] if known else seat, player, ends)
    return game, [table[n] for n in sorted(table)]
