"""The "Plan ahead" part of a two-player Colour Bazaar page: their move, my answer, added to
the seat's plan (pbem.players.plans); listed, removed one by one or all at once.

Plain forms: choosing their move reloads the page with my answers to it (a GET), adding
posts the pair. The moves are sent as their JSON and checked again when kept.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, redirect, request, url_for
from werkzeug.wrappers import Response

from pbem.errors import PlayError
from pbem.games import GameError, ahead
from pbem.models import Game, Seat
from pbem.players import plans
from pbem.present.colour_bazaar_text import text_of
from pbem.present.text import say
from pbem.storage.db import write_session
from pbem.web import engine, now
from pbem.web.seats import seat_from

bp = Blueprint("plan", __name__)
PLAN_ERRORS = {"answer", "deep", "discard", "game_ends", "not_now", "shape", "their_move", "twice"}


def plan_context(game: Game, seat: Seat | None, lang: str) -> dict[str, Any] | None:
    """What the page's plan-ahead part shows to `seat`, or None where it has none: the
    plan in words, its note, their moves to pick from and, once one is picked, my answers."""
    if seat is None or game.slug != ahead.SLUG or game.state is None or game.state["n"] != 2:
        return None
    kept = plans.plan_of(seat)
    allowed = plans.may_plan(game, seat.seat)
    if not allowed and not kept["tree"] and not kept["note"]:
        return None
    shown: dict[str, Any] = {
        "may": allowed,
        "note": kept["note"],
        "branches": [
            {"theirs": text_of(b["if"], lang), "mine": text_of(b["then"], lang),
             "deeper": len(b.get("next") or [])}
            for b in kept["tree"]
        ],
    }  # fmt: skip
    error = request.args.get("plan_error", "")
    if error in PLAN_ERRORS:
        shown["error"] = say(lang, "ahead.error." + error)
    if not allowed:
        return shown
    table = game.state
    under = _index(request.args.get("ahead_at"))
    if 0 <= under < len(kept["tree"]):
        # Their move after a branch: the table as this seat imagines it after both moves.
        above = kept["tree"][under]
        table = ahead.imagined_after(table, seat.seat, above["if"], above["then"])
        shown["under"] = {"index": under, **shown["branches"][under]}
    theirs = ahead.their_moves(table, seat.seat) if not table["over"] else []
    shown["theirs"] = [{"value": json.dumps(m), "text": text_of(m, lang)} for m in theirs]
    picked = _move(request.args.get("ahead_if"))
    if picked in theirs:
        try:
            answers = ahead.my_answers(table, seat.seat, picked)
        except GameError:
            answers = []
        shown["picked"] = {"value": json.dumps(picked), "text": text_of(picked, lang)}
        # Only cards the seat knows it will hold: the imagined table also draws it one.
        known = set(game.state["hands"][seat.seat])
        if "under" in shown:  # the answer above plays one of them first
            known -= {kept["tree"][under]["then"].get("card")}
        answers = [m for m in answers if m.get("card", m.get("discard", "")) in known | {""}]
        shown["answers"] = [{"value": json.dumps(m), "text": text_of(m, lang)} for m in answers]
    return shown


def _move(value: str | None) -> dict[str, Any] | None:
    """A move sent as JSON by the form, or None for anything else."""
    try:
        found = json.loads(value or "")
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def _back(token: str) -> Response:
    return redirect(url_for("game.seat_page", token=token, _anchor="plan"), code=303)


@bp.post("/p/<token>/plan")
def add(token: str) -> Response:
    """Add "if they play X, I play Y" to the seat's plan, checked as it is kept."""
    game_id, seat_no = seat_from(token)
    branch = {"if": _move(request.form.get("if")), "then": _move(request.form.get("then"))}
    under = _index(request.form.get("under"))
    try:
        with write_session(engine()) as session:
            plans.add_branch(
                session, game_id, seat_no, branch, now(), under if under >= 0 else None
            )
    except (GameError, PlayError) as exc:
        return _refused(token, exc)
    return _back(token)


@bp.post("/p/<token>/plan/remove")
def remove(token: str) -> Response:
    """Take one branch out of the plan (by its place in the list), or all of them."""
    game_id, seat_no = seat_from(token)
    try:
        with write_session(engine()) as session:
            if request.form.get("all"):
                plans.clear_plan(session, game_id, seat_no)
            else:
                plans.remove_branch(session, game_id, seat_no, _index(request.form.get("index")))
    except (GameError, PlayError) as exc:
        return _refused(token, exc)
    return _back(token)


def _index(value: str | None) -> int:
    return int(value) if value and value.isdigit() else -1


def _refused(token: str, problem: GameError | PlayError) -> Response:
    """The page again at its plan, saying why the plan was not changed: only a catalogue key
    of the plan's own travels in the address (never a move, never a card)."""
    key = problem.msg.key if isinstance(problem, GameError) else problem.key
    if not key.startswith("ahead.error."):
        key = "ahead.error.shape"
    return redirect(
        url_for("game.seat_page", token=token, plan_error=key.removeprefix("ahead.error."),
                _anchor="plan"),
        code=303,
    )  # fmt: skip
