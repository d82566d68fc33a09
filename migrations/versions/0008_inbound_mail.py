"""inbound mail: replies received by pbem inbound

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "inboundmail",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("turn", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("sender", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
        sa.Column("reason", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("move", sa.JSON(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["game.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("message_id"),
    )
    with op.batch_alter_table("inboundmail", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_inboundmail_game_id"), ["game_id"], unique=False)


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("inboundmail", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_inboundmail_game_id"))
    op.drop_table("inboundmail")
