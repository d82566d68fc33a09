"""The JSON API: a seat's view, legal moves and turn token, moves in JSON, the onlooker's view.

The same signed links as the pages (/p/<token> is /api/v1/seat/<token>), the same
hidden-information rules (only rules.view for that viewer), the same rate limit on
wrong links, and the same move path (rules outside the write lock, then one
conditional write). Every answer is JSON, errors included; the OpenAPI document
at /api/v1/openapi.json describes them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any, NoReturn

from flask import Blueprint, abort, g, jsonify, request
from sqlmodel import Session
from werkzeug.wrappers import Response

from pbem import moves
from pbem.bounces.state import states
from pbem.errors import PlayError, Stale
from pbem.games import GAMES, GameError
from pbem.leagues.table import league_by_key, league_json, league_view
from pbem.models import Game, Move, Note, Player, Seat
from pbem.moves import Plan
from pbem.opentables.queries import open_tables
from pbem.plans import seat_orders, seat_plans
from pbem.plans.play_orders import keep_orders
from pbem.players import account, notes, profile
from pbem.present.api import game_json, log_json
from pbem.present.forms import NOTE_MAX, NoteForm
from pbem.present.i18n import languages
from pbem.present.mailstate import seat_mail
from pbem.present.text import error_text, say
from pbem.ratings import computer_level
from pbem.storage.db import read_connection, read_session, write_session
from pbem.storage.rounds import viewed_state
from pbem.storage.rows import detached
from pbem.storage.store import LoggedMove, id_of, log_of
from pbem.takeback import consent
from pbem.web import bad_link, engine, now, site
from pbem.web.apiactmodels import (
    OpenSeat,
    OpenTableEntry,
    OpenTables,
    SettingsRequest,
)
from pbem.web.apimodels import (
    Body,
    MoveRequest,
    NotesRequest,
    PlanRequest,
    StandingRequest,
    TakeBackAnswer,
    read_body,
)
from pbem.web.fragments import kept
from pbem.web.openapi import document
from pbem.web.opentables import filters
from pbem.web.replay import export_data
from pbem.web.seats import LOG_PAGE, Table, open_seat, open_watch
from pbem.web.signin import current_player_id
from pbem.webhooks.events import hooks_of_game

bp = Blueprint("api", __name__, url_prefix="/api/v1")


def error(status: int, code: str, message: str) -> tuple[Response, int]:
    """A JSON error answer: a stable code and a readable message in the reader's language."""
    return jsonify({"error": code, "message": message}), status


def refuse(status: int, code: str, message: str) -> NoReturn:
    """End the request with a JSON error answer, as `error` makes it."""
    answer, _ = error(status, code, message)
    answer.status_code = status
    abort(answer)


def json_body(model: type[Body], lang: str, shape: str = "api.error.fields") -> Body:
    """The request's JSON body read as `model`; else the request ends in 415 (not JSON) or
    400 (no JSON that can be read, or not of the model's shape: the message `shape` says)."""
    if not request.is_json:
        refuse(415, "unsupported_media_type", say(lang, "error.http.415"))
    # A body past the API's limit got 413 before this (pbem.web.bodies).
    read = read_body(request.get_data(cache=False), model)
    if isinstance(read, str):
        refuse(400, read, say(lang, "api.error.json" if read == "bad_json" else shape))
    return read


def _lang(table: Table, viewer: int | None) -> str:
    chosen = request.args.get("lang")
    if chosen in languages():
        return str(chosen)
    if viewer is not None:
        return table[viewer][1].lang
    return str(g.get("lang", "en"))


@dataclass
class _Reads:
    """What the API's view of a game reads besides the game and its table."""

    mail: list[str]  # each seat's mail: ok, bouncing or off
    log: list[LoggedMove]  # the viewer's lines of the moves from the first one shown
    taken_back: list[dict[str, Any]]
    whole: dict[str, Any] | None = None  # the state with the rounds it released read back


