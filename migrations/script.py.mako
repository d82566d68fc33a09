"""${message}

Revision ID: ${up_revision}
Revises: ${down_revision | comma,n}
Create Date: ${create_date}

While the old release serves: it keeps working, as this revision only adds (tables,
columns empty or with a server default, indexes). Anything else (a drop, a rename, a
type, rows rewritten) goes in two releases, or this line says "Stop the old code first"
and why: README "Backups and upgrades".
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op
${imports if imports else ""}

revision: str = ${repr(up_revision)}
down_revision: str | None = ${repr(down_revision)}
branch_labels: str | Sequence[str] | None = ${repr(branch_labels)}
depends_on: str | Sequence[str] | None = ${repr(depends_on)}


def upgrade() -> None:
    """Apply this revision."""
    ${upgrades if upgrades else "pass"}


def downgrade() -> None:
    """Undo this revision."""
    ${downgrades if downgrades else "pass"}
