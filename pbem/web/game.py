"""The seat page (join, play, results), the move form with its confirmation, the spectator page."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    abort,
    after_this_request,
    g,
    redirect,
    render_template,
    request,
    url_for,
)
from sqlalchemy.exc import IntegrityError
from sqlmodel import select
from werkzeug.wrappers import Response

from pbem import account, home, play, talk
from pbem.computer import level_for
from pbem.db import read_session, write_session
from pbem.forms import TALK_MAX, ExtendForm, TalkForm
from pbem.games import GAMES, IllegalMove
from pbem.i18n import languages
from pbem.links import BadLink, read_token
from pbem.mailin.context import page_moves
from pbem.models import Game, Player, Seat
from pbem.present import presenter
from pbem.present.common import FormError, game_title, log_lines, result_names
from pbem.present.text import error_text, render, say
from pbem.store import Gone, PlayError, Stale, find_seat, moves_of, seat_of, seats_of
from pbem.timefmt import format_left, format_when
from pbem.web import bad_link, engine, now, signed_pair, site

bp = Blueprint("game", __name__)


def _seat_from(token: str) -> tuple[int, int]:
    """(game id, seat number) of a valid seat link; 404 for anything else."""
    try:
        payload = read_token(site().secret, "seat", token)
    except BadLink:
        bad_link()
    if len(payload) != 3 or not all(isinstance(x, int) for x in payload[:2]):
        bad_link()
    game_id, seat_no, key = payload
    with read_session(engine()) as session:
        seat = find_seat(session, game_id, seat_no)
        valid = (
            seat is not None and isinstance(key, str) and secrets.compare_digest(seat.link_key, key)
        )
    if not valid:
        bad_link()
    return game_id, seat_no


def _page(
    token: str, game_id: int, seat_no: int | None, status: int = 200, **extra: Any
) -> tuple[str, int]:
    """Render the page for a seat (or a spectator when seat_no is None)."""
    with read_session(engine()) as session:
        game = session.get(Game, game_id)
        if game is None:
            abort(404)
        seats = seats_of(session, game)
        names = [s.name for s in seats]
        seat = seats[seat_no] if seat_no is not None else None
        tz = "UTC"
        if seat is not None:
            player = session.get(Player, seat.player_id)
            if player is not None:
                tz = player.tz
                if "lang" not in request.args:
                    g.lang = player.lang
                elif g.lang != player.lang:
                    remember_language(player.id, g.lang)  # once this read is over
        lang = g.lang
        context: dict[str, Any] = {
            "token": token,
            "game": game,
            "seats": seats,
            "seat": seat,
            "names": names,
            "title": game_title(game, lang),
            "watch_link": site().watch_url(game),
            **extra,
        }
        context["talk"] = [
            {
                "who": names[m.seat],
                "to": names[m.to_seat] if m.to_seat is not None else None,
                "mine": m.seat == seat_no,
                "text": m.text,
                "at": format_when(m.created_at, tz, lang),
            }
            for m in talk.visible(session, game, seat_no)
        ]
        if game.status in ("forming", "cancelled") or game.state is None:
            return render_template("game/join.html", **context), status
        rules = GAMES[game.slug]
        view = rules.view(game.state, seat_no)
        moves = moves_of(session, game)
        shown = presenter(game.slug)
        my_last = max((m.ply for m in moves if m.seat == seat_no), default=-1)
        # Seats a computer plays and the table waits on: their move comes by itself.
        thinking = [
            names[s] for s in rules.to_act(game.state) if level_for(game, seats[s]) is not None
        ]
        if thinking and seat_no is not None:
            context.update(
                computers_thinking=thinking,
                poll_url=url_for("game.seat_ply", token=token),
                reload_url=url_for("game.seat_page", token=token),
            )
        context.update(
            view=view,
            table=shown.play_context(game.state, view, seat_no, lang, names),
            log=log_lines(moves, seat_no, lang, names),
            my_last=my_last,
            turn=rules.turn_token(game.state, seat_no) if seat_no is not None else "",
            to_act=[names[s] for s in rules.to_act(game.state)],
            again=seat_no is not None and seat_no in rules.to_act(game.state),
            results=shown.results(game.outcome, result_names(seats, lang), lang)
            if game.outcome
            else None,
            rematch_link=_rematch_link(session, game, seat),
            clocks=_clocks(session, game, seats, tz, lang),
            next_game=_next_game(session, game, seat, rules),
            time_control=game.days_per_move,
            by_mail=page_moves(site(), game, seat, lang, names),
        )
        return render_template(f"games/{game.slug}/page.html", **context), status


def _rematch_link(session: Any, game: Game, seat: Seat | None) -> str | None:
    """This player's seat in the rematch of this game, once someone asked for one."""
    if seat is None or game.status != "over":
        return None
    again = session.exec(select(Game).where(Game.rematch_of == game.id)).first()
    if again is None:
        return None
    mine = session.exec(
        select(Seat).where(Seat.game_id == again.id, Seat.player_id == seat.player_id)
    ).first()
    return urlsplit(site().seat_url(mine)).path if mine else None


