"""game threads

Each game keeps its thread id (the Message-ID its mails refer to). A game that has mailed
keeps the thread its players already see, read from its oldest mail; one that never mailed
gets the thread domain in force (PBEM_THREAD_DOMAIN, else the host of PBEM_BASE_URL).

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-05
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import context, op

from pbem.config import AnyKey, load_settings, thread_domain

revision: str = "0027"
down_revision: str | None = "0026"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The thread its players see: the one the game's first mail carried.
FROM_OLDEST_MAIL = sa.text(
    "UPDATE game SET thread = (SELECT outbox.thread_id FROM outbox"
    " WHERE outbox.game_id = game.id AND outbox.thread_id IS NOT NULL"
    " ORDER BY outbox.id LIMIT 1)"
)
# A game that never mailed: the thread it would get if made now.
FROM_SETTING = sa.text(
    "UPDATE game SET thread = '<game-' || CAST(id AS VARCHAR(20)) || :at WHERE thread IS NULL"
)


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("thread", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True)
        )
    # `pbem migrate` passes the app's domain; otherwise (a bare migrate()) the environment's.
    domain = context.config.attributes.get("thread_domain")
    domain = domain or thread_domain(load_settings(kind=AnyKey))
    op.execute(FROM_OLDEST_MAIL)
    op.execute(FROM_SETTING.bindparams(at=f"@{domain}>"))


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_column("thread")
