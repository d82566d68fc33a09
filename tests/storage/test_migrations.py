"""Migrations: they upgrade a database that holds games, and they match the models."""

from __future__ import annotations

from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, text
from sqlmodel import SQLModel

import pbem.models  # noqa: F401
from pbem.storage.db import migrate
from tests.storage.helpers import empty_database


def test_upgrade_keeps_existing_games(database_url: str, tmp_path: Any) -> None:
    try:
        upgrade_with_a_game_in(empty_database(database_url, tmp_path))
    finally:
        migrate(database_url)  # leave the shared test database as the other tests expect


def upgrade_with_a_game_in(database_url: str) -> None:
    """Migrate to the first revision, store a player and a game, then migrate to the head."""
    engine = create_engine(database_url)
    migrate(database_url, "0001")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO player (email, name, lang, created_at) "
                "VALUES ('ana@example.org', 'Ana', 'fr', '2026-01-01 00:00:00')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO game (slug, options, seed, ply, status, creator_seat, watch_key, "
                "created_at, updated_at) VALUES ('colour-bazaar', '{}', 7, 0, 'forming', 0, 'k', "
                "'2026-01-01 00:00:00', '2026-01-01 00:00:00')"
            )
        )
    migrate(database_url)
    with engine.connect() as conn:
        row = conn.execute(text("SELECT reminders, absent_after, days_per_move FROM game")).one()
        player = conn.execute(text("SELECT tz, notify, vacation_days, lang FROM player")).one()
    assert row[1] == 3 and row[2] is None
    assert "24h" in str(row[0]) and "80%" in str(row[0])
    assert tuple(player) == ("UTC", "every", 14, "fr")
    engine.dispose()


def test_models_and_migrations_agree(database_url: str) -> None:
    engine = create_engine(database_url)
    with engine.connect() as conn:
        diff: list[Any] = compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)
    engine.dispose()
    assert diff == []
