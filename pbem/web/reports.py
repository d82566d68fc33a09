"""Reporting a player: the report buttons on a player's page and in table talk, and the
operator's page of one report (its signed link is in the operator's mail)."""

from __future__ import annotations

from flask import Blueprint, abort, render_template, request, url_for
from werkzeug.wrappers import Response

from pbem.errors import PlayError
from pbem.models import Player
from pbem.players import reports
from pbem.storage.db import read_session, write_session
from pbem.storage.store import find_seat
from pbem.web import engine, now, site
from pbem.web.seats import seat_from
from pbem.web.signin import signed_in_player

bp = Blueprint("reports", __name__)


def _answer(back: str, problem: PlayError | None) -> tuple[str, int]:
    """The page after a report: sent, or why not, with the way back."""
    status = problem.status if problem is not None else 200
    return render_template("reports/sent.html", back=back, problem=problem), status


def _reason() -> str:
    # Longer than the limit is refused with the reason, not cut.
    return request.form.get("reason", "")[: reports.REASON_MAX + 1]


@bp.post("/players/<int(max=2147483647):player_id>/report")
def report_player(player_id: int) -> Response | tuple[str, int]:
    """The signed-in player reports this one to the operator."""
    if not site().operator_email:
        abort(404)  # no button was shown: the route is not there either
    viewer = signed_in_player()
    back = url_for("players.player_page", player_id=player_id)
    try:
        with write_session(engine()) as session:
            if session.get(Player, player_id) is None:
                abort(404)
            reports.report(session, site(), viewer, player_id, _reason(), now())
    except PlayError as exc:
        return _answer(back, exc)
    return _answer(back, None)


@bp.post("/p/<token>/talk/<int(max=2147483647):talk_id>/report")
def report_talk(token: str, talk_id: int) -> tuple[str, int]:
    """A seat reports a message of the table talk it can read, and so its author."""
    if not site().operator_email:
        abort(404)
    game_id, seat_no = seat_from(token)
    back = url_for("game.seat_page", token=token, _anchor="talk")
    try:
        with write_session(engine()) as session:
            seat = find_seat(session, game_id, seat_no)
            if seat is None:
                abort(404)
            message, author = reports.reported_talk(session, game_id, seat_no, talk_id)
            reports.report(session, site(), seat.player_id, author, _reason(), now(), message)
    except PlayError as exc:
        return _answer(back, exc)
    return _answer(back, None)


@bp.get("/reports/<token>")
def report_page(token: str) -> tuple[str, int]:
    """The operator's page of one report: who, why and the message it names."""
    with read_session(engine()) as session:
        found = reports.by_link(session, site(), token)
        barred = found is not None and reports.is_barred(session, found.reported_id)
    if found is None:
        abort(404)
    return render_template("reports/report.html", report=found, barred=barred), 200
