"""checkable deals

The server's secret and salt of a game's deal, sealed when it is made, and each seat's
share given when joining: the seed comes from them at the start (pbem.games.fairdeal).

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("deal_secret", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True)
        )
        batch_op.add_column(
            sa.Column("deal_salt", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True)
        )
    with op.batch_alter_table("seat", schema=None) as batch_op:
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
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.drop_column("share")
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_column("deal_salt")
        batch_op.drop_column("deal_secret")