def _next_game(session: Any, game: Game, seat: Seat | None, rules: Any) -> dict[str, Any] | None:
    """Once this seat has moved: the player's most urgent game where it is their move, or /me."""
    if seat is None or game.state is None or seat.seat in rules.to_act(game.state):
        return None
    link = home.next_game(session, site(), seat.player_id, now())
    return {"link": link or url_for("me.home"), "found": link is not None}


def remember_language(player_id: int | None, lang: str) -> None:
    """The EN/FR switch on a player's own page sets their language for pages and mail.

    Written after the response is built, so the page's read is over before this write.
    """

    @after_this_request
    def _save(response: Response) -> Response:
        with write_session(engine()) as session:
            player = session.get(Player, player_id)
            if player is not None and lang in languages():
                player.lang = lang
                session.add(player)
        return response


def _clocks(
    session: Any, game: Game, seats: list[Seat], tz: str, lang: str
) -> list[dict[str, Any]]:
    """Per seat, in the viewer's time zone: deadline, vacation, absence."""
    moment = now()
    away = account.away_until(session, seats, moment)
    return [
        {
            "seat": s.seat,
            "name": s.name,
            "deadline": s.deadline,
            "deadline_text": format_when(s.deadline, tz, lang) if s.deadline else "",
            "time_left": format_left(max(s.deadline - moment, timedelta(0)), lang)
            if s.deadline
            else "",
            "away_text": format_when(away[s.seat], tz, lang) if s.seat in away else "",
            "absent": s.absent,
            "left": s.left,
        }
        for s in seats
    ]


@bp.get("/p/<token>")
def seat_page(token: str) -> tuple[str, int]:
    """The seat's page: invitation, table or results, as the game stands."""
    game_id, seat_no = _seat_from(token)
    notice = request.args.get("done")
    return _page(token, game_id, seat_no, notice="done" if notice else None)


@bp.get("/p/<token>/ply")
def seat_ply(token: str) -> dict[str, Any]:
    """How far the game has gone, for the page's poll: a cheap look at one row."""
    game_id, _ = _seat_from(token)
    with read_session(engine()) as session:
        game = session.get(Game, game_id)
        if game is None:
            abort(404)
        return {"ply": game.ply, "status": game.status}


@bp.get("/w/<token>")
def watch_page(token: str) -> tuple[str, int]:
    """The read-only spectator page: no hand is shown."""
    return _page(token, watched_game(token), None)


def watched_game(token: str) -> int:
    """The game id of a valid spectator link; 404 for anything else."""
    game_id, key = signed_pair("watch", token)
    with read_session(engine()) as session:
        game = session.get(Game, game_id)
        valid = game is not None and secrets.compare_digest(game.watch_key, key)
    if not valid:
        bad_link()
    return game_id


def _lobby_action(token: str, action: Any) -> Response | tuple[str, int]:
    game_id, seat_no = _seat_from(token)
    try:
        with write_session(engine()) as session:
            action(session, site(), game_id, seat_no, now())
    except PlayError as exc:
        return _page(token, game_id, seat_no, status=exc.status, error=exc)
    return redirect(url_for("game.seat_page", token=token), code=303)


@bp.post("/p/<token>/join")
def join(token: str) -> Response | tuple[str, int]:
    """Accept the invitation."""
    return _lobby_action(token, play.join)


@bp.post("/p/<token>/decline")
def decline(token: str) -> Response | tuple[str, int]:
    """Refuse the invitation."""
    return _lobby_action(token, play.decline)


@bp.get("/p/<token>/cancel")
def cancel_page(token: str) -> tuple[str, int]:
    """Ask before calling the game off: it cannot be undone."""
    game_id, seat_no = _seat_from(token)
    with read_session(engine()) as session:
        game = session.get(Game, game_id)
        assert game is not None
        title = game_title(game, g.lang)
    return render_template("game/cancel.html", token=token, title=title), 200


@bp.post("/p/<token>/cancel")
def cancel(token: str) -> Response | tuple[str, int]:
    """The creator calls the game off before it starts."""
    return _lobby_action(token, play.cancel)


@bp.post("/p/<token>/back")
def back(token: str) -> Response | tuple[str, int]:
    """An absent player takes their seat back."""
    game_id, seat_no = _seat_from(token)
    with write_session(engine()) as session:
        account.come_back(session, game_id, seat_no, now())
    return redirect(url_for("game.seat_page", token=token), code=303)


