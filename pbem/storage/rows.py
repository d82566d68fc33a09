"""A game and its table read as plain rows: compiled statements on the driver's cursor.

A seat link's request (a move, the seat's page, the JSON API) and a move under the write
lock read the same rows: the game, its seats in order, each seat's player and the end of
a vacation under way. They come in two SELECTs compiled once per database (pbem.storage.
rawsql), not through the ORM's session: no identity map, no unit of work, nothing to
expunge. Each row becomes an object of its model built as the ORM's loader builds one
(its columns set, no session), so what reads a Game or a Seat reads these the same way;
a move changes them as values (pbem.moves) and writes its own statements.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Integer, and_, bindparam, select
from sqlalchemy.orm import configure_mappers
from sqlmodel import SQLModel

from pbem.models import Game, Player, Seat, Vacation
from pbem.storage.rawsql import Runner, compiled, connection_of, fetch

GAMES = Game.__table__  # type: ignore[attr-defined]
SEATS = Seat.__table__  # type: ignore[attr-defined]
PLAYERS = Player.__table__  # type: ignore[attr-defined]
VACATIONS = Vacation.__table__  # type: ignore[attr-defined]
Table = list[tuple[Seat, Player, datetime | None]]
Row = TypeVar("Row", bound=SQLModel)


def _keys(table: Any) -> tuple[str, ...]:
    return tuple(column.key for column in table.columns)


GAME_KEYS, SEAT_KEYS, PLAYER_KEYS = _keys(GAMES), _keys(SEATS), _keys(PLAYERS)
_PLAYER_ID = len(SEAT_KEYS) + PLAYER_KEYS.index("id")
_ENDS = len(SEAT_KEYS) + len(PLAYER_KEYS)


def _game(lock: bool) -> Any:
    """The game's row; `lock`: locked for the transaction (FOR UPDATE; SQLite's BEGIN
    IMMEDIATE has locked the database already)."""
    query = select(*GAMES.columns).where(GAMES.c.id == bindparam("w_game", type_=Integer))
    return query.with_for_update() if lock else query


def _table() -> Any:
    """Seat, player and vacation end columns, a row a seat (two for a seat whose player has
    two vacations under way), in seat order. The game is a statement of its own: joined
    here, its row (a long Fantasy Business game's state is 36 KB) would come once a seat."""
    now = bindparam("now", type_=VACATIONS.c.starts_at.type)
    return (
        select(*SEATS.columns, *PLAYERS.columns, VACATIONS.c.ends_at)
        .select_from(
            SEATS.join(PLAYERS, PLAYERS.c.id == SEATS.c.player_id).outerjoin(
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


_configured = False


def detached(model: type[Row], keys: tuple[str, ...], values: Sequence[Any]) -> Row:
    """An object of `model` with these columns, in no session (as the ORM's loader makes
    one, without its identity map): read as any row is, changed as a plain value."""
    global _configured
    if not _configured:  # the attributes work once the mappers are (a query does it too)
        configure_mappers()
        _configured = True
    row: Row = model._sa_class_manager.new_instance()  # type: ignore[attr-defined]
    row.__dict__.update(zip(keys, values, strict=True))
    return row


def game_and_table(
    session: Runner, game_id: int, at: datetime, lock: bool = False
) -> tuple[Game, Table] | None:
    """The game and its table (each seat with its player and when their vacation under way
    `at` ends, None when not away), in two statements on the session's connection; None
    when the game is not there (or has no seat). `lock`: the game row locked, for a write."""
    connection = connection_of(session)
    dialect = connection.dialect
    game_statement = compiled(dialect, ("game row", lock), lambda: _game(lock))
    found = fetch(connection, game_statement, game_statement.parameters({"w_game": game_id}))
    if not found:
        return None
    table_statement = compiled(dialect, ("table rows",), _table)
    params = table_statement.parameters({"w_game": game_id, "now": at})
    rows = fetch(connection, table_statement, params)
    if not rows:
        return None
    players: dict[Any, Player] = {}  # two computer seats of one level share one account
    table: dict[int, tuple[Seat, Player, datetime | None]] = {}
    for row in rows:
        ends = row[_ENDS]
        known = table.get(row[SEAT_KEYS.index("seat")])
        # Two vacations under way at once: the seat is away until the later one ends.
        if known is not None and (ends is None or (known[2] is not None and ends <= known[2])):
            continue
        player = players.get(row[_PLAYER_ID])
        if player is None:
            values = row[len(SEAT_KEYS) : _ENDS]
            player = players[row[_PLAYER_ID]] = detached(Player, PLAYER_KEYS, values)
        seat = known[0] if known else detached(Seat, SEAT_KEYS, row[: len(SEAT_KEYS)])
        table[seat.seat] = (seat, player, ends)
    game = detached(Game, GAME_KEYS, found[0])
    return game, [table[n] for n in sorted(table)]
