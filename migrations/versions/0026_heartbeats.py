"""heartbeats, and games counted by kind from an index

One row per long-running process (clock, computer worker, inbound listener, `pbem serve`),
written by that process alone: its last beat and its counters and histograms, read by
/readyz and /metrics (issue 45). Games are counted by status and kind for /metrics from
(status, slug), which takes the place of the index on status alone.

Revision ID: 0026
Revises: 0025
Create Date: 2027-01-10
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0026"
down_revision: str | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXT = sqlmodel.sql.sqltypes.AutoString
WHEN = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "heartbeat",
        sa.Column("id", TEXT(length=32), nullable=False),
        sa.Column("kind", TEXT(length=12), nullable=False),
        sa.Column("host", TEXT(length=255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("started_at", WHEN(), nullable=False),
        sa.Column("beat_at", WHEN(), nullable=False),
        sa.Column("samples", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    # Index operations need no copy of the table, on SQLite either.
    op.create_index("ix_game_status_slug", "game", ["status", "slug"], unique=False)
    op.drop_index("ix_game_status", table_name="game")


def downgrade() -> None:
    """Undo this revision."""
    op.create_index("ix_game_status", "game", ["status"], unique=False)
    op.drop_index("ix_game_status_slug", table_name="game")
    op.drop_table("heartbeat")
