"""Sign in by mail: ask for a link, open it, press the button; sign out.

The signed-in player is kept in Flask's signed session cookie for 90 days on that device.
Seat links work as before without signing in.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, g, redirect, render_template, request, session, url_for
from werkzeug.wrappers import Response

from pbem import account, signin
from pbem.db import read_session, write_session
from pbem.links import BadLink
from pbem.models import Player
from pbem.ratelimit import SIGN_IN_MAILS, SIGN_INS, exceeded, record
from pbem.web import bad_link, engine, now, site

bp = Blueprint("signin", __name__)


def current_player_id() -> int | None:
    """The signed-in player's id on this device, if any."""
    value = session.get("player")
    return value if isinstance(value, int) else None


@bp.get("/signin")
def ask_page() -> str:
    """The form that asks for an address."""
    return render_template("signin/ask.html", sent=False, email="")


@bp.post("/signin")
def ask() -> tuple[str, int]:
    """Mail a link if the address is a player's; the answer is the same either way."""
    address = request.remote_addr or "?"
    if exceeded(engine(), SIGN_INS, address, now()):
        abort(429)
    record(engine(), SIGN_INS, address, now())
    email = request.form.get("email", "").strip().lower()[:254]
    if "@" not in email:
        return render_template("signin/ask.html", sent=False, email=email, error=True), 400
    # At most a few mails an hour to one address, whoever asks: no mail-bombing through us.
    if not exceeded(engine(), SIGN_IN_MAILS, email, now()):
        with write_session(engine()) as db:
            known = account.ask_signin(db, site(), email, now())
        if known:
            record(engine(), SIGN_IN_MAILS, email, now())
    return render_template("signin/ask.html", sent=True, email=email), 200


def _link_page(token: str, status: int = 200, **extra: Any) -> tuple[str, int]:
    return render_template("signin/link.html", token=token, **extra), status


@bp.get("/signin/<token>")
def link_page(token: str) -> tuple[str, int]:
    """The opened link shows a button: a GET changes nothing (mail scanners open links)."""
    with read_session(engine()) as db:
        try:
            row = signin.check(db, site(), token, now())
        except BadLink:
            bad_link()
        except signin.Used:
            return _link_page(token, 410, problem="used")
        except signin.Expired:
            return _link_page(token, 410, problem="expired")
        player = db.get(Player, row.player_id)
        if player is not None and "lang" not in request.args:
            g.lang = player.lang
        name = player.name if player else ""
    return _link_page(token, name=name, problem=None)


@bp.post("/signin/<token>")
def use(token: str) -> Response | tuple[str, int]:
    """Sign in on this device for 90 days, and go where the link leads."""
    try:
        with write_session(engine()) as db:
            row = signin.use(db, site(), token, now())
            player_id, next_path = row.player_id, row.next_path
    except BadLink:
        bad_link()
    except signin.Used:
        return _link_page(token, 410, problem="used")
    except signin.Expired:
        return _link_page(token, 410, problem="expired")
    session.clear()
    session.permanent = True
    session["player"] = player_id
    if not next_path.startswith("/") or next_path.startswith("//"):
        next_path = "/me"
    return redirect(next_path, code=303)


@bp.post("/signout")
def sign_out() -> Response:
    """Forget the player on this device."""
    session.clear()
    return redirect(url_for("signin.ask_page", out=1), code=303)
