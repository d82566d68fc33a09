"""games by end

An index on game.finished_at: retention finds the games that ended lately, to delete
their old mail (issue 45).

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-05
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0028"
down_revision: str | None = "0027"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_game_finished_at"), ["finished_at"], unique=False)


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_game_finished_at"))
