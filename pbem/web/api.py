"""The JSON API: a seat's view, legal moves and turn token, moves in JSON, the onlooker's view.

The same signed links as the pages (/p/<token> is /api/v1/seat/<token>), the same
hidden-information rules (only rules.view for that viewer), the same rate limit on
wrong links, and the same move path (rules outside the write lock, then one
conditional write). Every answer is JSON, errors included; the OpenAPI document
at /api/v1/openapi.json describes them.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, g, jsonify, request
from werkzeug.wrappers import Response

from pbem import moves, takeback
from pbem.errors import PlayError, Stale
from pbem.games import GameError
from pbem.models import Game
from pbem.present.api import game_json
from pbem.present.i18n import languages
from pbem.present.text import error_text, say
from pbem.storage.db import read_session, write_session
from pbem.storage.store import log_of
from pbem.web import engine, now, site
from pbem.web.apimodels import read_answer, read_move
from pbem.web.openapi import document
from pbem.web.seats import LOG_PAGE, Table, open_seat, open_watch
from pbem.webhooks.events import hooks_of_game

bp = Blueprint("api", __name__, url_prefix="/api/v1")


def error(status: int, code: str, message: str) -> tuple[Response, int]:
    """A JSON error answer: a stable code and a readable message in the reader's language."""
    return jsonify({"error": code, "message": message}), status


def _lang(table: Table, viewer: int | None) -> str:
    chosen = request.args.get("lang")
    if chosen in languages():
        return str(chosen)
    if viewer is not None:
        return table[viewer][1].lang
    return str(g.get("lang", "en"))


def _view(session: Any, game: Game, table: Table, viewer: int | None) -> dict[str, Any]:
    lang = _lang(table, viewer)
    first = max(0, game.ply - LOG_PAGE)
    found = game_json(game, table, viewer, log_of(session, game, viewer, since=first), lang, first)
    if viewer is not None and game.slug in takeback.GAMES_WITH_TAKE_BACK:
        shown = takeback.for_page(session, game, viewer, [s.name for s, _, _ in table])
        found["take_back"] = {
            "may_ask": bool(shown.get("takeback_offer")),
            "asked_by": shown.get("takeback_question"),
            "waiting_for": shown.get("takeback_waiting"),
        }
    return found


@bp.get("/openapi.json")
def openapi() -> Response:
    """The OpenAPI 3.1 document of this API, generated from its models (pbem.web.apimodels)."""
    return jsonify(document())


@bp.get("/seat/<token>")
def seat(token: str) -> Response:
    """The seat's view: the game as this seat may see it, its legal moves and turn token."""
    with read_session(engine()) as session:
        game, table, seat_no = open_seat(session, token)
        return jsonify(_view(session, game, table, seat_no))


@bp.get("/watch/<token>")
def watch(token: str) -> Response:
    """The onlooker's view: no hand, no secret."""
    with read_session(engine()) as session:
        game, table = open_watch(session, token)
        return jsonify(_view(session, game, table, None))


@bp.post("/seat/<token>/move")
def move(token: str) -> tuple[Response, int] | Response:
    """Play a move for the turn it names; answered with the new view (409 when stale)."""
    moment = now()
    # One read: the link's seat, the game and the table; the move is planned from them.
    with read_session(engine()) as session:
        game, table, seat_no = open_seat(session, token, moment)
        lang = _lang(table, seat_no)
        if not request.is_json:
            return error(415, "unsupported_media_type", say(lang, "error.http.415"))
        # A body past the API's limit got 413 before this (pbem.web.bodies).
        read = read_move(request.get_data(cache=False))
        if read == "bad_json":
            return error(400, "bad_json", say(lang, "api.error.json"))
        if read == "bad_request":
            return error(400, "bad_request", say(lang, "api.error.body"))
        turn, the_move = read.turn, read.move
        names = [s.name for s, _, _ in table]
        table_read = moves.table_read(game, table, hooks_of_game(session, game.id))
    try:
        # A player's own move through their link, as on the page: source "web".
        moves.play(engine(), site(), table_read, seat_no, the_move, turn, moment)
    except GameError as exc:  # IllegalMove and its kin: the rules say why
        return error(400, "illegal", error_text(exc, lang, names))
    except moves.Unreadable:
        return error(400, "bad_move", say(lang, "api.error.move"))
    except PlayError as exc:
        return _refused(exc, lang)
    with read_session(engine()) as session:
        game, table, seat_no = open_seat(session, token)
        return jsonify(_view(session, game, table, seat_no))


@bp.post("/seat/<token>/takeback")
def take_back(token: str) -> tuple[Response, int] | Response:
    """Ask to take back the seat's last move; answered with the view (409: nothing to take
    back, or a request already waiting)."""
    with read_session(engine()) as session:
        game, table, seat_no = open_seat(session, token)
        lang, game_id = _lang(table, seat_no), game.id or 0
    try:
        with write_session(engine()) as session:
            takeback.ask(session, site(), game_id, seat_no, now())
    except PlayError as exc:
        return _refused(exc, lang)
    return _seat_view(token)


@bp.post("/seat/<token>/takeback/answer")
def take_back_answer(token: str) -> tuple[Response, int] | Response:
    """Allow or refuse the take back this seat is asked for; answered with the new view."""
    with read_session(engine()) as session:
        game, table, seat_no = open_seat(session, token)
        lang, game_id = _lang(table, seat_no), game.id or 0
    if not request.is_json:
        return error(415, "unsupported_media_type", say(lang, "error.http.415"))
    read = read_answer(request.get_data(cache=False))
    if read == "bad_json":
        return error(400, "bad_json", say(lang, "api.error.json"))
    if read == "bad_request":
        return error(400, "bad_request", say(lang, "api.error.body"))
    try:
        with write_session(engine()) as session:
            takeback.answer(session, site(), game_id, seat_no, read.answer == "allow", now())
    except PlayError as exc:
        return _refused(exc, lang)
    return _seat_view(token)


def _seat_view(token: str) -> Response:
    with read_session(engine()) as session:
        game, table, seat_no = open_seat(session, token)
        return jsonify(_view(session, game, table, seat_no))


def _refused(problem: PlayError, lang: str) -> tuple[Response, int]:
    """A move refused for its turn (409 stale) or the game's state, in JSON."""
    code = "stale" if isinstance(problem, Stale) else "not_active"
    if problem.key.startswith("takeback."):
        code = "take_back"  # nothing to take back or answer now, or a request waiting
    return error(problem.status, code, say(lang, problem.key, **problem.params))


def is_api() -> bool:
    """Whether this request is for the API (its errors are JSON)."""
    return request.path.startswith(bp.url_prefix or "/api/")
