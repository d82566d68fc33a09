"""leagues

Leagues by mail: a league, its members and its games by round (issue 36).

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXT = sqlmodel.sql.sqltypes.AutoString
WHEN = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "league",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", TEXT(length=80), nullable=False),
        sa.Column("organiser_id", sa.Integer(), nullable=False),
        sa.Column("slug", TEXT(length=40), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("days_per_move", sa.Integer(), nullable=True),
        sa.Column("clock", TEXT(length=8), nullable=False),
        sa.Column("clock_add", sa.Integer(), nullable=True),
        sa.Column("clock_cap", sa.Integer(), nullable=True),
        sa.Column("takeover", TEXT(length=12), nullable=True),
        sa.Column("format", TEXT(length=12), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("table_size", sa.Integer(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("status", TEXT(length=12), nullable=False),
        sa.Column("is_open", sa.Boolean(), nullable=False),
        sa.Column("join_key", TEXT(length=32), nullable=False),
        sa.Column("most_players", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.Column("started_at", WHEN(), nullable=True),
        sa.Column("finished_at", WHEN(), nullable=True),
        sa.Column("next_digest_at", WHEN(), nullable=True),
        sa.Column("claimed_until", WHEN(), nullable=True),
        sa.ForeignKeyConstraint(["organiser_id"], ["player.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("league", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_league_organiser_id"), ["organiser_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_league_next_digest_at"), ["next_digest_at"], unique=False
        )
    op.create_table(
        "leaguemember",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("league_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("status", TEXT(length=12), nullable=False),
        sa.Column("points", sa.Float(), nullable=False),
        sa.Column("joined_at", WHEN(), nullable=True),
        sa.ForeignKeyConstraint(["league_id"], ["league.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("league_id", "player_id"),
    )
    with op.batch_alter_table("leaguemember", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_leaguemember_league_id"), ["league_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_leaguemember_player_id"), ["player_id"], unique=False)
    op.create_table(
        "leaguegame",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("league_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("bye_player_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["bye_player_id"], ["player.id"]),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.ForeignKeyConstraint(["league_id"], ["league.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id"),
    )
    with op.batch_alter_table("leaguegame", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_leaguegame_league_id"), ["league_id"], unique=False)


def downgrade() -> None:
    """Undo this revision."""
    for table, indexes in (
        ("leaguegame", ("ix_leaguegame_league_id",)),
        ("leaguemember", ("ix_leaguemember_player_id", "ix_leaguemember_league_id")),
        ("league", ("ix_league_next_digest_at", "ix_league_organiser_id")),
    ):
        with op.batch_alter_table(table, schema=None) as batch_op:
            for index in indexes:
                batch_op.drop_index(index)
        op.drop_table(table)
