"""open tables and standing seeks

A forming game posted open to anyone signed in (its seats wanted, language and rating
range), and players' standing seeks that seat them at the next open table that fits
(issue 36).

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXT = sqlmodel.sql.sqltypes.AutoString
WHEN = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "opentable",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("slug", TEXT(length=40), nullable=False),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("lang", TEXT(length=5), nullable=False),
        sa.Column("rating_min", sa.Integer(), nullable=True),
        sa.Column("rating_max", sa.Integer(), nullable=True),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"]),
        sa.PrimaryKeyConstraint("game_id"),
    )
    with op.batch_alter_table("opentable", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_opentable_player_id"), ["player_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_opentable_slug"), ["slug"], unique=False)
        batch_op.create_index(batch_op.f("ix_opentable_created_at"), ["created_at"], unique=False)
    op.create_table(
        "playerseek",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("slug", TEXT(length=40), nullable=False),
        sa.Column("lang", TEXT(length=5), nullable=False),
        sa.Column("rating_min", sa.Integer(), nullable=True),
        sa.Column("rating_max", sa.Integer(), nullable=True),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("playerseek", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_playerseek_player_id"), ["player_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_playerseek_slug"), ["slug"], unique=False)


def downgrade() -> None:
    """Undo this revision."""
    for table, indexes in (
        ("playerseek", ("ix_playerseek_player_id", "ix_playerseek_slug")),
        ("opentable", ("ix_opentable_player_id", "ix_opentable_slug", "ix_opentable_created_at")),
    ):
        with op.batch_alter_table(table, schema=None) as batch_op:
            for index in indexes:
                batch_op.drop_index(index)
        op.drop_table(table)
