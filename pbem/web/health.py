"""/healthz, /readyz and /metrics: for the reverse proxy, the operator and Prometheus.

/healthz says the process answers, touching nothing. /readyz runs the readiness checks
(pbem.watch.health): 503 when one fails. /metrics (pbem.watch.scrape) answers only a GET
carrying "Authorization: Bearer <PBEM_METRICS_TOKEN>"; without the setting, or without the
token, it is an unknown page like any other (404), whatever the method: it has no route,
and is answered before routing only when the token is right.
"""

from __future__ import annotations

import hmac
from typing import Any

from flask import Blueprint, current_app, jsonify, request
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4
from werkzeug.wrappers import Response

from pbem.config import settings_of
from pbem.watch import beats, scrape
from pbem.watch.health import readiness

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz() -> Any:
    """The process answers (nothing else is asked)."""
    return jsonify(status="ok")


@bp.get("/readyz")
def readyz() -> Any:
    """Each readiness check, ok or not and why; 503 when any fails."""
    app = current_app
    checks = readiness(app.extensions["pbem"]["engine"], settings_of(app), app.config["CLOCK"]())
    ready = all(check.ok for check in checks)
    body = {
        "status": "ready" if ready else "not ready",
        "checks": {check.name: {"ok": check.ok, "reason": check.reason} for check in checks},
    }
    return jsonify(body), 200 if ready else 503


@bp.before_app_request
def metrics() -> Response | None:
    """The Prometheus text for a GET with the right bearer token; else nothing here, and
    routing finds no page (404)."""
    if request.path != "/metrics" or request.method not in ("GET", "HEAD"):
        return None
    app = current_app
    token = settings_of(app).metrics_token.get_secret_value()
    given = request.headers.get("Authorization", "")
    # Compared in constant time: the time taken says nothing of how much of it was right.
    if not token or not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        return None
    ext = app.extensions["pbem"]
    text = scrape.answer(ext["engine"], ext["settings"], beats.of_app(app), app.config["CLOCK"]())
    return Response(text, mimetype=None, content_type=CONTENT_TYPE_PLAIN_0_0_4)
