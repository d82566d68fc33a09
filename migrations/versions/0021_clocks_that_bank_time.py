"""clocks that bank time

Games may count time per move as before, or as a Fischer clock or a time bank, and may
stop all clocks on chosen weekdays; a seat keeps its banked time; a player may let the
server take vacation days instead of a timeout.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "clock",
                sqlmodel.sql.sqltypes.AutoString(length=8),
                nullable=False,
                server_default="move",
            )
        )
        batch_op.add_column(sa.Column("clock_add", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("clock_cap", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column("days_off", sa.JSON(), nullable=False, server_default=sa.text("'[]'"))
        )
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.add_column(sa.Column("banked", sa.Integer(), nullable=True))
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("auto_vacation", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.drop_column("auto_vacation")
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.drop_column("banked")
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_column("days_off")
        batch_op.drop_column("clock_cap")
        batch_op.drop_column("clock_add")
        batch_op.drop_column("clock")
