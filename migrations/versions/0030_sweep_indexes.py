"""sweep indexes

Two indexes for the sweep that runs every 30 seconds: games still forming found by status
and age (game.status, created_at), and the received mail past 30 days by its age
(inboundmail.created_at). Both read their whole table on each sweep before. Additive: old
code keeps working beside it.

Revision ID: 0030
Revises: 0029
Create Date: 2026-12-05
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0030"
down_revision: str | None = "0029"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.create_index("ix_game_status_created", ["status", "created_at"], unique=False)
    with op.batch_alter_table("inboundmail", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_inboundmail_created_at"), ["created_at"], unique=False)


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("inboundmail", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_inboundmail_created_at"))
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_index("ix_game_status_created")
