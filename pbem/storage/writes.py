"""A change's writes as plain data, carried out in one go: new rows by table, seat updates,
and a few statements of their own.

The move works out everything it writes before it takes the write lock (pbem.moves):
its log row, the seats' clocks, its mails and webhook events. They are gathered here as
values, not as ORM objects in a session, so that nothing is written that is not listed,
and the write transaction only runs these statements (compiled once, on the driver's
cursor: pbem.storage.rawsql). The lobby and the sweeps queue their mails the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any

from sqlalchemy import Integer, bindparam, insert, select, update
from sqlmodel import Session, SQLModel

from pbem.models import Game, Seat, TakeBack
from pbem.storage.rawsql import (
    Runner,
    Statement,
    compiled,
    connection_of,
    dialect_of,
    fetch,
    run,
)

SEATS = Seat.__table__  # type: ignore[attr-defined]
GAMES = Game.__table__  # type: ignore[attr-defined]
TAKEBACKS = TakeBack.__table__  # type: ignore[attr-defined]
SEAT_COLUMNS = tuple(column.key for column in SEATS.columns)
Build = Callable[[], Any]


@dataclass
class Writes:
    """New rows (by model, in the order added) and statements, waiting to be written."""

    rows: list[tuple[type[SQLModel], dict[str, Any]]] = field(default_factory=list)
    statements: list[tuple[Any, Build, dict[str, Any]]] = field(default_factory=list)

    def add(self, model: type[SQLModel], values: dict[str, Any]) -> None:
        """A new row of `model` with these columns (the others take the model's defaults)."""
        self.rows.append((model, values))

    def run(self, key: Any, build: Build, values: dict[str, Any]) -> None:
        """A statement `build()` makes (compiled once under `key`), run with `values`."""
        self.statements.append((key, build, values))

    def added(self, model: type[SQLModel]) -> list[dict[str, Any]]:
        """The rows of `model` added so far."""
        return [values for kind, values in self.rows if kind is model]

    def carry_out(self, session: Runner) -> None:
        """Write it all in the session's transaction: the rows, one statement a table (in
        the order the tables first appear), then the statements in the order given. What
        the session itself holds is flushed first, as the rows may refer to it."""
        if isinstance(session, Session):
            session.flush()
        connection = connection_of(session)  # once: each of the session's own steps costs
        dialect = connection.dialect
        by_table: dict[type[SQLModel], list[dict[str, Any]]] = {}
        for model, values in self.rows:
            by_table.setdefault(model, []).append(values)
        for model, rows in by_table.items():
            table = model.__table__  # type: ignore[attr-defined]
            keys = tuple(c.key for c in table.columns if c.key != "id")
            statement = compiled(
                dialect, ("insert", table.name, *keys), partial(_insert, table, keys)
            )
            params = [statement.parameters(_with_defaults(model, values)) for values in rows]
            _run(connection, statement, params)
        for key, build, values in self.statements:
            statement = compiled(dialect, key, build)
            run(connection, statement, statement.parameters(values))
        self.rows.clear()
        self.statements.clear()


def _run(session: Runner, statement: Statement, params: Sequence[Any]) -> None:
    if len(params) == 1:
        run(session, statement, params[0])
    else:
        run(session, statement, params, many=True)


def _with_defaults(model: type[SQLModel], values: dict[str, Any]) -> dict[str, Any]:
    """The row's columns: those given, the model's defaults for the others (KeyError at
    the insert for a required column not given)."""
    columns = {}
    for name, info in model.model_fields.items():
        if name in values:
            columns[name] = values[name]
        elif info.default_factory is not None:
            columns[name] = info.default_factory()  # type: ignore[call-arg]
        elif not info.is_required():
            columns[name] = info.default
    return columns


def _insert(table: Any, keys: tuple[str, ...]) -> Any:
    return insert(table).values({k: bindparam(k, type_=table.c[k].type) for k in keys})


# --- the seats a move changes --------------------------------------------------


def seat_row(seat: Seat) -> tuple[Any, ...]:
    """A seat's columns as a tuple, to tell whether it changed."""
    return tuple(getattr(seat, name) for name in SEAT_COLUMNS)


def update_seats(writes: Writes, before: list[tuple[Any, ...]], seats: list[Seat]) -> None:
    """An UPDATE for each seat whose columns differ from `before` (as seat_row read them),
    of the columns that changed only."""
    for old, seat in zip(before, seats, strict=True):
        changed = {
            name: value
            for name, was, value in zip(SEAT_COLUMNS, old, seat_row(seat), strict=True)
            if was != value
        }
        if changed and seat.id is not None:
            keys = tuple(changed)
            writes.run(
                ("seat update", *keys), partial(_seat_update, keys), {**changed, "w_id": seat.id}
            )


def _seat_update(keys: tuple[str, ...]) -> Any:
    return (
        update(SEATS)
        .where(SEATS.c.id == bindparam("w_id", type_=Integer))
        .values({k: bindparam(k, type_=SEATS.c[k].type) for k in keys})
    )


def seats_now(session: Runner, game_id: int) -> list[tuple[Any, ...]]:
    """The game's seats as they are in the database now, as seat_row gives them."""
    statement = compiled(dialect_of(session), ("seats now",), _seats_of_game)
    return fetch(session, statement, statement.parameters({"w_game": game_id}))


def _seats_of_game() -> Any:
    return (
        select(*(SEATS.c[name] for name in SEAT_COLUMNS))
        .where(SEATS.c.game_id == bindparam("w_game", type_=Integer))
        .order_by(SEATS.c.seat)
    )


# --- the game row a move moves on ----------------------------------------------


def move_game(
    session: Runner, game_id: int, ply: int, values: dict[str, Any]
) -> list[tuple[int, int]]:
    """Move the game row on from `ply` with `values`, if it is still active at that ply, and
    raise its version (pbem.storage.versions): its (last_talk, new version) in a one-item
    list, or an empty list when another move came first."""
    keys = tuple(values)
    statement = compiled(dialect_of(session), ("game move", *keys), partial(_game_update, keys))
    params = statement.parameters({**values, "w_id": game_id, "w_ply": ply})
    return [(row[0], row[1]) for row in run(session, statement, params).fetchall()]


def _game_update(keys: tuple[str, ...]) -> Any:
    return (
        update(GAMES)
        .where(
            GAMES.c.id == bindparam("w_id", type_=Integer),
            GAMES.c.ply == bindparam("w_ply", type_=Integer),
            GAMES.c.status == "active",
        )
        .values(
            {k: bindparam(k, type_=GAMES.c[k].type) for k in keys}
            | {"version": GAMES.c.version + 1}
        )
        .returning(GAMES.c.last_talk, GAMES.c.version)
    )


def lapse_take_back(session: Runner, game_id: int, now: datetime) -> None:
    """A move lapses the game's pending take back (pbem.takeback): the move wins."""
    statement = compiled(dialect_of(session), ("take back lapse",), _lapse_update)
    run(session, statement, statement.parameters({"w_id": game_id, "now": now}))


def _lapse_update() -> Any:
    return (
        update(TAKEBACKS)
        .where(
            TAKEBACKS.c.game_id == bindparam("w_id", type_=Integer),
            TAKEBACKS.c.answer == "",
        )
        .values(answer="lapsed", answered_at=bindparam("now", type_=TAKEBACKS.c.answered_at.type))
    )
