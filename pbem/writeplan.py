"""Writes worked out before the write lock and carried out under it, in a few statements.

A move's clocks, mails and webhook events are worked out by the ORM code that always did
it, but in a read session whose changes are captured instead of flushed: the rows it
would add and the seat columns it would change. Under the lock the plan is checked
against the seats as they are now (any change since the read: the plan is dropped and
the move is written the ordinary way) and then written with Core statements.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import JSON, event, insert, select, update
from sqlmodel import Session, SQLModel

from pbem.db import JsonText
from pbem.models import Seat

SEATS = Seat.__table__  # type: ignore[attr-defined]  # Core, not the ORM: fewer steps a statement
SEAT_COLUMNS = tuple(column.key for column in SEATS.columns)


def seat_row(seat: Seat) -> tuple[Any, ...]:
    """A seat's columns as a tuple, to tell whether it changed."""
    return tuple(getattr(seat, name) for name in SEAT_COLUMNS)


def sealed(table: Any, values: dict[str, Any]) -> dict[str, Any]:
    """`values` for `table` with its JSON columns already serialized, so that no JSON is
    written out under the lock."""
    return {
        name: JsonText(json.dumps(value))
        if value is not None and isinstance(table.c[name].type, JSON)
        else value
        for name, value in values.items()
    }


@dataclass
class Plan:
    """What a move's writes will be: rows to add, seat columns to set, the seats as read."""

    seats_read: list[tuple[Any, ...]]
    seat_changes: dict[int, dict[str, Any]] = field(default_factory=dict)
    rows: list[SQLModel] = field(default_factory=list)
    inserts: list[tuple[Any, list[dict[str, Any]]]] = field(default_factory=list)
    game_values: dict[str, Any] = field(default_factory=dict)  # the game row's, sealed

    def seal(self) -> None:
        """Turn the rows into the values carry_out inserts, table by table, in order."""
        by_table: dict[Any, list[dict[str, Any]]] = {}
        for row in self.rows:
            table = type(row).__table__  # type: ignore[attr-defined]
            values = {c.key: getattr(row, c.key) for c in table.columns if c.key != "id"}
            by_table.setdefault(table, []).append(sealed(table, values))
        self.inserts = list(by_table.items())


@contextmanager
def capturing(session: Session, seats: list[Seat]) -> Iterator[Plan]:
    """Run ORM code in `session` (a read session) and capture what it would write.

    Nothing is flushed: autoflush is off, the rows it adds are taken in the order added,
    and the seats' changed columns are read off when the block ends."""
    plan = Plan([seat_row(seat) for seat in seats])

    def added(_session: Session, instance: Any) -> None:
        plan.rows.append(instance)

    event.listen(session, "transient_to_pending", added)
    try:
        with session.no_autoflush:
            yield plan
    finally:
        event.remove(session, "transient_to_pending", added)
    for before, seat in zip(plan.seats_read, seats, strict=True):
        changed = {
            name: value
            for name, old, value in zip(SEAT_COLUMNS, before, seat_row(seat), strict=True)
            if old != value
        }
        if changed and seat.id is not None:
            plan.seat_changes[seat.id] = changed
    session.expunge_all()


def still_holds(session: Session, plan: Plan, game_id: int) -> bool:
    """Whether the game's seats are as the plan read them (under the lock)."""
    now = session.execute(
        select(SEATS).where(SEATS.c.game_id == game_id).order_by(SEATS.c.seat)
    ).all()
    return [tuple(row) for row in now] == plan.seats_read


def carry_out(session: Session, plan: Plan) -> None:
    """Write the sealed plan: its rows by table in the order added, then the seats' changes."""
    for table, rows in plan.inserts:
        session.execute(insert(table), rows)
    for seat_id, changed in plan.seat_changes.items():
        session.execute(update(SEATS).where(SEATS.c.id == seat_id).values(**changed))
