"""webhook events rendered when sent

A webhook delivery records the facts of its event (who, which seat, the link, the
deadline); the deliverer writes the body from them before the first attempt, so a move's
transaction renders nothing. A body, once written, is kept for every retry.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("webhookdelivery", schema=None) as batch_op:
        batch_op.add_column(sa.Column("facts", sa.JSON(), nullable=True))


def downgrade() -> None:
    """Undo this revision."""
    # A delivery not yet written has no body to keep: drop it with its facts.
    op.execute("DELETE FROM webhookdelivery WHERE body = ''")
    with op.batch_alter_table("webhookdelivery", schema=None) as batch_op:
        batch_op.drop_column("facts")
