"""The verify page: paste or upload a game's exported log; the deal and the game are checked."""

from __future__ import annotations

from typing import Any

import orjson
from flask import Blueprint, g, render_template, request

from pbem.games import fairdeal
from pbem.present.text import say

bp = Blueprint("verify", __name__)


@bp.get("/verify")
def verify_page() -> str:
    """The form: an export to paste or upload."""
    return render_template("verify.html", checks=None, pasted="")


@bp.post("/verify")
def verify_post() -> tuple[str, int]:
    """Check the export sent (bounded like any form: pbem.web.bodies); 400 when it fails."""
    upload = request.files.get("file")
    raw = upload.read() if upload is not None and upload.filename else b""
    raw = raw or request.form.get("export", "").encode()
    try:
        export: Any = orjson.loads(raw)
    except orjson.JSONDecodeError:
        export = None
    checks = fairdeal.check(export) if isinstance(export, dict) else fairdeal.check({})
    lines = [{"ok": c.ok, "text": say(g.lang, c.say.key, **c.say.params)} for c in checks]
    passed = all(c.ok for c in checks)
    pasted = raw.decode("utf-8", "replace") if not upload or not upload.filename else ""
    page = render_template("verify.html", checks=lines, passed=passed, pasted=pasted)
    return page, 200 if passed else 400
