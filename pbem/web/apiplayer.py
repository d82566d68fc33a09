"""The API's actions of a player, through the functions the pages call: a vacation and
leaving a game (by a seat's link), and, for the player signed in on this device (the
pages' session cookie), blocks, open tables (post, withdraw, take a seat) and standing
seeks; pbem.web.apileagues adds the leagues'.

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
from pbem.models import Player, Seat
from pbem.opentables.actions import allow_post, join_table, remove_seek, save_seek, withdraw
from pbem.opentables.forms import SeekForm
from pbem.opentables.queries import seeks_of
from pbem.players import account, blocks
from pbem.present.forms import VacationForm
from pbem.present.i18n import languages
from pbem.present.text import say
from pbem.seats.leave import leave
from pbem.storage.allowance import OPEN_JOINS, Allowance, OverLimit, take
from pbem.storage.db import read_session, write_session
from pbem.storage.store import find_seat, id_of
from pbem.web import engine, now, site
from pbem.web.api import bp, error, json_body, refuse, refused, seat_lang, seat_view
from pbem.web.apiactmodels import (
    Blocked,
    JoinRequest,
    OpenTableRequest,
    Seated,
    SeekRequest,
    Seeks,
    StandingSeek,
    Vacation,
    VacationRequest,
    Withdrawn,
)
from pbem.web.opentables import post_open
from pbem.web.seats import open_seat
from pbem.web.signin import current_player_id

Answer = tuple[Response, int] | Response


def player_lang() -> str:
    """The answer's language without a seat: ?lang=, else the page's choice."""
    chosen = request.args.get("lang")
    return str(chosen) if chosen in languages() else str(g.get("lang", "en"))


def signed_in(lang: str) -> int:
    """The player signed in on this device; without one the request ends in 401."""
    viewer = current_player_id()
    if viewer is None:
        refuse(401, "signed_out", say(lang, "api.error.signed_out"))
    return viewer


def count_try(allowance: Allowance, player_id: int, lang: str) -> None:
    """Count a try against the pages' allowance, in a transaction of its own (a refused try
    counts too, as on the page); once it is used up the request ends in 429."""
    try:
        with write_session(engine()) as session:
            take(session, allowance, player_id, now())
    except OverLimit as exc:
        refuse(429, "rate_limited", say(lang, exc.key, **exc.params))


def refusal(exc: PlayError, lang: str) -> tuple[Response, int]:
    """A signed-in player's act refused, as its page says why: 404 for what answers as no
    table or league at all, 429 past an allowance, else the refusal's own status."""
    status = 404 if exc.key == "error.no_game" else exc.status
    code = {404: "not_found", 429: "rate_limited"}.get(status, "refused")
    return error(status, code, say(lang, exc.key, **exc.params))


def seated(seat: Seat) -> Seated:
    """A seat taken, with its link's token (a secret: only the answer to its player names it)."""
    token = urlsplit(site().seat_url(seat)).path.rsplit("/", 1)[1]
    return Seated(game=seat.game_id, seat=seat.seat, token=token)


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
    read = json_body(VacationRequest, lang)
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


def _block(player_id: int, blocking: bool) -> Answer:
    lang = player_lang()
    viewer = signed_in(lang)
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


@bp.post("/open")
def post_open_table() -> Answer:
    """Post an open table, as the open tables page's form does (the same fields, checks
    and limits); answered with the poster's seat and its link."""
    lang = player_lang()
    viewer = signed_in(lang)
    read = json_body(OpenTableRequest, lang)
    fields: dict[str, Any] = read.model_dump(exclude={"options"})
    # The form's names for the game's options (pbem.present.forms.read_options).
    fields.update({f"opt_{read.game}_{name}": value for name, value in read.options.items()})
    try:
        game = post_open(viewer, fields)
    except PlayError as exc:
        return refusal(exc, lang)
    with read_session(engine()) as session:
        seat = find_seat(session, id_of(game), game.creator_seat)
        assert seat is not None
        return jsonify(seated(seat).model_dump(mode="json"))


@bp.delete("/open/<int(max=2147483647):game_id>")
def withdraw_table(game_id: int) -> Answer:
    """Call off one's own open table, as its Withdraw button does (another's: 404, as for
    no table at all)."""
    lang = player_lang()
    viewer = signed_in(lang)
    try:
        with write_session(engine()) as session:
            withdraw(session, site(), game_id, viewer, now())
    except PlayError as exc:
        return refusal(exc, lang)
    return jsonify(Withdrawn(game=game_id, withdrawn=True).model_dump(mode="json"))


@bp.post("/open/<int(max=2147483647):game_id>/join")
def join_open(game_id: int) -> Answer:
    """Take a seat at an open table, as its Join button does; answered with the seat's
    link (a secret: only this answer names it)."""
    lang = player_lang()
    viewer = signed_in(lang)
    read = json_body(JoinRequest, lang)
    count_try(OPEN_JOINS, viewer, lang)
    try:
        with write_session(engine()) as session:
            seat = join_table(session, site(), game_id, viewer, now(), share=read.share)
            return jsonify(seated(seat).model_dump(mode="json"))
    except PlayError as exc:
        return refusal(exc, lang)


def _seeks_json(session: Any, player_id: int, taken: Seated | None) -> Response:
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
    return jsonify(Seeks(seeks=shown, seated=taken).model_dump(mode="json"))


@bp.get("/open/seeks")
def seeks() -> Answer:
    """The signed-in player's standing seeks."""
    viewer = signed_in(player_lang())
    with read_session(engine()) as session:
        return _seeks_json(session, viewer, None)


@bp.post("/open/seeks")
def seek() -> Answer:
    """Keep a standing seek, as the open tables page does (the same form, limits and
    matching): a fitting open table seats the player at once, and the answer names it."""
    lang = player_lang()
    viewer = signed_in(lang)
    read = json_body(SeekRequest, lang)
    try:
        form = SeekForm.read(read.model_dump(exclude={"share"}))
        with write_session(engine()) as session:
            allow_post(session, viewer, now(), table=False)  # the page's count, in the write
            seat = save_seek(
                session, site(), viewer, form.game, form.lang, form.rating_range, now(),
                share=read.share,
            )  # fmt: skip
            return _seeks_json(session, viewer, seated(seat) if seat is not None else None)
    except PlayError as exc:
        return refusal(exc, lang)


@bp.delete("/open/seeks/<int(max=2147483647):seek_id>")
def unseek(seek_id: int) -> Answer:
    """Remove one of the signed-in player's seeks (another's, or one used: nothing)."""
    viewer = signed_in(player_lang())
    with write_session(engine()) as session:
        remove_seek(session, viewer, seek_id)
        return _seeks_json(session, viewer, None)
