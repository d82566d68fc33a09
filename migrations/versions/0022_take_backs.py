"""take backs

A mover may ask to take back their last move until the next player moves; the next player
allows or refuses. The request and its answer are kept, and the game counts the moves taken
back (the pages' kept log lines name the count).

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "takeback",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("to_seat", sa.Integer(), nullable=False),
        sa.Column("move", sa.JSON(), nullable=False),
        sa.Column("lines", sa.JSON(), nullable=False),
        sa.Column("answer", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
        sa.Column("asked_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("answered_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("takeback", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_takeback_game_id"), ["game_id"], unique=False)
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("takebacks", sa.Integer(), nullable=False, server_default="0")
        )


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_column("takebacks")
    with op.batch_alter_table("takeback", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_takeback_game_id"))
    op.drop_table("takeback")
