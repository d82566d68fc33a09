"""Cross-site request forgery: every POST form carries a token, and cross-site posts are refused.

A form's token is signed for the link the page was reached by (the seat token,
or nothing for the lobby) and stays good for 60 days, so a player who thinks
for two days can still send the form they opened. No cookie or session is
needed. The one-click unsubscribe POST of RFC 8058 is exempt: mail clients
send it without a form, and its signed link is what guards it.
"""

from __future__ import annotations

import secrets
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, abort, current_app, g, render_template, request
from itsdangerous import BadData, URLSafeTimedSerializer
from markupsafe import Markup
from werkzeug.wrappers import Response

MAX_AGE = 60 * 24 * 3600
EXEMPT = {"account.unsubscribe", "static"}


@lru_cache(maxsize=8)
def _serializer_for(secret: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(secret, salt="pbem.csrf")


def _serializer() -> URLSafeTimedSerializer:
    return _serializer_for(current_app.config["SECRET_KEY"])


def _scope() -> str:
    return str((request.view_args or {}).get("token", ""))


def csrf_token(scope: str | None = None) -> str:
    """A form token for this page's link (or for `scope`), unique to the page it is on.

    The random part tells two forms apart, so that the lobby knows a form sent again; it
    is signed once per request and scope, however many forms the page holds.
    """
    wanted = _scope() if scope is None else scope
    made: dict[str, str] = g.setdefault("csrf_tokens", {})
    if wanted not in made:
        made[wanted] = str(_serializer().dumps([wanted, secrets.token_urlsafe(9)]))
    return made[wanted]


def _scope_of(payload: Any) -> Any:
    """The link a token was made for (tokens made before the random part was added: bare)."""
    return payload[0] if isinstance(payload, list) and len(payload) == 2 else payload


def csrf_field() -> Markup:
    """The hidden input every POST form includes."""
    return Markup('<input type="hidden" name="csrf" value="{}">').format(csrf_token())


def _refuse(status: int) -> tuple[str, int]:
    return render_template("error.html", code=status, key="error.csrf"), status


def check() -> Response | tuple[str, int] | None:
    """Refuse a POST that comes from another site or lacks a good token for its link."""
    unsafe = request.method in ("POST", "PUT", "DELETE")  # the API's plan takes PUT, DELETE
    if not unsafe or request.url_rule is None or request.endpoint in EXEMPT:
        return None  # not a route that changes anything (Flask answers 404 or 405), or exempt
    cross = request.headers.get("Sec-Fetch-Site") == "cross-site"
    origin = request.headers.get("Origin")
    if cross or (origin and origin != "null" and urlsplit(origin).netloc != request.host):
        if request.blueprint == "api":
            abort(403)  # answered as JSON
        return _refuse(403)
    if request.blueprint == "api":
        # The JSON API takes no form and no cookie: a move needs the signed link and a JSON
        # body (application/json, which a cross-site form cannot send without CORS).
        return None
    try:
        scope = _scope_of(_serializer().loads(request.form.get("csrf", ""), max_age=MAX_AGE))
    except BadData:
        return _refuse(400)
    if scope != _scope():
        return _refuse(400)
    return None


def csrf_field_for(scope: str) -> Markup:
    """The hidden input of a form that posts to a route with no link token (sign out)."""
    return Markup('<input type="hidden" name="csrf" value="{}">').format(csrf_token(scope))


def init_app(app: Flask) -> None:
    """Check every POST and give templates `csrf_field()` and `csrf_field_for(scope)`."""
    app.before_request(check)
    app.jinja_env.globals["csrf_field"] = csrf_field
    app.jinja_env.globals["csrf_field_for"] = csrf_field_for