def _reads(session: Any, game: Game, table: Table, viewer: int | None, since: int) -> _Reads:
    """The view's reads, on a session or a bare connection (no ORM then, but for a game
    with moves taken back)."""
    rows = states(session, [player.email for _, player, _ in table])
    mail = [seat_mail(seat, player, rows.get(player.email)) for seat, player, _ in table]
    log = log_of(session, game, viewer, since=since)
    # Every round is in the view: those the stored state released are read back.
    whole = viewed_state(session, game) if game.state is not None else None
    return _Reads(mail, log, consent.log_entries(session, game), whole)


def _view(session: Any, game: Game, table: Table, viewer: int | None) -> dict[str, Any]:
    """What the API shows `viewer` (None: an onlooker) of the game as it stands."""
    first = max(0, game.ply - LOG_PAGE)
    found = _shown(game, table, viewer, _reads(session, game, table, viewer, first), first)
    if viewer is not None and game.slug in consent.GAMES_WITH_TAKE_BACK:
        shown = consent.for_page(session, game, viewer, [s.name for s, _, _ in table])
        found["take_back"] = {
            "may_ask": bool(shown.get("takeback_offer")),
            "asked_by": shown.get("takeback_question"),
            "waiting_for": shown.get("takeback_waiting"),
        }
    return found


def _shown(
    game: Game, table: Table, viewer: int | None, reads: _Reads, first: int
) -> dict[str, Any]:
    lang = _lang(table, viewer)
    log = _log_json(game, table, reads.log, viewer, lang)
    found = game_json(game, table, viewer, log, lang, first, reads.mail, reads.whole)
    found["taken_back"] = reads.taken_back
    return found


def _log_json(
    game: Game, table: Table, moves: list[LoggedMove], viewer: int | None, lang: str
) -> list[dict[str, Any]]:
    """The log's entries: a move's lines never change once written, so each is put in words
    once per reader and language (pbem.web.fragments), as the page's are."""
    names = [seat.name for seat, _, _ in table]
    # A move taken back leaves its ply to the next move: the count keeps their lines apart.
    known = (game.id, str(game.created_at), game.takebacks, viewer, lang, tuple(names))
    return [
        kept(("api log", move.ply, *known), partial(_entry, move, viewer, lang, names))
        for move in moves
    ]


def _entry(move: LoggedMove, viewer: int | None, lang: str, names: list[str]) -> dict[str, Any]:
    return log_json([move], viewer, lang, names)[0]


def _released(game: Game) -> bool:
    """Whether the game's stored state released rounds the API's view shows (every round)."""
    return game.state is not None and bool(GAMES[game.slug].released(game.state, None))


def _moved_view(game: Game, table: Table, viewer: int, reads: _Reads, plan: Plan) -> dict[str, Any]:
    """_view after the viewer's own move, written as planned, from what was read before it
    (`reads`, its log from the ply before the first one the answer shows) and the game and
    seats as the move left them: the move changed no mail and took nothing back, its lines
    are the plan's, and its transaction lapsed any request to take back."""
    first, key = max(0, game.ply - LOG_PAGE), str(viewer)
    made = [
        LoggedMove(
            row["ply"],
            row["seat"],
            row["source"],
            row["created_at"],
            {key: row["lines"].get(key) or []},
        )
        for row in plan.moves
    ]
    log = [move for move in reads.log if move.ply >= first] + made
    # The state as the move left it holds every round the view shows (released() names
    # none): the move's answer needs no read; else _seat_view reads them back.
    found = _shown(game, table, viewer, _Reads(reads.mail, log, reads.taken_back), first)
    if game.slug in consent.GAMES_WITH_TAKE_BACK:
        last = plan.moves[-1]
        moved = detached(Move, tuple(last), tuple(last.values()))
        seats = [seat for seat, _, _ in table]
        offer = consent.offer_after_move(game, seats, viewer, moved)
        found["take_back"] = {"may_ask": offer, "asked_by": None, "waiting_for": None}
    return found


