"""seek shares

playerseek.share: the share of a checkable deal its player's browser made when the seek
was kept, given to the seat the seek takes (issue 48: a seat seated from a seek, or at a
table made of matched seeks, had none). Additive, with a default: a seek kept before this
gives an empty share, which the deal's section says.

Revision ID: 0034
Revises: 0033
Create Date: 2026-12-05
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0034"
down_revision: str | None = "0033"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("playerseek", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "share",
                sqlmodel.sql.sqltypes.AutoString(length=200),
                nullable=False,
                server_default="",
            )
        )


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("playerseek", schema=None) as batch_op:
        batch_op.drop_column("share")
