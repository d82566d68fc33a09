"""The "Standing orders" part of a Fantasy Business page: pass on every lot above N, price
each article at its base, for the rest of the game; set and cancelled at any time.

Plain forms: one to keep the orders (a move they decide at the step under way is played at
once, through the one move path), one to cancel them all. The page after either says so
("kept", "cancelled", issue 47); static/standing.js posts them in place and shows that answer.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, request, url_for
from werkzeug.wrappers import Response

from pbem.errors import PlayError
from pbem.games import GameError
from pbem.games.fantasy_business.standing import MOST
from pbem.models import Game, Seat
from pbem.plans import seat_orders
from pbem.plans.play_orders import keep_orders
from pbem.present.text import say
from pbem.storage.db import write_session
from pbem.web import engine, now, site
from pbem.web.seats import seat_from

bp = Blueprint("standing", __name__)
ERRORS = {"amount", "shape", "not_now"}
ANSWERS = {"kept", "cancelled"}  # what the page after a POST says (the `standing` argument)


def standing_context(game: Game, seat: Seat | None, lang: str) -> dict[str, Any] | None:
    """What the page's standing-orders part shows to `seat`, or None where it has none."""
    if seat is None or not seat_orders.may_order(game):
        return None
    shown: dict[str, Any] = seat_orders.standing_json(game, seat)
    error = request.args.get("standing_error", "")
    if error in ERRORS:
        shown["error"] = say(lang, "standing.error." + error, most=MOST)
    answer = request.args.get("standing", "")
    shown["answer"] = answer if answer in ANSWERS and not error else None
    return shown


def _back(token: str, error: str | None = None, answer: str | None = None) -> Response:
    target = url_for(
        "game.seat_page", token=token, standing_error=error, standing=answer, _anchor="standing"
    )
    return redirect(target, code=303)


@bp.post("/p/<token>/standing")
def keep(token: str) -> Response:
    """Keep the orders the form names in place of the seat's (none ticked: cancel them)."""
    game_id, seat_no = seat_from(token)
    orders: dict[str, Any] = {}
    if request.form.get("pass_on"):
        above = (request.form.get("pass_above") or "").strip()
        if not above.isdigit():
            return _back(token, "amount")
        orders["pass_above"] = int(above)
    if request.form.get("base_prices"):
        orders["base_prices"] = True
    moment = now()
    try:
        with write_session(engine()) as session:
            keep_orders(session, site(), game_id, seat_no, orders, moment)
    except GameError as exc:
        return _back(token, _reason(exc.msg.key))
    except PlayError as exc:
        return _back(token, _reason(exc.key))
    return _back(token, answer="kept" if orders else "cancelled")


@bp.post("/p/<token>/standing/cancel")
def cancel(token: str) -> Response:
    """Cancel every standing order of the seat."""
    game_id, seat_no = seat_from(token)
    with write_session(engine()) as session:
        seat_orders.cancel_orders(session, game_id, seat_no)
    return _back(token, answer="cancelled")


def _reason(key: str) -> str:
    """Only a catalogue key of the orders' own travels in the address."""
    reason = key.removeprefix("standing.error.")
    return reason if reason in ERRORS else "shape"
