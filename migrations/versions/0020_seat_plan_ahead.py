"""seat plan ahead

A seat's conditional moves ("if they play X, I play Y"), kept secret on the seat row as a
tree of at most two levels, with a note for its player once it was used or cancelled.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.add_column(sa.Column("ahead", sa.JSON(), nullable=True))


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.drop_column("ahead")
