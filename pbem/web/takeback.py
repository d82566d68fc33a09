"""The take-back buttons of the seat page: the mover asks, the next player allows or refuses
(the logic: pbem/takeback/consent.py)."""

from __future__ import annotations

from flask import Blueprint, redirect, request, url_for
from werkzeug.wrappers import Response

from pbem.errors import PlayError
from pbem.storage.db import write_session
from pbem.takeback import consent
from pbem.web import engine, now, site
from pbem.web import game as game_views
from pbem.web.seats import seat_from

bp = Blueprint("takeback", __name__)


@bp.post("/p/<token>/takeback")
def ask(token: str) -> Response | tuple[str, int]:
    """The mover asks to take back their last move."""
    game_id, seat_no = seat_from(token)
    try:
        with write_session(engine()) as session:
            consent.ask(session, site(), game_id, seat_no, now())
    except PlayError as exc:
        return game_views.error_page(token, game_id, seat_no, exc)
    return redirect(url_for("game.seat_page", token=token, _anchor="takeback"), code=303)


@bp.post("/p/<token>/takeback/answer")
def answer(token: str) -> Response | tuple[str, int]:
    """The next player allows or refuses the take back."""
    game_id, seat_no = seat_from(token)
    allow = request.form.get("answer") == "allow"
    try:
        with write_session(engine()) as session:
            consent.answer(session, site(), game_id, seat_no, allow, now())
    except PlayError as exc:
        return game_views.error_page(token, game_id, seat_no, exc)
    return redirect(url_for("game.seat_page", token=token), code=303)
