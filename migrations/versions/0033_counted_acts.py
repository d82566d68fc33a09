"""counted acts

countedact: one row per act counted against a player's allowance over a sliding window
(open tables, seats taken, invitations sent and received; issue 48). Counted under the
player's lock in the write that does the act, so parallel requests cannot pass a limit.
A new table only: old code keeps working beside it.

Revision ID: 0033
Revises: 0031
Create Date: 2026-12-05
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0033"
down_revision: str | None = "0031"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXT = sqlmodel.sql.sqltypes.AutoString
WHEN = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "countedact",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", TEXT(length=20), nullable=False),
        sa.Column("who", sa.Integer(), nullable=False),
        sa.Column("at", WHEN(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("countedact", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_countedact_at"), ["at"], unique=False)
        batch_op.create_index("ix_countedact_kind_who_at", ["kind", "who", "at"], unique=False)


def downgrade() -> None:
    """Undo this revision."""
    op.drop_table("countedact")
