"""A seat's review of its finished game: asked by a POST from the seat's or replay's page,
shown under the seat's own link (pbem.storage.reviews holds the rows; the computer workers
work it out, pbem.clock.reviews)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, g, redirect, render_template, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from pbem.models import Game, Player
from pbem.present.common import game_title
from pbem.present.review import review_words
from pbem.storage import reviews
from pbem.storage.db import read_session, write_session
from pbem.storage.store import seats_of
from pbem.web import engine, now
from pbem.web.seats import seat_from

bp = Blueprint("review", __name__)

# Seconds between the page's reloads while the review is worked out (a Refresh header:
# no script needed); a review is seconds of a worker's time once its turn comes.
REFRESH = 10


def _page(token: str, status: int = 200, **extra: Any) -> Response:
    """The review page of the seat of `token`, as the review stands."""
    game_id, seat_no = seat_from(token)
    with read_session(engine()) as session:
        game = session.get(Game, game_id)
        if game is None:
            abort(404)
        seats = seats_of(session, game)
        if "lang" not in request.args:
            player = session.get(Player, seats[seat_no].player_id)
            g.lang = player.lang if player else g.lang
        found = reviews.review_of(session, game_id, seat_no)
    names = [s.name for s in seats]
    over = game.status == "over"
    shown = found.result if found is not None and found.done_at is not None else None
    context = {
        "token": token,
        "title": game_title(game, g.lang),
        "over": over,
        "asked": found is not None,
        "mail": found is not None and found.mail,
        "review": review_words(shown, g.lang, names) if shown is not None else None,
        **extra,
    }
    if not over:
        status = 409  # never before the end: the page says why
    response = Response(render_template("game/review.html", **context), status=status)
    if found is not None and shown is None and over:
        response.headers["Refresh"] = str(REFRESH)  # worked out meanwhile: look again
    return response


def offer(session: Any, game: Game, seat_no: int | None) -> dict[str, Any] | None:
    """What a finished game's seat page or replay offers its seat: its review, asked or not
    (None before the end, and to spectators)."""
    if seat_no is None or game.status != "over" or game.id is None:
        return None
    return {"asked": reviews.review_of(session, game.id, seat_no) is not None}


@bp.get("/p/<token>/review")
def review_page(token: str) -> Response:
    """The seat's review: asked, being worked out, or done (the costliest moments first)."""
    return _page(token, again=request.args.get("again") == "1")


@bp.post("/p/<token>/review")
def ask_review(token: str) -> BaseResponse:
    """Ask for the seat's review (and, with `mail`, its mail) of a game that is over."""
    game_id, seat_no = seat_from(token)
    mail = request.form.get("mail") == "1"
    with write_session(engine()) as session:
        done = reviews.ask(session, game_id, seat_no, mail, now())
    if done == reviews.NOT_OVER:
        return _page(token, status=409)
    if done == reviews.AGAIN:
        # Asked before: the page shows it as it stands, and says it was asked already.
        return _page(token, status=409, again=True)
    return redirect(url_for("review.review_page", token=token), code=303)
