"""webhooks: chat-room notifications and their outbox

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "webhook",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
        sa.Column("url", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
        sa.Column("secret", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("disabled_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["game.id"],
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["player.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("webhook", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_webhook_game_id"), ["game_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_webhook_player_id"), ["player_id"], unique=False)

    op.create_table(
        "webhookdelivery",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("webhook_id", sa.Integer(), nullable=False),
        sa.Column("event_id", sqlmodel.sql.sqltypes.AutoString(length=120), nullable=False),
        sa.Column("event", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("next_attempt_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("claimed_until", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("sent_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("given_up", sa.Boolean(), nullable=False),
        sa.Column("last_error", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=True),
        sa.ForeignKeyConstraint(
            ["webhook_id"],
            ["webhook.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("event_id"),
    )
    with op.batch_alter_table("webhookdelivery", schema=None) as batch_op:
        batch_op.create_index(
            "ix_webhookdelivery_due", ["sent_at", "next_attempt_at"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_webhookdelivery_webhook_id"), ["webhook_id"], unique=False
        )


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("webhookdelivery", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_webhookdelivery_webhook_id"))
        batch_op.drop_index("ix_webhookdelivery_due")
    op.drop_table("webhookdelivery")
    with op.batch_alter_table("webhook", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_webhook_player_id"))
        batch_op.drop_index(batch_op.f("ix_webhook_game_id"))
    op.drop_table("webhook")
