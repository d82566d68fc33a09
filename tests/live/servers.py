"""`python -m tests.live.servers -- COMMAND...`: COMMAND with a fresh PostgreSQL server.

The servers themselves live in pbem.devservers, which bench/ uses too (bench/ imports
nothing from tests/); this name stays because CI and the docs run it.
"""

from __future__ import annotations

import sys

from pbem.devservers import HOST, Postgres, free_port, gunicorn, main, pg_bin

__all__ = ["HOST", "Postgres", "free_port", "gunicorn", "main", "pg_bin"]

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
