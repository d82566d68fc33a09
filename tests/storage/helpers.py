"""Helpers for the storage tests: an empty database of the kind under test."""

from __future__ import annotations

from typing import Any

from sqlalchemy import create_engine, text

import pbem.models  # noqa: F401


def empty_database(database_url: str, tmp_path: Any) -> str:
    """A database with no tables: a new SQLite file, or the PostgreSQL test database emptied."""
    if not database_url.startswith("postgresql"):
        return f"sqlite:///{tmp_path / 'empty.sqlite3'}"
    engine = create_engine(database_url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()
    return database_url