@bp.post("/p/<token>/extend")
def extend(token: str) -> Response | tuple[str, int]:
    """The creator adds days to a seat's deadline."""
    game_id, seat_no = _seat_from(token)
    try:
        extra = ExtendForm.read(request.form)
        with write_session(engine()) as session:
            account.add_time(session, game_id, seat_no, extra.seat, extra.days)
    except PlayError as exc:
        return _page(token, game_id, seat_no, status=exc.status, error=exc)
    return redirect(url_for("game.seat_page", token=token), code=303)


@bp.post("/p/<token>/talk")
def talk_post(token: str) -> Response | tuple[str, int]:
    """Add a table-talk message; it travels in each recipient's next mail."""
    game_id, seat_no = _seat_from(token)
    try:
        message = TalkForm.read({"to": "all", **request.form.to_dict()})
        with write_session(engine()) as session:
            talk.post(session, game_id, seat_no, message, now())
    except PlayError as exc:
        return _page(
            token,
            game_id,
            seat_no,
            status=exc.status,
            error=exc,
            draft=request.form.get("text", "")[:TALK_MAX],
        )
    return redirect(url_for("game.seat_page", token=token, _anchor="talk"), code=303)


@bp.post("/p/<token>/move")
def move(token: str) -> Response | tuple[str, int]:
    """Check the turn form, ask for confirmation, then apply it once."""
    game_id, seat_no = _seat_from(token)
    form = request.form
    turn = form.get("turn", "")
    with read_session(engine()) as session:
        game = session.get(Game, game_id)
        assert game is not None
        slug, state, status = game.slug, game.state, game.status
        names = [s.name for s in seats_of(session, game)]
    shown = presenter(slug)
    rules = GAMES[slug]
    if status != "active" or state is None:
        return _page(token, game_id, seat_no, status=409, error=Gone("play.error.not_active"))
    try:
        play.check_turn(rules, state, seat_no, turn)
    except Stale as exc:
        return _page(token, game_id, seat_no, status=exc.status, error=exc)
    if form.get("change") == "1":
        # "Change it" on the review: the form again, with the choices made still chosen.
        return _page(token, game_id, seat_no, chosen=dict(form))
    try:
        the_move = shown.parse_form(form)
    except FormError as exc:
        return _page(token, game_id, seat_no, status=400, error=PlayError(exc.key))
    if form.get("confirm") != "1":
        try:
            # Promise 4: the review shows only what the mover may see before sending.
            described = [render(m, g.lang, names) for m in rules.review(state, seat_no, the_move)]
        except IllegalMove as exc:
            refusal = error_text(exc, g.lang, names)
            return _page(token, game_id, seat_no, status=400, move_error=refusal)
        return _page(token, game_id, seat_no, confirm={"lines": described, "form": dict(form)})
    try:
        with write_session(engine()) as session:
            play.submit_move(session, site(), game_id, seat_no, the_move, turn, now())
    except IllegalMove as exc:
        return _page(token, game_id, seat_no, status=400, move_error=error_text(exc, g.lang, names))
    except (PlayError, IntegrityError) as exc:
        error = exc if isinstance(exc, PlayError) else Stale("play.error.stale")
        return _page(token, game_id, seat_no, status=error.status, error=error)
    return redirect(url_for("game.seat_page", token=token, done=1), code=303)


@bp.post("/p/<token>/rematch")
def rematch(token: str) -> Response | tuple[str, int]:
    """Start the same game again with the same players, or go to the rematch already made."""
    game_id, seat_no = _seat_from(token)
    try:
        with write_session(engine()) as session:
            again = play.rematch(session, site(), game_id, seat_no, now())
            player_id = seat_of(session, game_id, seat_no).player_id
            mine = session.exec(
                select(Seat).where(Seat.game_id == again.id, Seat.player_id == player_id)
            ).one()
            link = urlsplit(site().seat_url(mine)).path
    except PlayError as exc:
        return _page(token, game_id, seat_no, status=exc.status, error=exc)
    return redirect(link, code=303)


@bp.get("/p/<token>/leave")
def leave_page(token: str) -> tuple[str, int]:
    """Ask before leaving: leaving cannot be undone."""
    game_id, seat_no = _seat_from(token)
    with read_session(engine()) as session:
        game = session.get(Game, game_id)
        assert game is not None
        title = game_title(game, g.lang)
        # The game's takeover level takes the seat; with none chosen, the default one.
        level = say(g.lang, f"lobby.level.{play.leaving_level(game)}")
    return render_template("game/leave.html", token=token, title=title, level=level), 200


@bp.post("/p/<token>/leave")
def leave(token: str) -> Response | tuple[str, int]:
    """Leave the game: the server plays this seat's turns from now on."""
    return _lobby_action(token, play.leave)
