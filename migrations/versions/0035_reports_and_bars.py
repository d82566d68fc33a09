"""reports and bars

report: a player's report of another to the operator (PBEM_OPERATOR_EMAIL); bar: an
account the operator barred from open tables, leagues and ratings (issue 48). New
tables only: old code keeps working beside them.

Revision ID: 0035
Revises: 0034
Create Date: 2026-12-05
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0035"
down_revision: str | None = "0034"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXT = sqlmodel.sql.sqltypes.AutoString
WHEN = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "report",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("reporter_id", sa.Integer(), nullable=False),
        sa.Column("reported_id", sa.Integer(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("talk_id", sa.Integer(), nullable=True),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.ForeignKeyConstraint(["reporter_id"], ["player.id"]),
        sa.ForeignKeyConstraint(["reported_id"], ["player.id"]),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.ForeignKeyConstraint(["talk_id"], ["talk.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_report_by", "report", ["reporter_id", "created_at"])
    op.create_index(op.f("ix_report_reported_id"), "report", ["reported_id"])
    op.create_table(
        "bar",
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("reason", TEXT(length=300), nullable=False),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"]),
        sa.PrimaryKeyConstraint("player_id"),
    )


def downgrade() -> None:
    """Undo this revision."""
    op.drop_table("bar")
    op.drop_index(op.f("ix_report_reported_id"), table_name="report")
    op.drop_index("ix_report_by", table_name="report")
    op.drop_table("report")
