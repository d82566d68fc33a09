"""table versions

game.version and league.version: raised by every write that changes what the game's (or
the league's) page shows, so that `pbem live` can tell an open page "changed" and the
page's poll can answer 304 from one indexed read (issue 47). Additive, with a default:
old code keeps working beside it (its writes leave the version as it is, and pages then
see those changes only at the next write that raises it).

Revision ID: 0031
Revises: 0030
Create Date: 2026-12-08
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0031"
down_revision: str | None = "0030"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    # ADD COLUMN with a constant default: no copy of the table, on SQLite or PostgreSQL.
    op.add_column(
        "game", sa.Column("version", sa.Integer(), nullable=False, server_default=sa.text("0"))
    )
    op.add_column(
        "league", sa.Column("version", sa.Integer(), nullable=False, server_default=sa.text("0"))
    )


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("league", schema=None) as batch_op:
        batch_op.drop_column("version")
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_column("version")
