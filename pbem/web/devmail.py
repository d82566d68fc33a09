"""The local mailbox: read the mail the file backend stored, and click its links.

Registered only with the file backend and PBEM_DEBUG=1 (what `make run` sets).
"""

from __future__ import annotations

import re
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

from flask import Blueprint, abort, current_app, render_template, request
from markupsafe import Markup, escape

from pbem.config import settings_of

bp = Blueprint("devmail", __name__, url_prefix="/mailbox")
_NAME = re.compile(r"^[0-9a-f]{16}\.eml$")
_SANDBOX = (
    "sandbox allow-top-navigation-by-user-activation allow-popups; script-src 'none';"
    " frame-ancestors 'none'"
)
_URL = re.compile(r"https?://[^\s<>\"]+")


def _folder() -> Path:
    return settings_of(current_app).mail_dir


def _read(path: Path) -> EmailMessage:
    with path.open("rb") as handle:
        return BytesParser(policy=policy.default).parse(handle)


def _preview(msg: EmailMessage) -> str:
    """The first line of the text part, which mail clients show under the subject."""
    part = msg.get_body(preferencelist=("plain",))
    text = part.get_content() if part is not None else ""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _summary(path: Path) -> dict[str, Any]:
    msg = _read(path)
    return {
        "name": path.name,
        "to": str(msg["To"]),
        "subject": str(msg["Subject"]),
        "preview": _preview(msg),
        "date": str(msg["Date"]),
        "mtime": path.stat().st_mtime,
    }


@bp.get("/")
def index() -> str:
    """Every stored mail, newest first; ?to= filters by recipient."""
    folder = _folder()
    paths = (
        sorted(folder.glob("*.eml"), key=lambda p: p.stat().st_mtime, reverse=True)
        if (folder.exists())
        else []
    )
    wanted = request.args.get("to", "").strip().lower()
    mails = [_summary(p) for p in paths]
    if wanted:
        mails = [m for m in mails if wanted in m["to"].lower()]
    return render_template("devmail/index.html", mails=mails, wanted=wanted)


def _path(name: str) -> Path:
    if not _NAME.match(name):
        abort(404)
    path = _folder() / name
    if not path.exists():
        abort(404)
    return path


def linkify(text: str) -> Markup:
    """Plain text with its web addresses made clickable."""
    out, last = [], 0
    for match in _URL.finditer(text):
        out.append(escape(text[last : match.start()]))
        url = match.group(0)
        out.append(Markup('<a href="{0}">{0}</a>').format(url))
        last = match.end()
    out.append(escape(text[last:]))
    return Markup("").join(out)


@bp.get("/<name>")
def show(name: str) -> str:
    """One mail: its headers and its text part with clickable links."""
    msg = _read(_path(name))
    body = msg.get_body(preferencelist=("plain",))
    text = body.get_content() if body is not None else ""
    headers = [(k, str(v)) for k, v in msg.items()]
    return render_template(
        "devmail/show.html",
        name=name,
        headers=headers,
        body=linkify(text),
        subject=str(msg["Subject"]),
    )


@bp.get("/<name>/html")
def show_html(name: str) -> tuple[str, int, dict[str, str]]:
    """The HTML part as sent, in a sandbox with no scripts."""
    msg = _read(_path(name))
    body = msg.get_body(preferencelist=("html",))
    html = body.get_content() if body is not None else ""
    return (
        html,
        200,
        {
            "Content-Security-Policy": _SANDBOX,
            "Content-Type": "text/html; charset=utf-8",
        },
    )
