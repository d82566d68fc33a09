"""The lobby: the form that starts a game and sends the invitations."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, g, render_template, request

from pbem.db import write_session
from pbem.games.base import Option
from pbem.play import Invitee, PlayError, Timing, create_game
from pbem.present import playable
from pbem.ratelimit import NEW_GAMES, exceeded, record
from pbem.web import engine, now, site

bp = Blueprint("lobby", __name__)
MAX_ROWS = 8


@bp.get("/")
def index() -> str:
    """The home page with the new-game form."""
    return render_template("lobby/new.html", games=playable(), rows=MAX_ROWS, form={}, error=None)


def _option_value(opt: Option, raw: str | None) -> Any:
    if opt.kind == "bool":
        return raw in ("1", "on", "true", "yes")
    if opt.kind == "int":
        if raw in (None, "", "random"):
            return opt.default
        return int(raw) if raw.lstrip("-").isdecimal() and len(raw) < 6 else raw
    return raw if raw is not None else opt.default


def _timing(form: Any) -> Timing:
    """The time control chosen in the form."""
    days = form.get("days_per_move", "3")
    absent = form.get("absent_after", "3")
    if not (days == "none" or (days.isdecimal() and len(days) <= 2)):
        raise PlayError("lobby.error.days_per_move")
    if not (absent.isdecimal() and len(absent) <= 2):
        raise PlayError("lobby.error.absent_after")
    return Timing(
        days_per_move=None if days == "none" else int(days),
        reminders=form.get("reminders", "24h, 80%")[:100],
        absent_after=int(absent),
    )


@bp.post("/games")
def create() -> tuple[str, int]:
    """Create the game from the form and queue the invitations."""
    address = request.remote_addr or "?"
    if exceeded(engine(), NEW_GAMES, address, now()):
        abort(429)
    form = request.form
    slug = form.get("game", "")
    error = None
    games = playable()
    if slug not in games:
        error = PlayError("lobby.error.no_such_game")
    invitees = []
    for row in range(MAX_ROWS):
        name = form.get(f"name_{row}", "")
        email = form.get(f"email_{row}", "")
        if name.strip() or email.strip():
            invitees.append(Invitee(name=name, email=email, lang=g.lang))
    if error is None and not invitees:
        error = PlayError("lobby.error.name_missing", number=1)
    if error is None:
        rules = games[slug]
        options = {
            opt.name: _option_value(opt, form.get(f"opt_{slug}_{opt.name}"))
            for opt in rules.options
        }
        try:
            timing = _timing(form)
            record(engine(), NEW_GAMES, address, now())
            with write_session(engine()) as session:
                game = create_game(session, site(), slug, invitees, options, now(), timing=timing)
                game_id = game.id
        except PlayError as exc:
            error = exc
    if error is not None:
        page = render_template("lobby/new.html", games=games, rows=MAX_ROWS, form=form, error=error)
        return page, 400
    return render_template("lobby/created.html", game_id=game_id, invitees=invitees), 201
