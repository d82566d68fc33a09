"""game rounds

gameround: the finished rounds a game's state no longer holds (issue 50: a Fantasy Business
state kept every round's record, and every move, page and mail decoded them all). Additive:
a game stored before this keeps its whole history in its state, which the code reads as it
is, and releases its finished rounds into this table at its next move.

Revision ID: 0037
Revises: 0036
Create Date: 2026-12-05
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0037"
down_revision: str | None = "0036"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "gameround",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("record", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.PrimaryKeyConstraint("game_id", "round"),
    )


def downgrade() -> None:
    """Undo this revision."""
    op.drop_table("gameround")
