"""/games/open: the open tables (filter by game and language), post one, join one with one
press, withdraw one's own; keep and remove standing seeks. Thin: the work is in
pbem.opentables, the queries in pbem.opentables.queries."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, g, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from pbem.errors import PlayError
from pbem.games import GAMES
from pbem.models import Game, Seat
from pbem.opentables.actions import (
    allow_post,
    join_table,
    post_table,
    remove_seek,
    save_seek,
    withdraw,
)
from pbem.opentables.forms import OpenTableForm, SeekForm
from pbem.opentables.queries import MAX_PAGE, open_tables, seeks_of
from pbem.players.computers import LEVELS
from pbem.present import playable
from pbem.present.forms import TimeControl, read_options
from pbem.present.i18n import languages
from pbem.present.options import option_lines, time_control
from pbem.storage.allowance import OPEN_JOINS, OverLimit, take
from pbem.storage.db import read_session, write_session
from pbem.storage.store import find_seat
from pbem.web import engine, now, site
from pbem.web.signin import current_player_id, signed_in_player

bp = Blueprint("opentables", __name__)
DONE = ("posted", "withdrawn", "seek", "seek_removed")  # what the page says it just did


def filters(args: Any) -> tuple[str | None, str | None, int]:
    """The list's filters from the query: game, language and page; PlayError if absurd."""
    slug, lang, page = args.get("game", ""), args.get("language", ""), args.get("page", "0")
    if slug and slug not in playable():
        raise PlayError("lobby.error.no_such_game")
    if lang and lang not in languages():
        raise PlayError("open.error.lang")
    if not (isinstance(page, str) and page.isdecimal() and int(page[:6]) <= MAX_PAGE):
        raise PlayError("open.error.page")
    return slug or None, lang or None, int(page)


def _option_words(slug: str, options: dict[str, Any]) -> list[str]:
    """The game's options in words, less the seat-choosing ones: at an open table who plays
    first is always drawn at random, which the page says once."""
    rules = GAMES[slug]
    lines = option_lines(slug, options, [], g.lang)
    return [
        line
        for opt, line in zip(rules.options, lines, strict=True)
        if not (opt.kind == "int" and opt.default is None)
    ]


def _page(error: PlayError | None = None, status: int = 200) -> tuple[str, int]:
    """The list, the viewer's seeks and the post form; `error` said above them."""
    viewer = current_player_id()
    try:
        slug, lang, page = filters(request.args)
    except PlayError as exc:
        slug, lang, page = None, None, 0
        error, status = error or exc, 400
    with read_session(engine()) as session:
        listed, more = open_tables(session, viewer, slug, lang, page)
        cards = [
            {
                "row": row,
                "options": _option_words(row.game.slug, row.game.options),
                "time": time_control(row.game, g.lang),
            }
            for row in listed
        ]
        seeks = seeks_of(session, viewer) if viewer is not None else []
    page_html = render_template(
        "opentables/index.html",
        cards=cards,
        more=more,
        page=page,
        chosen={"game": slug or "", "language": lang or ""},
        games=playable(),
        signed_in_player=viewer is not None,
        seeks=seeks,
        levels=LEVELS,
        error=error,
        form=request.form if request.method == "POST" else {},
        done=request.args.get("done") if request.args.get("done") in DONE else None,
    )
    return page_html, status


@bp.get("/games/open")
def index() -> tuple[str, int]:
    """The open tables, newest first, a page at a time."""
    return _page()


def _limited(exc: OverLimit) -> tuple[str, int]:
    """The 429 page: the player has used up one of their allowances."""
    back = url_for("opentables.index")
    return render_template("limited.html", problem=exc, back=back, back_to="open"), 429


def _to_list(done: str) -> Response:
    return redirect(url_for("opentables.index", done=done), code=303)


def _to_seat(game_id: int, seat_no: int) -> Response:
    """To the player's seat page (a seat link is a secret: only this answer names it)."""
    with read_session(engine()) as session:
        seat = find_seat(session, game_id, seat_no)
        assert seat is not None
        return redirect(urlsplit(site().seat_url(seat)).path, code=303)


def post_open(player_id: int, fields: Mapping[str, Any]) -> Game:
    """Post an open table from the form's fields (the page's form, or the API's body made
    into them): read as the page reads them (PlayError for a field refused), then counted
    against the poster's allowances and posted in one write (OverLimit past a limit)."""
    form = OpenTableForm.read(fields)
    timing = TimeControl.read(fields)
    options = read_options(playable()[form.game], form.game, fields)
    with write_session(engine()) as session:
        allow_post(session, player_id, now())
        return post_table(
            session,
            site(),
            player_id,
            form.game,
            form.seats,
            options,
            form.lang,
            form.rating_range,
            form.rated,
            now(),
            timing=timing,
            share=str(fields.get("share", "")),
        )


@bp.post("/games/open")
def post() -> Response | tuple[str, int]:
    """Post an open table; fitting seeks take its seats at once."""
    viewer = signed_in_player()
    try:
        post_open(viewer, request.form)
    except OverLimit as exc:
        return _limited(exc)
    except PlayError as exc:
        return _page(exc, exc.status)
    return _to_list("posted")


@bp.post("/games/open/<int(max=2147483647):game_id>/join")
def join(game_id: int) -> Response | tuple[str, int]:
    """Take a seat at the open table with one press, and go to it."""
    viewer = signed_in_player()
    try:  # counted in a transaction of its own: a refused try counts too (no free probing)
        with write_session(engine()) as session:
            take(session, OPEN_JOINS, viewer, now())
    except OverLimit as exc:
        return _limited(exc)
    try:
        with write_session(engine()) as session:
            seat: Seat = join_table(
                session, site(), game_id, viewer, now(), share=request.form.get("share", "")
            )
            seat_no = seat.seat
    except PlayError as exc:
        return _page(exc, 404 if exc.key == "error.no_game" else exc.status)
    return _to_seat(game_id, seat_no)


@bp.post("/games/open/<int(max=2147483647):game_id>/withdraw")
def withdraw_table(game_id: int) -> Response | tuple[str, int]:
    """The poster calls their open table off."""
    viewer = signed_in_player()
    try:
        with write_session(engine()) as session:
            withdraw(session, site(), game_id, viewer, now())
    except PlayError as exc:
        return _page(exc, 404 if exc.key == "error.no_game" else exc.status)
    return _to_list("withdrawn")


@bp.post("/games/open/seeks")
def seek() -> Response | tuple[str, int]:
    """Keep a standing seek; a fitting open table seats the player at once."""
    viewer = signed_in_player()
    try:
        form = SeekForm.read(request.form)
        with write_session(engine()) as session:
            allow_post(session, viewer, now(), table=False)
            seat = save_seek(
                session,
                site(),
                viewer,
                form.game,
                form.lang,
                form.rating_range,
                now(),
                share=request.form.get("share", ""),
            )
            where = (seat.game_id, seat.seat) if seat is not None else None
    except OverLimit as exc:
        return _limited(exc)
    except PlayError as exc:
        return _page(exc, exc.status)
    if where is not None:
        return _to_seat(*where)  # matched at once: to the seat it took
    return _to_list("seek")


@bp.post("/games/open/seeks/<int(max=2147483647):seek_id>/remove")
def unseek(seek_id: int) -> Response:
    """Remove one of the player's seeks."""
    viewer = signed_in_player()
    with write_session(engine()) as session:
        remove_seek(session, viewer, seek_id)
    return _to_list("seek_removed")
