"""Writes worked out before the write lock and carried out under it, in a few statements.

A move's clocks, mails and webhook events are worked out by the ORM code that always did
it, but in a read session whose changes are captured instead of flushed: the rows it
would add and the seat columns it would change. They are turned into statements and
parameters ready for the driver (pbem.storage.rawsql) before the lock. Under the lock the game
row is moved on by one conditional UPDATE, the plan is checked against the seats as they
are now (any change since the read: the plan is dropped and the move is written the
ordinary way), and the statements run as they are.

What the plan cannot carry is refused, never dropped: a statement other than a SELECT
run while a plan is made (an UPDATE, a flush), or a change to a row other than the
seats, raises NotCaptured, and the move is then written the ordinary way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from sqlalchemy import Dialect, Engine, Integer, bindparam, event, insert, select, update
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, SQLModel

from pbem.models import Game, Seat
from pbem.storage.rawsql import Statement, compiled, dialect_of, run, stored

SEATS = Seat.__table__  # type: ignore[attr-defined]
GAMES = Game.__table__  # type: ignore[attr-defined]
SEAT_COLUMNS = tuple(column.key for column in SEATS.columns)
Params = Sequence[Any] | dict[str, Any]
# A new row as plain values: its model and the columns given (the others take their defaults).
NewRow = tuple[type[SQLModel], dict[str, Any]]
_CAPTURED = "pbem.storage.writeplan.captured"  # session.info key while a plan is made: rows added
_READING = "pbem.storage.writeplan.reading"  # connection.info key while a plan is made
_WRITES = "pbem.storage.writeplan.writes"  # session.info key while a plan is made: statements


class NotCaptured(RuntimeError):
    """Code run while a plan is made tried a write the plan cannot carry out."""


def add_row(session: Session, model: type[SQLModel], values: dict[str, Any]) -> None:
    """Add a new row of `model` with these columns: while a plan is made (capturing), kept
    as plain values for its insert (building the ORM object cost more than the insert);
    otherwise added to the session as an object."""
    captured = session.info.get(_CAPTURED)
    if captured is None:
        session.add(model(**values))
    else:
        captured.append((model, values))


def add_write(session: Session, key: Any, build: Callable[[], Any], values: dict[str, Any]) -> None:
    """Run a statement that changes rows other than the seats (a DELETE, an UPDATE) in the
    session's transaction, compiled once under `key` (pbem.storage.rawsql); while a plan is
    made (capturing), kept for the plan instead, which runs it under the lock after its
    inserts and the seats' updates."""
    statement = compiled(dialect_of(session), key, build)
    params = statement.parameters(values)
    writes = session.info.get(_WRITES)
    if writes is None:
        run(session, statement, params)
    else:
        writes.append((statement, [params]))


@event.listens_for(OrmSession, "transient_to_pending")  # every session, sqlmodel's too
def _adding(session: OrmSession, instance: Any) -> None:
    # One listener for every session, listening only while a plan is made: registering
    # one per plan cost more than the check.
    captured = session.info.get(_CAPTURED)
    if captured is not None:
        captured.append(instance)


@event.listens_for(Engine, "before_cursor_execute")  # every engine
def _reading_only(
    conn: Any, _cursor: Any, statement: str, _params: Any, _context: Any, _many: bool
) -> None:
    # The plan's session is a read session that never commits: a write run in it (a
    # statement of its own, or a flush) would be lost with it.
    if conn.info.get(_READING) and statement.lstrip()[:6].upper() != "SELECT":
        raise NotCaptured(f"run while a move's writes were planned: {statement[:60]!r}")


def seat_row(seat: Seat) -> tuple[Any, ...]:
    """A seat's columns as a tuple, to tell whether it changed."""
    return tuple(getattr(seat, name) for name in SEAT_COLUMNS)


@dataclass
class Plan:
    """What a move's writes will be, ready for the driver, and the seats as read."""

    seats_read: list[tuple[Any, ...]]  # as the driver reads them back
    # The inserts (by table, in the order the rows were added), then the seats' updates,
    # then the other writes kept by add_write.
    writes: list[tuple[Statement, list[Params]]] = field(default_factory=list)
    game: tuple[Statement, Params] | None = None  # the conditional UPDATE of the game row


