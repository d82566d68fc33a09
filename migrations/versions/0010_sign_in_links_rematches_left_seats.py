"""sign-in links mailed to players, rematches, seats left

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "signin",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("nonce", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("next_path", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("expires_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("used_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["player.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("signin", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_signin_player_id"), ["player_id"], unique=False)
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.add_column(sa.Column("rematch_of", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_game_rematch_of"), ["rematch_of"], unique=False)
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("left", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.drop_column("left")
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_game_rematch_of"))
        batch_op.drop_column("rematch_of")
    with op.batch_alter_table("signin", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_signin_player_id"))
    op.drop_table("signin")