@bp.get("/openapi.json")
def openapi() -> Response:
    """The OpenAPI 3.1 document of this API, generated from its models (pbem.web.apimodels)."""
    return jsonify(document())


@bp.get("/players/<int(max=2147483647):player_id>")
def player(player_id: int) -> Response:
    """A player's name and ratings per game kind; 404 when there is none, or their page is
    private (the API has no signed-in viewer)."""
    with read_session(engine()) as session:
        found = session.get(Player, player_id)
        if found is None or not profile.visible_to(found, None):
            abort(404)  # answered as JSON, as any API path's 404
        ratings = profile.ratings_of(session, found)
        return jsonify(
            {
                "id": player_id,
                "name": found.name,
                "computer": computer_level(found.email),
                "ratings": [
                    {
                        "kind": r.kind,
                        "rating": r.shown.rating,
                        "deviation": r.shown.deviation,
                        "games": r.shown.games,
                        "provisional": r.shown.provisional,
                    }
                    for r in ratings
                ],
            }
        )


@bp.get("/open")
def open_list() -> tuple[Response, int] | Response:
    """The open tables, as /games/open lists them: names and ratings, never an address."""
    try:
        slug, language, number = filters(request.args)
    except PlayError as exc:
        return error(400, "bad_request", say(str(g.get("lang", "en")), exc.key, **exc.params))
    with read_session(engine()) as session:
        listed, more = open_tables(session, current_player_id(), slug, language, number)
    tables = [
        OpenTableEntry(
            game=id_of(row.game),
            slug=row.table.slug,  # type: ignore[arg-type]
            language=row.table.lang,  # type: ignore[arg-type]
            seats=row.table.seats,
            taken=row.taken,
            players=[OpenSeat(name=who.name, rating=who.rating.rating) for who in row.seated],
            rating_min=row.table.rating_min,
            rating_max=row.table.rating_max,
            rated=row.game.rated,
            options=row.game.options,
            days_per_move=row.game.days_per_move,
            clock=row.game.clock,  # type: ignore[arg-type]
            created_at=row.table.created_at,
        )
        for row in listed
    ]
    return jsonify(OpenTables(tables=tables, page=number, more=more).model_dump(mode="json"))


@bp.get("/seat/<token>")
def seat(token: str) -> Response:
    """The seat's view: the game as this seat may see it, its legal moves and turn token."""
    with read_session(engine()) as session:
        game, table, seat_no = open_seat(session, token)
        return jsonify(_view(session, game, table, seat_no))


@bp.get("/leagues/<token>")
def league(token: str) -> Response:
    """A league's standings and games, as its page shows them."""
    with read_session(engine()) as session:
        found = league_by_key(session, token)
        if found is None:
            bad_link()
        return jsonify(league_json(league_view(session, site(), found, None)))


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
    # One read: the link's seat, the game and the table; the move is planned from them, and
    # answered from them and from what its answer shows besides (reads).
    with read_connection(engine()) as connection:
        game, table, seat_no = open_seat(connection, token, moment)
        lang = _lang(table, seat_no)
        read = json_body(MoveRequest, lang, "api.error.body")
        turn, the_move = read.turn, read.move
        names = [s.name for s, _, _ in table]
        table_read = moves.table_read(game, table, hooks_of_game(connection, game.id))
        # A game with a move taken back is read again after (consent.offer_after_move).
        since = max(0, game.ply + 1 - LOG_PAGE)
        reads = None if game.takebacks else _reads(connection, game, table, seat_no, since)
    try:
        # A player's own move through their link, as on the page: source "web" in the log.
        plan = moves.play(engine(), site(), table_read, seat_no, the_move, turn, moment, via="api")
    except GameError as exc:  # IllegalMove and its kin: the rules say why
        return error(400, "illegal", error_text(exc, lang, names))
    except moves.Unreadable:
        return error(400, "bad_move", say(lang, "api.error.move"))
    except PlayError as exc:
        return _refused(exc, lang)
    if plan is None or reads is None or _released(game):
        # Planned again under the lock, or rounds to read back: the game as it is now.
        return _seat_view(token)
    # The game and seats as the move just left them: not read again.
    return jsonify(_moved_view(game, table, seat_no, reads, plan))


