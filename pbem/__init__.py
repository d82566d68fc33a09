"""pbem: a play-by-email server for slow card games."""

from __future__ import annotations

from typing import Any


def create_app(test_config: dict[str, Any] | None = None) -> Any:
    """Build the Flask application (imported lazily so that pbem.games stays light)."""
    from pbem.app import build_app

    return build_app(test_config)