@contextmanager
def capturing(
    session: Session, seats: list[Seat], first: list[SQLModel | NewRow]
) -> Iterator[Plan]:
    """Run ORM code in `session` (a read session) and capture what it would write.

    Nothing is flushed: autoflush is off, the rows it adds (objects, or plain values by
    add_row) are taken in the order added (after `first`), and the seats' changed columns
    are read off when the block ends. The session is left empty: what it read is detached.

    NotCaptured: the block ran a statement that is not a SELECT, flushed, or changed or
    deleted a row other than `seats`, which the plan could not write."""
    dialect = dialect_of(session)
    read = [seat_row(seat) for seat in seats]
    plan = Plan([stored(dialect, SEATS.columns, row) for row in read])
    added = list(first)
    reading = session.connection().info  # the pooled connection's, kept past a rollback
    session.info[_CAPTURED] = added  # _adding (above) takes the objects added meanwhile
    written: list[tuple[Statement, list[Params]]] = []
    session.info[_WRITES] = written  # add_write (above) keeps its statements here
    reading[_READING] = True  # _reading_only (above) refuses any other statement
    try:
        with session.no_autoflush:
            yield plan
        _check_only_seats_changed(session, seats)
    except BaseException:
        # Detached first, so that what was read keeps its values; then rolled back, as a
        # refused flush leaves the transaction unusable.
        session.expunge_all()
        session.rollback()
        raise
    finally:
        session.info.pop(_CAPTURED, None)
        session.info.pop(_WRITES, None)
        reading.pop(_READING, None)
    plan.writes = _inserts(dialect, added)
    for before, seat in zip(read, seats, strict=True):
        changed = {
            name: value
            for name, old, value in zip(SEAT_COLUMNS, before, seat_row(seat), strict=True)
            if old != value
        }
        if changed and seat.id is not None:
            keys = tuple(changed)
            statement = compiled(dialect, ("seat update", *keys), partial(_seat_update, keys))
            plan.writes.append((statement, [statement.parameters({**changed, "w_id": seat.id})]))
    plan.writes.extend(written)
    session.expunge_all()


def _check_only_seats_changed(session: Session, seats: list[Seat]) -> None:
    """NotCaptured if a row other than the seats was changed or deleted in the session."""
    ours = {id(seat) for seat in seats}
    if session.deleted:
        raise NotCaptured(f"deleted while a move's writes were planned: {list(session.deleted)}")
    for row in session.dirty:
        if id(row) not in ours and session.is_modified(row):
            raise NotCaptured(f"changed while a move's writes were planned: {type(row).__name__}")


def _inserts(
    dialect: Dialect, rows: list[SQLModel | NewRow]
) -> list[tuple[Statement, list[Params]]]:
    """The rows' inserts, one statement a table, in the order the tables first appear."""
    by_table: dict[Any, list[dict[str, Any]]] = {}
    for row in rows:
        if isinstance(row, tuple):
            model, values = row
            table = model.__table__  # type: ignore[attr-defined]
            columns = _with_defaults(model, values)
        else:
            table = type(row).__table__  # type: ignore[attr-defined]
            columns = {c.key: getattr(row, c.key) for c in table.columns}
        by_table.setdefault(table, []).append(columns)
    writes: list[tuple[Statement, list[Params]]] = []
    for table, of_table in by_table.items():
        keys = tuple(c.key for c in table.columns if c.key != "id")
        statement = compiled(dialect, ("insert", table.name, *keys), partial(_insert, table, keys))
        writes.append((statement, [statement.parameters(columns) for columns in of_table]))
    return writes


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


def _seat_update(keys: tuple[str, ...]) -> Any:
    return (
        update(SEATS)
        .where(SEATS.c.id == bindparam("w_id", type_=Integer))
        .values({k: bindparam(k, type_=SEATS.c[k].type) for k in keys})
    )


def plan_game(session: Session, plan: Plan, game_id: int, ply: int, values: dict[str, Any]) -> None:
    """Make the conditional UPDATE that moves the game row from `ply` on, with `values`."""
    keys = tuple(values)
    statement = compiled(
        dialect_of(session),
        ("game move", *keys),
        lambda: (
            update(GAMES)
            .where(
                GAMES.c.id == bindparam("w_id", type_=Integer),
                GAMES.c.ply == bindparam("w_ply", type_=Integer),
                GAMES.c.status == "active",
            )
            .values({k: bindparam(k, type_=GAMES.c[k].type) for k in keys})
            .returning(GAMES.c.last_talk)
        ),
    )
    plan.game = (statement, statement.parameters({**values, "w_id": game_id, "w_ply": ply}))


def move_game(session: Session, plan: Plan) -> list[tuple[Any, ...]]:
    """Run the plan's UPDATE of the game row: one row (its last_talk) if it was at the ply."""
    assert plan.game is not None
    statement, params = plan.game
    return [tuple(row) for row in run(session, statement, params).fetchall()]


def still_holds(session: Session, plan: Plan, game_id: int) -> bool:
    """Whether the game's seats are as the plan read them (under the lock)."""
    statement = compiled(
        dialect_of(session),
        "seats of game",
        lambda: (
            select(SEATS)
            .where(SEATS.c.game_id == bindparam("w_game", type_=Integer))
            .order_by(SEATS.c.seat)
        ),
    )
    raw = run(session, statement, statement.parameters({"w_game": game_id}))
    return [tuple(row) for row in raw.fetchall()] == plan.seats_read


def carry_out(session: Session, plan: Plan) -> None:
    """Write the plan: its rows by table in the order added, then the seats' changes."""
    for statement, params in plan.writes:
        if len(params) == 1:
            run(session, statement, params[0])
        else:
            run(session, statement, params, many=True)
