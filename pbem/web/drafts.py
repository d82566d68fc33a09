"""The move a player is reviewing, kept in a cookie between "Review the move" and "Send".

The review is a page of its own (POST, then a redirect to a GET), so a reload, the EN/FR
switch and the back button work on it. Its choices are not put in the address: a link is
written to access logs, and the choices hold the player's hand and secret prices. The
cookie is sent only to the seat's own address and only to this server; nothing in it is
trusted: the review and the move are checked against the rules as every form is.
"""

from __future__ import annotations

import base64
import json

from flask import current_app, request
from werkzeug.wrappers import Response

COOKIE = "pbem_draft"
# Cookies over about 4 KB are dropped by browsers; a larger form is reviewed in place.
MAX_COOKIE = 3500
_DROPPED = ("confirm", "change", "csrf")


def _path(token: str) -> str:
    return f"/p/{token}"


def encode(form: dict[str, str]) -> str | None:
    """The cookie value for a form's choices, or None when it would be too large."""
    kept = {k: v for k, v in form.items() if k not in _DROPPED}
    raw = json.dumps(kept, ensure_ascii=False, separators=(",", ":")).encode()
    value = base64.urlsafe_b64encode(raw).decode()
    return value if len(value) <= MAX_COOKIE else None


def read() -> dict[str, str] | None:
    """The choices this request's cookie holds, or None (absent, garbled or too large)."""
    value = request.cookies.get(COOKIE, "")
    if not value or len(value) > MAX_COOKIE:
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(value.encode()))
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    return {str(k): str(v) for k, v in data.items() if isinstance(v, (str, int))}


def keep(response: Response, token: str, value: str) -> None:
    """Set the cookie on the seat's own path, for this server only."""
    response.set_cookie(
        COOKIE,
        value,
        path=_path(token),
        httponly=True,
        samesite="Lax",
        secure=bool(current_app.config.get("SESSION_COOKIE_SECURE")),
    )


def drop(response: Response, token: str) -> None:
    """Forget the draft once the move is in."""
    response.delete_cookie(COOKIE, path=_path(token))
