"""game form key: a resent lobby form creates no second game

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("form_key", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True)
        )
        batch_op.create_index(batch_op.f("ix_game_form_key"), ["form_key"], unique=True)


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_game_form_key"))
        batch_op.drop_column("form_key")
