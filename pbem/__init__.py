"""pbem: a play-by-email server for slow card games."""

from __future__ import annotations

from typing import Any


def create_app(test_config: dict[str, Any] | None = None) -> Any:
    """Build the Flask application."""
    # The one import inside a function in pbem/: every `import pbem.games...` runs this
    # file first, so importing the app here at the top would pull Flask and the database
    # into the pure rules (and into every rules test and bot).
    from pbem.app import build_app

    return build_app(test_config)
