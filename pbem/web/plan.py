"""The "Plan ahead" part of a two-player Colour Bazaar page: a line is made the way a move is,
their card on a market (whatever chip they take), then my answer on the table as it would be;
kept in the seat's plan (pbem.plans.seat_plans), listed, removed one line at a time or all.

Plain forms: their move is a link (a GET that shows the table after it, to answer on), the
answer is posted like a turn form (card and market, chip); static/plan.js and static/table.js
do the same in place, by taps. Lines are checked again when kept.

Their moves are worked out (an imagined deal for each card the planner cannot place) only once
the plan is opened: a link, ?plan=1, that plan.js follows in place. A page that is only read
pays for the plan's lines, not for a third of its cost in cards nobody taps.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, request, url_for
from werkzeug.wrappers import Response

from pbem.errors import PlayError
from pbem.games import GameError, ahead
from pbem.models import Game, Seat
from pbem.plans import plan_table, seat_plans
from pbem.present.colour_bazaar import parse_form
from pbem.present.common import FormError
from pbem.present.text import say
from pbem.storage.db import write_session
from pbem.web import engine, now
from pbem.web.seats import seat_from

bp = Blueprint("plan", __name__)
OPEN = ("plan", "ahead_at", "ahead_their")  # what the address names once the plan is opened
PLAN_ERRORS = {"answer", "deep", "discard", "game_ends", "not_now", "shape", "their_move", "twice"}


def plan_context(
    game: Game, seat: Seat | None, lang: str, names: list[str]
) -> dict[str, Any] | None:
    """What the page's plan-ahead part shows to `seat`, or None where it has none: the plan's
    lines in words, its note, their moves by card and, once one is picked, the table after
    it with my choices."""
    if seat is None or game.slug != ahead.SLUG or game.state is None or game.state["n"] != 2:
        return None
    kept = seat_plans.plan_of(seat)
    allowed = seat_plans.may_plan(game, seat.seat)
    if not allowed and not kept["note"]:
        return None
    state, me = game.state, seat.seat
    opened = any(request.args.get(name) for name in OPEN)
    shown: dict[str, Any] = {"may": allowed, "note": kept["note"], "lines": [], "open": opened}
    error = request.args.get("plan_error", "")
    if error in PLAN_ERRORS:
        shown["error"] = say(lang, "ahead.error." + error)
    if not allowed:
        return shown
    tree = kept["tree"]
    shown["lines"] = plan_table.plan_lines(state, me, tree, lang, names)
    if not opened:
        return shown
    table, known = state, set(state["hands"][me])
    under = _index(request.args.get("ahead_at"))
    if 0 <= under < len(shown["lines"]):
        # Their move after a line: the table as this seat imagines it after both moves.
        first = tree[ahead.lines_of(tree)[under]["indexes"][0]]
        table = ahead.imagined_after(state, me, first["if"], first["then"])
        known -= {first["then"].get("card")}
        shown["under"] = {"index": under, **shown["lines"][under]}
    shown["cards"] = plan_table.their_cards(table, me, lang) if not table["over"] else []
    picked = plan_table.read_their_value(request.args.get("ahead_their"))
    offered = {on["value"] for card in shown["cards"] for on in card["on"]}
    if picked is not None and plan_table.their_value(picked) in offered:
        try:
            shown["answer"] = plan_table.answer_table(table, me, picked, known, lang, names)
        except GameError as exc:
            shown["error"] = say(lang, exc.msg.key)
        shown["picked"] = {
            "value": plan_table.their_value(picked),
            **plan_table.their_words(picked, lang),
        }
    return shown


def _back(token: str) -> Response:
    # Still open: the next line is made from their moves, as the last one was.
    return redirect(url_for("game.seat_page", token=token, plan=1, _anchor="plan"), code=303)


@bp.post("/p/<token>/plan")
def add(token: str) -> Response:
    """Add a line: "if they play this card there, whatever chip they take, I play this"."""
    game_id, seat_no = seat_from(token)
    theirs = plan_table.read_their_value(request.form.get("their"))
    under = _index(request.form.get("under"))
    try:
        if theirs is None:
            raise ahead.BadPlan("ahead.error.their_move")
        try:
            mine = parse_form(request.form)
        except FormError:
            raise ahead.BadPlan("ahead.error.answer") from None
        with write_session(engine()) as session:
            seat_plans.add_line(
                session, game_id, seat_no, theirs, mine, now(), under if under >= 0 else None
            )
    except (GameError, PlayError) as exc:
        return _refused(token, exc)
    return _back(token)


@bp.post("/p/<token>/plan/remove")
def remove(token: str) -> Response:
    """Take one line out of the plan (by its place in the list), or all of them."""
    game_id, seat_no = seat_from(token)
    try:
        with write_session(engine()) as session:
            if request.form.get("all"):
                seat_plans.clear_plan(session, game_id, seat_no)
            else:
                seat_plans.remove_line(session, game_id, seat_no, _index(request.form.get("index")))
    except (GameError, PlayError) as exc:
        return _refused(token, exc)
    return _back(token)


def _index(value: str | None) -> int:
    return int(value) if value and value.isdigit() and len(value) < 4 else -1


def _refused(token: str, problem: GameError | PlayError) -> Response:
    """The page again at its plan, saying why the plan was not changed: only a catalogue key
    of the plan's own travels in the address (never a move, never a card)."""
    key = problem.msg.key if isinstance(problem, GameError) else problem.key
    if not key.startswith("ahead.error."):
        key = "ahead.error.shape"
    return redirect(
        url_for("game.seat_page", token=token, plan=1,
                plan_error=key.removeprefix("ahead.error."), _anchor="plan"),
        code=303,
    )  # fmt: skip
