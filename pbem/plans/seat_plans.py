"""A seat's plan ahead (conditional moves), kept and read: secret to the seat that made it.

The rules of a plan are pbem.games.ahead; the move path (pbem.moves) plays and cancels it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session

from pbem.errors import Gone
from pbem.games import ahead
from pbem.models import Game, Seat
from pbem.storage.store import lock_game, seat_of


def plan_of(seat: Seat) -> dict[str, Any]:
    """The seat's own plan as its page, mail and API show it: the branches and the note."""
    kept = seat.ahead or {}
    return {"tree": list(kept.get("tree") or []), "note": kept.get("note")}


def plan_json(game: Game, seat: Seat) -> dict[str, Any]:
    """The seat's plan for the API: may it plan now, the plan kept, its note, and the other's
    moves it may name (as its own view tells: nothing hidden)."""
    allowed = may_plan(game, seat.seat)
    kept = plan_of(seat)
    theirs = ahead.their_moves(game.state, seat.seat) if allowed and game.state else []
    return {"may_plan": allowed, "plan": kept["tree"], "note": kept["note"], "their_moves": theirs}


def may_plan(game: Game, seat_no: int) -> bool:
    """True when the seat may leave a plan now (two-player Colour Bazaar, the other to move)."""
    return game.status == "active" and ahead.may_plan(game.slug, game.state, seat_no)


def set_plan(
    session: Session, game_id: int, seat_no: int, tree: Any, now: datetime
) -> list[dict[str, Any]]:
    """Replace the seat's plan by `tree`, checked; the plan as kept. Raises Gone when no plan
    may be made now, and ahead.BadPlan (or IllegalMove) when the tree cannot be kept."""
    game = lock_game(session, game_id)
    if tree == []:
        clear_plan(session, game_id, seat_no)  # dropping a plan is always allowed
        return []
    if not may_plan(game, seat_no):
        raise Gone("ahead.error.not_now")
    assert game.state is not None  # may_plan says the game is on
    kept = ahead.check_plan(game.state, seat_no, tree)
    seat = seat_of(session, game_id, seat_no)
    plan = {"tree": kept, "ply": game.ply, "note": None} if kept else {}
    seat.ahead = {**_others(seat), **plan} or None
    session.add(seat)
    return kept


def add_line(
    session: Session,
    game_id: int,
    seat_no: int,
    theirs: dict[str, Any],
    mine: dict[str, Any],
    now: datetime,
    under: int | None = None,
) -> list[dict[str, Any]]:
    """Add a line made on the table, "if they play this card there, whatever chip they take,
    I play `mine`", as the branches it stands for (pbem.games.ahead.line_branches); or, with
    `under` (a line's place in ahead.lines_of), as their move after that line, under each
    of its branches. The plan as kept."""
    game = lock_game(session, game_id)
    if not may_plan(game, seat_no):
        raise Gone("ahead.error.not_now")
    assert game.state is not None  # may_plan says the game is on
    tree = plan_of(seat_of(session, game_id, seat_no))["tree"]
    if under is None:
        made = ahead.line_branches(game.state, seat_no, theirs, mine)
        named = [b["if"] for b in made]
        return set_plan(
            session, game_id, seat_no, [*(b for b in tree if b["if"] not in named), *made], now
        )
    lines = ahead.lines_of(tree)
    if not 0 <= under < len(lines):
        raise Gone("ahead.error.shape")
    added = False
    for index in lines[under]["indexes"]:
        parent = tree[index]
        after = ahead.imagined_after(game.state, seat_no, parent["if"], parent["then"])
        try:
            made = ahead.line_branches(after, seat_no, theirs, mine)
        except ahead.BadPlan:
            continue  # their chip above left no such move after it
        named = [b["if"] for b in made]
        deeper = [b for b in parent.get("next") or [] if b["if"] not in named]
        tree[index] = {**parent, "next": [*deeper, *made]}
        added = True
    if not added:
        raise ahead.BadPlan("ahead.error.answer")
    return set_plan(session, game_id, seat_no, tree, now)


def remove_line(session: Session, game_id: int, seat_no: int, index: int) -> None:
    """Take a line (its place in ahead.lines_of), every branch of it, out of the seat's plan."""
    seat = seat_of(session, game_id, seat_no)
    tree = plan_of(seat)["tree"]
    lines = ahead.lines_of(tree)
    if 0 <= index < len(lines):
        gone = set(lines[index]["indexes"])
        kept = [b for i, b in enumerate(tree) if i not in gone]
        seat.ahead = {**seat.ahead, "tree": kept} if kept and seat.ahead else _others(seat) or None
        session.add(seat)


def clear_plan(session: Session, game_id: int, seat_no: int) -> None:
    """Drop the seat's plan (at any time: nothing is played ahead any more)."""
    seat = seat_of(session, game_id, seat_no)
    seat.ahead = _others(seat) or None
    session.add(seat)


def _others(seat: Seat) -> dict[str, Any]:
    """What else the seat's row keeps beside a plan (a Fantasy Business seat's orders)."""
    return {k: v for k, v in (seat.ahead or {}).items() if k not in ("tree", "ply", "note")}
