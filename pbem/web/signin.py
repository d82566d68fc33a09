"""Sign in by mail: ask for a link, open it, press the button; sign out.

The signed-in player is kept in Flask's signed session cookie for 90 days on that device,
with their session generation: the cookie signs in only while that is still the player's
(pbem.players.signin), so signing out ends the session even for a copy of the cookie. Seat links
work as before without signing in.
"""

from __future__ import annotations

from typing import Any, TypeGuard

from flask import Blueprint, abort, g, redirect, render_template, request, session, url_for
from werkzeug.wrappers import Response

from pbem.mailout.notify import queue_signin
from pbem.models import Player
from pbem.players import signin
from pbem.site import BadLink
from pbem.storage.db import read_session, write_session
from pbem.storage.ratelimit import SIGN_IN_MAILS, SIGN_INS, record, refusal
from pbem.web import bad_link, client_address, engine, now, site

bp = Blueprint("signin", __name__)


# The cookie's keys: the player's id and the session generation it was opened in.
PLAYER, GENERATION = "player", "generation"


def current_player_id() -> int | None:
    """The signed-in player's id on this device, if any: checked once a request."""
    if "player_id" not in g:
        g.player_id = _checked_session()
    checked: int | None = g.player_id
    return checked


def signed_in_player() -> int:
    """The signed-in player's id; a visitor who is not is sent to sign in (the view stops)."""
    player_id = current_player_id()
    if player_id is None:
        abort(redirect(url_for("signin.ask_page"), code=303))
    return player_id


def recheck_session() -> None:
    """Check this device's session again, after sessions were ended in this request: a
    cookie that no longer signs in is emptied, so the answer deletes it."""
    g.pop("player_id", None)
    current_player_id()


def _checked_session() -> int | None:
    """The cookie's player, while their session generation is still the cookie's. Any
    other cookie is emptied, so the answer deletes it rather than issue it again for 90
    days (a cookie from before generations holds none: signed out, like a stale one)."""
    player_id, held = session.get(PLAYER), session.get(GENERATION)
    if player_id is None and held is None:
        return None
    if _an_int(player_id) and _an_int(held):
        with read_session(engine()) as db:
            if signin.session_holds(db, player_id, held):
                return player_id
    session.clear()
    return None


def _an_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def open_session(player_id: int, generation: int) -> None:
    """Sign the player in on this device for 90 days, in their session generation now."""
    session.clear()
    session.permanent = True
    session[PLAYER], session[GENERATION] = player_id, generation
    g.player_id = player_id


@bp.get("/signin")
def ask_page() -> str:
    """The form that asks for an address."""
    return render_template("signin/ask.html", sent=False, email="")


@bp.post("/signin")
def ask() -> tuple[str, int]:
    """Record the ask; the sender mails a link if the address is a player's. The answer,
    and the work done for it, are the same either way."""
    address = client_address()
    if (limited := refusal(engine(), SIGN_INS, address, now())) is not None:
        page = render_template("signin/ask.html", sent=False, email="", limited=limited)
        return page, limited.status
    record(engine(), SIGN_INS, address, now())
    email = request.form.get("email", "").strip().lower()[:254]
    if "@" not in email:
        return render_template("signin/ask.html", sent=False, email=email, error=True), 400
    # At most a few mails an hour to one address, whoever asks: no mail-bombing through us.
    # Every ask counts and is recorded the same way, the address a player's or not: the
    # work done here, and so its time, tells nobody who plays here.
    if record(engine(), SIGN_IN_MAILS, email, now()) <= SIGN_IN_MAILS.count:
        with write_session(engine()) as db:
            queue_signin(db, site(), email, now())
    return render_template("signin/ask.html", sent=True, email=email), 200


def _link_page(token: str, status: int = 200, **extra: Any) -> tuple[str, int]:
    return render_template("signin/link.html", token=token, **extra), status


def _refused(token: str, exc: Exception) -> tuple[str, int]:
    """A link that cannot sign in: 404 for a wrong one, the link's page saying why (410)
    for one used already or expired."""
    if isinstance(exc, BadLink):
        bad_link()
    return _link_page(token, 410, problem="used" if isinstance(exc, signin.Used) else "expired")


@bp.get("/signin/<token>")
def link_page(token: str) -> tuple[str, int]:
    """The opened link shows a button: a GET changes nothing (mail scanners open links)."""
    with read_session(engine()) as db:
        try:
            row = signin.check(db, site(), token, now())
        except (BadLink, signin.Used, signin.Expired) as exc:
            return _refused(token, exc)
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
            generation = signin.generation(db, player_id)
    except (BadLink, signin.Used, signin.Expired) as exc:
        return _refused(token, exc)
    if generation is None:
        bad_link()  # the player is gone
    open_session(player_id, generation)
    if not next_path.startswith("/") or next_path.startswith("//"):
        next_path = "/me"
    return redirect(next_path, code=303)


@bp.post("/signout")
def sign_out() -> Response:
    """End the player's session: a copy of this device's cookie opens nothing after it.

    The generation is the player's, so their other devices are signed out too."""
    player_id = current_player_id()
    if player_id is not None:
        with write_session(engine()) as db:
            signin.end_sessions(db, player_id)
    session.clear()
    g.player_id = None
    return redirect(url_for("signin.ask_page", out=1), code=303)
