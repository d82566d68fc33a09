"""Rows read on the driver's cursor (pbem.storage.rawsql), turned into Python values as
SQLAlchemy's own result would turn them: a datetime SQLite keeps as text, a JSON column.

For the reads the sender makes for every mail: SQLAlchemy's result set-up and row objects
cost more than the driver's fetch of the few rows they are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import DateTime, Dialect, TypeDecorator

Convert = Callable[[Sequence[Any]], tuple[Any, ...]]
_CONVERTERS: dict[tuple[str, Any], Convert] = {}


def processed(dialect: Dialect, key: Any, types: Callable[[], Sequence[Any]]) -> Convert:
    """A function that turns a driver's row of columns of `types()` (SQLAlchemy types, in the
    order selected) into Python values; made once per dialect under `key`."""
    found = _CONVERTERS.get((dialect.name, key))
    if found is not None:
        return found
    steps = tuple(type_.dialect_impl(dialect).result_processor(dialect, None) for type_ in types())
    if not any(steps):
        found = tuple
    else:

        def found(row: Sequence[Any]) -> tuple[Any, ...]:
            return tuple(
                value if step is None or value is None else step(value)
                for step, value in zip(steps, row, strict=True)
            )

    _CONVERTERS[(dialect.name, key)] = found
    return found


def _step(dialect: Dialect, type_: Any) -> Callable[[Any], Any] | None:
    """What SQLAlchemy does to a value of `type_` it reads, or the same done faster: SQLite
    keeps a datetime as ISO text, which datetime.fromisoformat reads in C where SQLAlchemy's
    processor matches a regular expression (a tenth of a mail's read of its game's seats)."""
    if dialect.name == "sqlite" and type_._type_affinity is DateTime:
        if isinstance(type_, TypeDecorator):
            after = type_.process_result_value
            return lambda value: after(datetime.fromisoformat(value), dialect)
        return datetime.fromisoformat
    step: Callable[[Any], Any] | None = type_.dialect_impl(dialect).result_processor(dialect, None)
    return step
