"""The lobby: the form that starts a game and sends the invitations."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from urllib.parse import urlsplit

from flask import Blueprint, abort, g, redirect, render_template, request, url_for
from sqlalchemy.exc import IntegrityError
from sqlmodel import select
from werkzeug.wrappers import Response

from pbem.errors import PlayError
from pbem.models import Game, Player
from pbem.play import Invitee, create_game
from pbem.players.computers import LEVELS
from pbem.players.invitations import anonymous_sender
from pbem.present import playable
from pbem.present.forms import TimeControl, read_options
from pbem.present.i18n import languages
from pbem.present.options import weekday_name
from pbem.site import BadLink, make_token, read_token
from pbem.storage.db import read_session, write_session
from pbem.storage.ratelimit import NEW_GAMES, record, refusal
from pbem.storage.store import seat_of, seats_of
from pbem.web import client_address, engine, now, site
from pbem.web.signin import current_player_id

bp = Blueprint("lobby", __name__)
MAX_ROWS = 8
SHOWN_ROWS = 3  # player rows on the form at first; the others open on demand
# A form sent again this soon after it started a game against computers (a double tap, a
# resent POST) still opens the creator's seat: only the page that held the form has its token.
FRESH = timedelta(minutes=10)


@bp.get("/")
def index() -> str:
    """The home page with the new-game form (a signed-in player's own row filled in)."""
    return render_template(
        "lobby/new.html",
        games=playable(),
        rows=MAX_ROWS,
        shown_rows=SHOWN_ROWS,
        form=_creator_row(),
        error=None,
        levels=LEVELS,
        weekdays=_weekdays(),
    )


def _creator_row() -> dict[str, str]:
    """The form's first row for the player signed in on this device: their name, address and
    language as they stand (the page is never stored: pbem.app sends no-store)."""
    player_id = current_player_id()
    if player_id is None:
        return {}
    with read_session(engine()) as session:
        player = session.get(Player, player_id)
        if player is None:
            return {}
        return {"name_0": player.name, "email_0": player.email, "lang_0": player.lang}


def _weekdays() -> list[str]:
    """Monday to Sunday in the page's language, for the days-off boxes."""
    return [weekday_name(day, g.lang) for day in range(7)]


def _form_key() -> str:
    """A digest of this form's token: each lobby page gives a new one."""
    return hashlib.sha256(request.form.get("csrf", "").encode()).hexdigest()


def _game_made_by(form_key: str) -> int | None:
    with read_session(engine()) as session:
        game = session.exec(select(Game).where(Game.form_key == form_key)).first()
        return game.id if game is not None else None


def _to_created(game_id: int, just_made: bool = False) -> Response:
    """POST/redirect/GET: a reload shows the page again and creates nothing.

    A game against computers only has started: its creator goes straight to their seat page
    (issue 31), which only this answer to their own form names (a seat link is a secret).
    """
    with read_session(engine()) as session:
        game = session.get(Game, game_id)
        at_once = game is not None and game.started_at == game.created_at
        if game is not None and at_once and (just_made or now() - game.created_at < FRESH):
            seat = seat_of(session, game_id, game.creator_seat)
            return redirect(urlsplit(site().seat_url(seat)).path, code=303)
    token = make_token(site().secret, "created", [game_id])
    return redirect(url_for("lobby.created", token=token), code=303)


@bp.post("/games")
def create() -> Response | tuple[str, int]:
    """Create the game from the form, queue the invitations, and redirect to what was done."""
    form_key = _form_key()
    made = _game_made_by(form_key)
    if made is not None:
        return _to_created(made)  # the same form sent again: nothing new
    address = client_address()
    form = request.form
    if (limited := refusal(engine(), NEW_GAMES, address, now())) is not None:
        return _form_page(limited)
    slug = form.get("game", "")
    error: PlayError | None = None
    game_id: int | None = None
    games = playable()
    if slug not in games:
        error = PlayError("lobby.error.no_such_game")
    invitees: list[Invitee] = []
    for row in range(MAX_ROWS):
        name, email = form.get(f"name_{row}", ""), form.get(f"email_{row}", "")
        computer = form.get(f"computer_{row}", "") if row else ""
        # Each invitee's own language, for their invitation and later mails.
        lang = form.get(f"lang_{row}", g.lang)
        lang = lang if lang in languages() else g.lang
        if computer:
            # A computer player of this level takes the seat. The form hides the row's name,
            # address and language then, so none is read (issue 31): it is named by its level.
            invitees.append(Invitee(name="", email="", lang=g.lang, computer=computer[:12]))
        elif name.strip() or email.strip():
            invitees.append(Invitee(name=name, email=email, lang=lang))
    if error is None:
        try:
            timing = TimeControl.read(form)
            record(engine(), NEW_GAMES, address, now())
            options = read_options(games[slug], slug, form)
            # The invitations are paid by whoever sends the form: the player signed in,
            # else the client's address. Never by the typed creator, whose address the
            # form does not prove (a stranger could spend their day's allowance).
            viewer = current_player_id()
            sent_by = viewer if viewer is not None else anonymous_sender(address)
            with write_session(engine()) as session:
                game = create_game(
                    session,
                    site(),
                    slug,
                    invitees,
                    options,
                    now(),
                    timing=timing,
                    creator_looking=True,
                    share=form.get("share", ""),
                    rated=form.get("rated") == "1",
                    counted=True,
                    sent_by=sent_by,
                )
                game.form_key = form_key
                session.add(game)
                session.flush()
                game_id = game.id
        except PlayError as exc:
            error = exc
        except IntegrityError:
            # The same form sent twice at once: the other request created the game.
            made = _game_made_by(form_key)
            if made is None:
                raise
            return _to_created(made)
    if error is not None:
        return _form_page(error)
    assert game_id is not None
    return _to_created(game_id, just_made=True)


def _form_page(error: PlayError) -> tuple[str, int]:
    """The form again, as it was sent, with what stopped it."""
    page = render_template(
        "lobby/new.html",
        weekdays=_weekdays(),
        games=playable(),
        rows=MAX_ROWS,
        shown_rows=SHOWN_ROWS,
        form=request.form,
        error=error,
        levels=LEVELS,
    )
    return page, error.status


@bp.get("/games/created/<token>")
def created(token: str) -> str:
    """What the lobby form did: the game's number and who was invited."""
    try:
        payload = read_token(site().secret, "created", token)
    except BadLink:
        abort(404)
    if len(payload) != 1 or isinstance(payload[0], bool) or not isinstance(payload[0], int):
        abort(404)
    with read_session(engine()) as session:
        game = session.get(Game, payload[0])
        if game is None:
            abort(404)
        invitees = []
        for seat in seats_of(session, game):
            player = session.get(Player, seat.player_id)
            email = player.email if player and not seat.computer else ""
            invitees.append(Invitee(name=seat.name, email=email, computer=seat.computer))
        at_once = game.started_at == game.created_at  # against computers only
    return render_template(
        "lobby/created.html", game_id=game.id, invitees=invitees, at_once=at_once
    )
