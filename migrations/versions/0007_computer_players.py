"""computer players: computer seats, takeover of absent seats

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("takeover", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=True)
        )
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("computer", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=True)
        )
        batch_op.add_column(
            sa.Column("computer_due_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True)
        )
        batch_op.create_index(
            batch_op.f("ix_seat_computer_due_at"), ["computer_due_at"], unique=False
        )


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_seat_computer_due_at"))
        batch_op.drop_column("computer_due_at")
        batch_op.drop_column("computer")
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_column("takeover")
