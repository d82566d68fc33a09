"""mailed sign-in rows made when used

A game mail's settings link used to need a sign-in row made by the sender for every
mail; it now names its outbox row, and the sign-in row is made when the link is used,
once (a unique index on outbox_id).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("signin", schema=None) as batch_op:
        batch_op.add_column(sa.Column("outbox_id", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_signin_outbox_id"), ["outbox_id"], unique=True)


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("signin", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_signin_outbox_id"))
        batch_op.drop_column("outbox_id")
