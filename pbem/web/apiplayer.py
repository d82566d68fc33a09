"""The API's actions of a player, through the functions the pages call: a vacation and
leaving a game (by a seat's link), and, for the player signed in on this device (the
pages' session cookie), blocks, standing seeks, taking a seat at an open table and
joining a league.

The CSRF rules are the pages' (pbem.web.csrf): a write from another site is refused
(Origin, Sec-Fetch-Site), and the session's writes take PUT, DELETE or a JSON body,
which no cross-site form can send; the session cookie is SameSite=Lax besides.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import g, jsonify, request
from werkzeug.wrappers import Response

from pbem.errors import PlayError
from pbem.leagues import setup
from pbem.leagues.table import league_by_key, league_json, league_view
from pbem.models import Player
from pbem.opentables import allow_post, join_table, remove_seek, save_seek
from pbem.players import account, blocks
from pbem.players.opentables import seeks_of
from pbem.present.forms import VacationForm
from pbem.present.i18n import languages
from pbem.present.openforms import SeekForm
from pbem.present.text import say
from pbem.seat_choices import leave
from pbem.storage.allowance import LEAGUE_JOINS, OPEN_JOINS, Allowance, OverLimit, take
from pbem.storage.db import read_session, write_session
from pbem.storage.store import find_seat, id_of
from pbem.web import bad_link, engine, now, site
from pbem.web.api import bp, error, refused, seat_lang, seat_view
from pbem.web.apimodels import (
    Blocked,
    JoinRequest,
    Seated,
    SeekRequest,
    Seeks,
    StandingSeek,
    Vacation,
    VacationRequest,
    read_body,
)
from pbem.web.seats import open_seat
from pbem.web.signin import current_player_id

Answer = tuple[Response, int] | Response


def _lang() -> str:
    """The answer's language without a seat: ?lang=, else the page's choice."""
    chosen = request.args.get("lang")
    return str(chosen) if chosen in languages() else str(g.get("lang", "en"))


def _unreadable(read: str, lang: str) -> tuple[Response, int]:
    key = "api.error.json" if read == "bad_json" else "api.error.body"
    return error(400, read, say(lang, key))


def _seat_player(token: str) -> tuple[int, str]:
    """The id of the seat's player and the answer's language, for a link checked now."""
    with read_session(engine()) as session:
        _, table, seat_no = open_seat(session, token, now())
        return id_of(table[seat_no][1]), seat_lang(table, seat_no)


def _vacation_json(session: Any, player: Player) -> Response:
    moment = now()
    away = account.current_vacation(session, player, moment)
    left = player.vacation_days - account.days_used(session, player, moment.year)
    shown = Vacation(
        away=away is not None,
        starts_at=away.starts_at if away else None,
        ends_at=away.ends_at if away else None,
        days_left=max(left, 0),
    )
    return jsonify(shown.model_dump(mode="json"))


@bp.post("/seat/<token>/vacation")
def vacation(token: str) -> Answer:
    """Start a vacation, as the settings page does (the same allowance and checks)."""
    player_id, lang = _seat_player(token)
    if not request.is_json:
        return error(415, "unsupported_media_type", say(lang, "error.http.415"))
    read = read_body(request.get_data(cache=False), VacationRequest)
    if isinstance(read, str):
        return _unreadable(read, lang)
    try:
        days = VacationForm.read({"days": read.days}).days
        with write_session(engine()) as session:
            player = session.get(Player, player_id)
            assert player is not None  # a seat's player is never deleted
            account.start_vacation(session, site(), player, days, now())
            return _vacation_json(session, player)
    except PlayError as exc:
        code = "bad_request" if exc.key == "settings.error.days" else "vacation"
        return error(exc.status, code, say(lang, exc.key, **exc.params))


@bp.post("/seat/<token>/vacation/end")
def vacation_end(token: str) -> Answer:
    """End the vacation under way, as the settings page does."""
    player_id, lang = _seat_player(token)
    try:
        with write_session(engine()) as session:
            player = session.get(Player, player_id)
            assert player is not None
            account.end_vacation(session, player, now())
            return _vacation_json(session, player)
    except PlayError as exc:
        return error(exc.status, "vacation", say(lang, exc.key, **exc.params))


@bp.post("/seat/<token>/leave")
def leave_game(token: str) -> Answer:
    """Leave the game, as the page's Leave does: a computer plays the seat from now on, and
    the result stays the player's. Answered with the seat's view."""
    with read_session(engine()) as session:
        game, table, seat_no = open_seat(session, token)
        lang, game_id = seat_lang(table, seat_no), game.id or 0
    try:
        with write_session(engine()) as session:
            leave(session, site(), game_id, seat_no, now())
    except PlayError as exc:
        return refused(exc, lang)
    return seat_view(token)


def _signed_out(lang: str) -> tuple[Response, int]:
    return error(401, "signed_out", say(lang, "api.error.signed_out"))


def _used_up(allowance: Allowance, player_id: int, lang: str) -> tuple[Response, int] | None:
    """Count a try against the pages' allowance, in a transaction of its own (a refused try
    counts too, as on the page); 429 once it is used up."""
    try:
        with write_session(engine()) as session:
            take(session, allowance, player_id, now())
    except OverLimit as exc:
        return error(429, "rate_limited", say(lang, exc.key, **exc.params))
    return None


def _block(player_id: int, blocking: bool) -> Answer:
    lang = _lang()
    viewer = current_player_id()
    if viewer is None:
        return _signed_out(lang)
    try:
        with write_session(engine()) as session:
            if session.get(Player, player_id) is None:
                return error(404, "not_found", say(lang, "error.http.404"))
            if blocking:
                blocks.block(session, viewer, player_id, now())
            else:
                blocks.unblock(session, viewer, player_id)
    except PlayError as exc:
        return error(exc.status, "bad_request", say(lang, exc.key, **exc.params))
    return jsonify(Blocked(player=player_id, blocked=blocking).model_dump(mode="json"))


@bp.put("/players/<int(max=2147483647):player_id>/block")
def block(player_id: int) -> Answer:
    """The signed-in player blocks this one, as the Block button on their page does."""
    return _block(player_id, True)


@bp.delete("/players/<int(max=2147483647):player_id>/block")
def unblock(player_id: int) -> Answer:
    """The signed-in player lifts their block of this one."""
    return _block(player_id, False)


def _session_body(lang: str) -> JoinRequest | tuple[Response, int]:
    """A session write's JSON body (a cross-site form can send none); why not, as an answer."""
    if not request.is_json:
        return error(415, "unsupported_media_type", say(lang, "error.http.415"))
    read = read_body(request.get_data(cache=False), JoinRequest)
    return _unreadable(read, lang) if isinstance(read, str) else read


