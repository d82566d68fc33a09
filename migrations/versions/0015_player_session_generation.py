"""player session generation

A signed-in device's cookie holds the player's session generation beside their id, and a
request honours it only while it is still the player's: signing out raises it, so a copy
of the cookie made before opens nothing, and "sign out everywhere" ends every device's
session. Existing players start at 0; a cookie from before holds no generation and
counts as signed out.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "session_generation", sa.Integer(), nullable=False, server_default=sa.text("0")
            )
        )


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.drop_column("session_generation")
