"""league member shares

leaguemember.share: the share of a checkable deal its member's browser made when they made
or joined the league, given to every seat the league's rounds seat them at (issue 48: a
league's games had no player share). Additive, with a default: a member who joined before
this gives an empty share, which each game's deal section says.

Revision ID: 0036
Revises: 0035
Create Date: 2026-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0036"
down_revision: str | None = "0035"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("leaguemember", schema=None) as batch_op:
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
    with op.batch_alter_table("leaguemember", schema=None) as batch_op:
        batch_op.drop_column("share")
