"""sign-in rows dropped after expiry

The sweep drops sign-in rows a month past their expiry; an index on expires_at lets it
find them without reading the whole table.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("signin", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_signin_expires_at"), ["expires_at"], unique=False)


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("signin", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_signin_expires_at"))
