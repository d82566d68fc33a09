"""gunicorn's access log with link tokens masked (the Procfile's `--logger-class`).

A seat link is a credential (/p/<token> plays the seat), and so are the spectator,
unsubscribe, sign-in and API links: none may be written to a log. Every value the
access log can print (the request line, the path, the referrer, a redirect's Location,
any header or environ value) goes through `mask`.
"""

from __future__ import annotations

import re
from typing import Any

from gunicorn.glogging import Logger

# The routes whose next path segment is a signed token (pbem.web: game, account,
# replay, webhooks, lobby, signin, api, leagues: a league's key lets one see and join
# it, /leagues/new is the form, not a key; mailfix: a new address's confirmation;
# reports: the operator's signed link to a report).
# tests/live/test_gunicorn_facing.py checks every route of the app with a <token> against it.
TOKEN_IN_PATH = re.compile(
    r"(/(?:p|w|u|signin|address|games/created|api/v1/seat|api/v1/watch|api/v1/leagues"
    r"|reports|leagues/invited|leagues(?=/(?!new(?:[/?#\s]|$))))/)[^/?#\s\"']+"
)
MASK = "…"


def mask(text: str) -> str:
    """`text` with every link token replaced by an ellipsis."""
    return TOKEN_IN_PATH.sub(rf"\g<1>{MASK}", text)


class MaskedTokens(Logger):  # type: ignore[misc]  # gunicorn has no type hints
    """gunicorn's logger, printing no link token in the access log."""

    def atoms(self, resp: Any, req: Any, environ: Any, request_time: Any) -> dict[str, Any]:
        """The access log's fields, each string masked."""
        atoms = super().atoms(resp, req, environ, request_time)
        return {k: mask(v) if isinstance(v, str) else v for k, v in atoms.items()}