@bp.post("/open/<int(max=2147483647):game_id>/join")
def join_open(game_id: int) -> Answer:
    """Take a seat at an open table, as its Join button does; answered with the seat's
    link (a secret: only this answer names it)."""
    lang = _lang()
    viewer = current_player_id()
    if viewer is None:
        return _signed_out(lang)
    read = _session_body(lang)
    if not isinstance(read, JoinRequest):
        return read
    limited = _used_up(OPEN_JOINS, viewer, lang)
    if limited is not None:
        return limited
    try:
        with write_session(engine()) as session:
            seat_no = join_table(session, site(), game_id, viewer, now(), share=read.share).seat
    except PlayError as exc:
        status = 404 if exc.key == "error.no_game" else exc.status
        return error(status, "not_found" if status == 404 else "refused", say(lang, exc.key))
    with read_session(engine()) as session:
        seat = find_seat(session, game_id, seat_no)
        assert seat is not None
        token = urlsplit(site().seat_url(seat)).path.rsplit("/", 1)[1]
    return jsonify(Seated(game=game_id, seat=seat_no, token=token).model_dump(mode="json"))


@bp.post("/leagues/<token>/join")
def join_league(token: str) -> Answer:
    """Join a league with its key, as its page's Join does (an open league, or one the
    player is invited to); answered with the league as it stands."""
    lang = _lang()
    # The key first, as on the page: a wrong one counts against the address's wrong links.
    with read_session(engine()) as session:
        found = league_by_key(session, token)
        if found is None:
            bad_link()
        league_id = found.id or 0
    viewer = current_player_id()
    if viewer is None:
        return _signed_out(lang)
    read = _session_body(lang)
    if not isinstance(read, JoinRequest):
        return read
    limited = _used_up(LEAGUE_JOINS, viewer, lang)
    if limited is not None:
        return limited
    try:
        with write_session(engine()) as session:
            setup.join(session, site(), league_id, viewer, now())
    except PlayError as exc:
        return error(exc.status, "refused", say(lang, exc.key, **exc.params))
    with read_session(engine()) as session:
        found = league_by_key(session, token)
        assert found is not None
        return jsonify(league_json(league_view(session, site(), found, None)))


def _seeks_json(session: Any, player_id: int, seated: Seated | None) -> Response:
    shown = [
        StandingSeek(
            id=s.id or 0,
            game=s.slug,  # type: ignore[arg-type]
            lang=s.lang,  # type: ignore[arg-type]
            rating_min=s.rating_min,
            rating_max=s.rating_max,
        )
        for s in seeks_of(session, player_id)
    ]
    return jsonify(Seeks(seeks=shown, seated=seated).model_dump(mode="json"))


@bp.get("/open/seeks")
def seeks() -> Answer:
    """The signed-in player's standing seeks."""
    viewer = current_player_id()
    if viewer is None:
        return _signed_out(_lang())
    with read_session(engine()) as session:
        return _seeks_json(session, viewer, None)


@bp.post("/open/seeks")
def seek() -> Answer:
    """Keep a standing seek, as the open tables page does (the same form, limits and
    matching): a fitting open table seats the player at once, and the answer names it."""
    lang = _lang()
    viewer = current_player_id()
    if viewer is None:
        return _signed_out(lang)
    if not request.is_json:
        return error(415, "unsupported_media_type", say(lang, "error.http.415"))
    read = read_body(request.get_data(cache=False), SeekRequest)
    if isinstance(read, str):
        return _unreadable(read, lang)
    try:
        form = SeekForm.read(read.model_dump())
        with write_session(engine()) as session:
            allow_post(session, viewer, now(), table=False)  # the page's count, in the write
            seat = save_seek(
                session, site(), viewer, form.game, form.lang, form.rating_range, now()
            )
            seated = None
            if seat is not None:
                token = urlsplit(site().seat_url(seat)).path.rsplit("/", 1)[1]
                seated = Seated(game=seat.game_id, seat=seat.seat, token=token)
            return _seeks_json(session, viewer, seated)
    except OverLimit as exc:
        return error(429, "rate_limited", say(lang, exc.key, **exc.params))
    except PlayError as exc:
        return error(exc.status, "refused", say(lang, exc.key, **exc.params))


@bp.delete("/open/seeks/<int(max=2147483647):seek_id>")
def unseek(seek_id: int) -> Answer:
    """Remove one of the signed-in player's seeks (another's, or one used: nothing)."""
    viewer = current_player_id()
    if viewer is None:
        return _signed_out(_lang())
    with write_session(engine()) as session:
        remove_seek(session, viewer, seek_id)
        return _seeks_json(session, viewer, None)
