"""ratings and blocks

Glicko-2 ratings per player and game kind with their history, a game's "rated" option, a
player's choice to show their page, and blocks between players (issue 36).

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXT = sqlmodel.sql.sqltypes.AutoString
WHEN = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "rating",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("kind", TEXT(length=40), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", WHEN(), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("player_id", "kind"),
    )
    with op.batch_alter_table("rating", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_rating_player_id"), ["player_id"], unique=False)
    op.create_table(
        "ratingchange",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("kind", TEXT(length=40), nullable=False),
        sa.Column("before", sa.Float(), nullable=False),
        sa.Column("after", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "player_id"),
    )
    with op.batch_alter_table("ratingchange", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_ratingchange_game_id"), ["game_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_ratingchange_player_id"), ["player_id"], unique=False)
    op.create_table(
        "block",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("blocked_id", sa.Integer(), nullable=False),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.ForeignKeyConstraint(["blocked_id"], ["player.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("player_id", "blocked_id"),
    )
    with op.batch_alter_table("block", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_block_blocked_id"), ["blocked_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_block_player_id"), ["player_id"], unique=False)
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("rated", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("page_public", sa.Boolean(), nullable=False, server_default=sa.true())
        )


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.drop_column("page_public")
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_column("rated")
    for table, indexes in (
        ("block", ("ix_block_player_id", "ix_block_blocked_id")),
        ("ratingchange", ("ix_ratingchange_player_id", "ix_ratingchange_game_id")),
        ("rating", ("ix_rating_player_id",)),
    ):
        with op.batch_alter_table(table, schema=None) as batch_op:
            for index in indexes:
                batch_op.drop_index(index)
        op.drop_table(table)
