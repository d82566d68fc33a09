"""game reviews

gamereview: a seat's review of a finished game (issue 51), asked by its player after the end
and worked out once by the computer workers, which lease each row while they work. Additive.

Revision ID: 0038
Revises: 0037
Create Date: 2026-12-12
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0038"
down_revision: str | None = "0037"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WHEN = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "gamereview",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("asked_at", WHEN(), nullable=False),
        sa.Column("mail", sa.Boolean(), nullable=False),
        sa.Column("claimed_until", WHEN(), nullable=True),
        sa.Column("done_at", WHEN(), nullable=True),
        sa.Column("mailed_at", WHEN(), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "seat"),
    )
    op.create_index("ix_gamereview_todo", "gamereview", ["done_at", "mailed_at"])


def downgrade() -> None:
    """Undo this revision."""
    op.drop_index("ix_gamereview_todo", table_name="gamereview")
    op.drop_table("gamereview")
