"""outbox rendered by the sender

The outbox row records what to send (event, seat, ply, player, extra facts); the
sender renders it after commit. The game keeps the id of its latest talk message, so
that a move needs no talk query.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("last_talk", sa.Integer(), nullable=False, server_default=sa.text("0"))
        )
    op.execute(
        "UPDATE game SET last_talk = (SELECT coalesce(max(talk.id), 0) FROM talk"
        " WHERE talk.game_id = game.id)"
    )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.add_column(sa.Column("player_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("seat", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("ply", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column("extra", sa.JSON(), nullable=False, server_default=sa.text("'{}'"))
        )
        batch_op.add_column(
            sa.Column("rendered_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True)
        )
        batch_op.create_foreign_key("fk_outbox_player_id", "player", ["player_id"], ["id"])
    # Mail queued before this revision was rendered when it was queued.
    op.execute("UPDATE outbox SET rendered_at = created_at")


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_constraint("fk_outbox_player_id", type_="foreignkey")
        batch_op.drop_column("rendered_at")
        batch_op.drop_column("extra")
        batch_op.drop_column("ply")
        batch_op.drop_column("seat")
        batch_op.drop_column("player_id")
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_column("last_talk")