@bp.get("/seat/<token>/export")
def export(token: str) -> Response:
    """The game's log as data, as the seat's export page gives it (pbem.web.replay): what
    this seat was told of each move, its own notes; the moves and the seed once it is over."""
    with read_session(engine()) as session:
        game, table, seat_no = open_seat(session, token)
        return jsonify(export_data(session, game, seat_no, _lang(table, seat_no)))


@bp.get("/seat/<token>/notes")
def notes_read(token: str) -> Response:
    """The seat's private notes on the game."""
    with read_session(engine()) as session:
        game, _, seat_no = open_seat(session, token)
        return jsonify(_notes_json(notes.note_of(session, id_of(game), seat_no)))


@bp.put("/seat/<token>/notes")
def notes_write(token: str) -> tuple[Response, int] | Response:
    """Replace the seat's private notes (an empty text clears them)."""
    with read_session(engine()) as session:
        game, table, seat_no = open_seat(session, token)
        lang = _lang(table, seat_no)
    read = json_body(NotesRequest, lang, "api.error.notes")
    try:
        form = NoteForm.read({"text": read.text})
        with write_session(engine()) as session:
            return jsonify(_notes_json(notes.save(session, id_of(game), seat_no, form, now())))
    except PlayError as exc:
        return error(exc.status, "bad_request", say(lang, exc.key, **exc.params))


def _notes_json(note: Note | None) -> dict[str, Any]:
    return {
        "text": note.text if note is not None else "",
        "updated_at": note.updated_at.isoformat() if note is not None else None,
        "limit": NOTE_MAX,
    }


@bp.post("/seat/<token>/settings")
def settings(token: str) -> tuple[Response, int] | Response:
    """Change the player's settings (automatic vacation), through the settings page's
    save (pbem.players.account); answered with them as they stand."""
    with read_session(engine()) as session:
        _, table, seat_no = open_seat(session, token, now())
        lang = _lang(table, seat_no)
        player_id = id_of(table[seat_no][1])
    read = json_body(SettingsRequest, lang)
    try:
        with write_session(engine()) as session:
            player = session.get(Player, player_id)
            assert player is not None  # a seat's player is never deleted
            # The settings left out of the body keep their values.
            account.save_settings(
                session, player, player.lang, player.tz, player.notify, now(),
                auto_vacation=read.auto_vacation,
            )  # fmt: skip
            return jsonify({"auto_vacation": player.auto_vacation})
    except PlayError as exc:
        return error(exc.status, "bad_request", say(lang, exc.key, **exc.params))


@bp.post("/seat/<token>/takeback")
def take_back(token: str) -> tuple[Response, int] | Response:
    """Ask to take back the seat's last move; answered with the view (409: nothing to take
    back, or a request already waiting)."""
    with read_session(engine()) as session:
        game, table, seat_no = open_seat(session, token)
        lang, game_id = _lang(table, seat_no), game.id or 0
    try:
        with write_session(engine()) as session:
            consent.ask(session, site(), game_id, seat_no, now())
    except PlayError as exc:
        return _refused(exc, lang)
    return _seat_view(token)


@bp.post("/seat/<token>/takeback/answer")
def take_back_answer(token: str) -> tuple[Response, int] | Response:
    """Allow or refuse the take back this seat is asked for; answered with the new view."""
    with read_session(engine()) as session:
        game, table, seat_no = open_seat(session, token)
        lang, game_id = _lang(table, seat_no), game.id or 0
    read = json_body(TakeBackAnswer, lang)
    try:
        with write_session(engine()) as session:
            consent.answer(session, site(), game_id, seat_no, read.answer == "allow", now())
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


