"""bounces

What bounces and complaints say of each address (mailaddress) and each report received
(bounce), issue 46. Additive: old code keeps working beside it.

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-05
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0029"
down_revision: str | None = "0028"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXT = sqlmodel.sql.sqltypes.AutoString
WHEN = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "mailaddress",
        sa.Column("address", TEXT(length=254), nullable=False),
        sa.Column("state", TEXT(length=12), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("scored_day", TEXT(length=10), nullable=False),
        sa.Column("last_bounce_at", WHEN(), nullable=True),
        sa.Column("since", WHEN(), nullable=True),
        sa.Column("last_kind", TEXT(length=12), nullable=False),
        sa.Column("last_reason", TEXT(length=300), nullable=False),
        sa.Column("updated_at", WHEN(), nullable=False),
        sa.PrimaryKeyConstraint("address"),
    )
    op.create_table(
        "bounce",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("address", TEXT(length=254), nullable=False),
        sa.Column("outbox_id", sa.Integer(), nullable=True),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("kind", TEXT(length=12), nullable=False),
        sa.Column("status", TEXT(length=12), nullable=False),
        sa.Column("reason", TEXT(length=300), nullable=False),
        sa.Column("received_at", WHEN(), nullable=False),
        sa.Column("scored_at", WHEN(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("bounce", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_bounce_address"), ["address"], unique=False)
        batch_op.create_index(batch_op.f("ix_bounce_game_id"), ["game_id"], unique=False)
        batch_op.create_index("ix_bounce_unscored", ["scored_at", "id"], unique=False)


def downgrade() -> None:
    """Undo this revision."""
    op.drop_table("bounce")
    op.drop_table("mailaddress")