# The API's other module (pbem.web.apiplayer) answers as these routes do.
seat_lang, seat_view, refused = _lang, _seat_view, _refused


def is_api() -> bool:
    """Whether this request is for the API (its errors are JSON)."""
    return request.path.startswith(bp.url_prefix or "/api/")


@bp.get("/seat/<token>/plan")
def plan(token: str) -> Response:
    """The seat's own plan ahead, and the other's moves a plan may name now."""
    return _ahead(token, seat_plans.plan_json)


@bp.put("/seat/<token>/plan")
def put_plan(token: str) -> tuple[Response, int] | Response:
    """Keep a plan ahead in place of the seat's (checked as it is made; [] drops it)."""

    def keep(session: Session, game_id: int, seat: int, read: PlanRequest, at: datetime) -> None:
        tree = [branch.model_dump(by_alias=True) for branch in read.plan]
        seat_plans.set_plan(session, game_id, seat, tree, at)

    return _keep(token, PlanRequest, keep, plan)


@bp.delete("/seat/<token>/plan")
def delete_plan(token: str) -> Response:
    """Drop the seat's plan ahead: nothing is played ahead for it any more."""
    _drop(token, seat_plans.clear_plan)
    return plan(token)


@bp.get("/seat/<token>/standing")
def orders(token: str) -> Response:
    """The seat's own standing orders (Fantasy Business)."""
    return _ahead(token, seat_orders.standing_json)


@bp.put("/seat/<token>/standing")
def put_orders(token: str) -> tuple[Response, int] | Response:
    """Keep standing orders in place of the seat's; a move they decide now is played."""

    def keep(
        session: Session, game_id: int, seat: int, read: StandingRequest, at: datetime
    ) -> None:
        keep_orders(session, site(), game_id, seat, read.model_dump(), at)

    return _keep(token, StandingRequest, keep, orders)


@bp.delete("/seat/<token>/standing")
def delete_orders(token: str) -> Response:
    """Cancel the seat's standing orders: its input is waited for again."""
    _drop(token, seat_orders.cancel_orders)
    return orders(token)


def _ahead(token: str, shown: Callable[[Game, Seat], dict[str, Any]]) -> Response:
    """What the seat keeps ahead (its plan, its standing orders), as `shown` gives it."""
    with read_session(engine()) as session:
        game, table, seat_no = open_seat(session, token)
        return jsonify(shown(game, table[seat_no][0]))


def _keep(
    token: str, model: type[Body], keep: Callable[..., None], kept: Callable[[str], Response]
) -> tuple[Response, int] | Response:
    """The seat's body read as `model` and kept by `keep` (a plan ahead, standing orders),
    then the seat's answer as `kept` gives it; what the rules refuse is a 400 saying why."""
    moment = now()
    with read_session(engine()) as session:
        game, table, seat_no = open_seat(session, token, moment)
        lang = _lang(table, seat_no)
        names = [s.name for s, _, _ in table]
    read = json_body(model, lang)
    try:
        with write_session(engine()) as session:
            keep(session, game.id or 0, seat_no, read, moment)
    except GameError as exc:  # what the rules refuse: the catalogue says why
        return error(400, "illegal", error_text(exc, lang, names))
    except PlayError as exc:
        return _refused(exc, lang)
    return kept(token)


def _drop(token: str, drop: Callable[[Session, int, int], None]) -> None:
    """Drop what the seat keeps ahead (its plan, its standing orders) as `drop` does."""
    with read_session(engine()) as session:
        game, _, seat_no = open_seat(session, token)
    with write_session(engine()) as session:
        drop(session, game.id or 0, seat_no)
