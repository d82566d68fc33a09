"""Conditional moves in a two-player Colour Bazaar: "if they play X, I play Y", pure rules.

A seat's plan is a list of branches {"if": their move, "then": my answer, "next": [...]},
at most two levels deep (their move, my answer, their next move, my next answer). A plan is
made while the other seat is to move, and checked against what its maker can see: their
move must be one they could make as far as my view tells (a card I cannot see, a chip left),
and my answer legal after it in the table as I see it. Their moves a plan may name are the
public ones (a card on a market, or a chip alone): a face-down discard shows no card, so it
matches no branch. The draw from the pile is hidden, so an answer is checked again when it
is triggered (pbem.moves).
"""

from __future__ import annotations

import json
import random
from typing import Any

from pbem.games.base import GameError, IllegalMove, State
from pbem.games.colour_bazaar import ColourBazaar

MAX_DEPTH = 2
# Per level: a plan is a few likely moves, not a whole book; six lines made on the table,
# each branching on every chip they may take.
MAX_BRANCHES = 36
SLUG = ColourBazaar.slug
_RULES = ColourBazaar()


class BadPlan(IllegalMove):
    """A plan that cannot be kept: its catalogue key says why."""


def may_plan(slug: str, state: State | None, seat: int) -> bool:
    """True when `seat` may leave a plan now: a two-player Colour Bazaar, the other to move."""
    if slug != SLUG or state is None or state["n"] != 2 or state["over"]:
        return False
    turn: int = state["turn"]
    return turn != seat


def their_moves(state: State, seat: int) -> list[dict[str, Any]]:
    """The other seat's public moves `seat` can imagine now: cards it cannot see on each
    market they fit, and a chip alone; each with each chip left."""
    them = 1 - seat
    chips = [suit for suit, left in state["chips_left"].items() if left]
    # A chip alone is a turn only with an empty hand.
    moves: list[dict[str, Any]] = [] if state["hands"][them] else [{"chip": c} for c in chips]
    for card in _unseen(state, seat):
        trial = _holding(state, seat, card)
        moves.extend(m for m in _RULES.legal_moves(trial, them) if m.get("card") == card)
    return moves


def my_answers(state: State, seat: int, theirs: dict[str, Any]) -> list[dict[str, Any]]:
    """My legal answers to `theirs` in the table as `seat` sees it (IllegalMove if their
    move cannot be made as far as I can tell)."""
    after = _after_theirs(state, seat, theirs)
    if after["over"]:
        raise BadPlan("ahead.error.game_ends")
    return _RULES.legal_moves(after, seat)


def check_plan(state: State, seat: int, tree: Any) -> list[dict[str, Any]]:
    """The plan as kept (moves reduced to their keys), or BadPlan/IllegalMove saying why."""
    if not may_plan(SLUG, state, seat):
        raise BadPlan("ahead.error.not_now")
    table = _imagined(state, seat)
    return _check_level(table, seat, tree, 1, set(table["hands"][seat]))


def _check_level(
    state: State, seat: int, tree: Any, depth: int, hand: set[str]
) -> list[dict[str, Any]]:
    """One level of a plan checked; `hand`: the cards the seat knows it will hold (the
    imagined table also draws it a card it cannot know)."""
    if not isinstance(tree, list) or len(tree) > MAX_BRANCHES:
        raise BadPlan("ahead.error.shape")
    kept: list[dict[str, Any]] = []
    for branch in tree:
        if not isinstance(branch, dict) or set(branch) - {"if", "then", "next"}:
            raise BadPlan("ahead.error.shape")
        theirs, mine = _clean(branch.get("if")), _clean(branch.get("then"))
        if "discard" in theirs:
            raise BadPlan("ahead.error.discard")
        if any(b["if"] == theirs for b in kept):
            raise BadPlan("ahead.error.twice")
        card = mine.get("card", mine.get("discard"))
        if mine not in my_answers(state, seat, theirs) or (card is not None and card not in hand):
            raise BadPlan("ahead.error.answer")
        entry: dict[str, Any] = {"if": theirs, "then": mine}
        deeper = branch.get("next") or []
        if deeper:
            if depth >= MAX_DEPTH:
                raise BadPlan("ahead.error.deep")
            after = _RULES.apply(_after_theirs(state, seat, theirs), seat, mine)
            if after["over"]:
                raise BadPlan("ahead.error.game_ends")
            entry["next"] = _check_level(after, seat, deeper, depth + 1, hand - {card})
        kept.append(entry)
    return kept


def line_branches(
    state: State, seat: int, theirs: dict[str, Any], mine: dict[str, Any]
) -> list[dict[str, Any]]:
    """A plan line as branches: "if they play this card there (naming this suit), whatever
    chip they take, I answer `mine`": one for each of their moves `seat` can imagine that
    differs only by its chip and after which `mine` is still legal (taking the last chip of
    a suit leaves that suit to no answer); BadPlan when there is none."""
    wanted = chipless(theirs)
    branches = []
    for move in their_moves(state, seat):
        if "card" not in move or chipless(move) != wanted:
            continue
        try:
            answers = my_answers(state, seat, move)
        except BadPlan:  # their move would end the game
            continue
        if mine in answers:
            branches.append({"if": move, "then": mine})
    if not branches:
        raise BadPlan("ahead.error.answer")
    return branches


def lines_of(tree: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A plan's branches as the lines a player made them: their move but for its chip, my
    answer and the lines after it alike; each line with its branches' places and the chips
    of theirs it covers."""
    lines: dict[str, dict[str, Any]] = {}
    for index, branch in enumerate(tree):
        deeper = lines_of(branch.get("next") or [])
        key = json.dumps(
            [chipless(branch["if"]), branch["then"], [[d["if"], d["then"]] for d in deeper]],
            sort_keys=True,
        )
        line = lines.setdefault(
            key,
            {"if": chipless(branch["if"]), "then": branch["then"], "next": deeper,
             "chips": [], "indexes": []},
        )  # fmt: skip
        line["indexes"].append(index)
        if "chip" in branch["if"]:
            line["chips"].append(branch["if"]["chip"])
    return list(lines.values())


def after_theirs(state: State, seat: int, theirs: dict[str, Any]) -> State:
    """The table as `seat` imagines it after the other's move: what a plan's answer is chosen
    on (its markets and chips are the real ones with their move made; the hands and the pile
    are imagined, never the real ones). BadPlan when they could not make the move."""
    return _after_theirs(state, seat, theirs)


def imagined_after(state: State, seat: int, theirs: dict[str, Any], mine: dict[str, Any]) -> State:
    """The table as `seat` imagines it after their move and its answer (a plan's next level)."""
    return _RULES.apply(_after_theirs(state, seat, theirs), seat, mine)


def branch_for(tree: list[dict[str, Any]], move: dict[str, Any]) -> dict[str, Any] | None:
    """The branch whose "if" is `move`, or None (a move no branch names cancels the plan)."""
    move = _clean(move)
    if "discard" in move:
        return None
    return next((b for b in tree if b["if"] == move), None)


def chipless(move: dict[str, Any]) -> dict[str, Any]:
    """A move without its chip: what a plan line made on the table names of their move."""
    return {k: v for k, v in move.items() if k != "chip"}


def _clean(move: Any) -> dict[str, Any]:
    """A move as compared: its keys with a value, checked for shape."""
    if not isinstance(move, dict):
        raise BadPlan("ahead.error.shape")
    return {k: v for k, v in move.items() if v is not None}


def _imagined(state: State, seat: int) -> State:
    """A whole table giving `seat` its view, so that nothing hidden decides a plan's check.

    A fixed seed: the unseen cards' places only matter to the draw, checked again later."""
    return _RULES.deal(_RULES.view(state, seat), seat, random.Random(0))


def _unseen(state: State, seat: int) -> list[str]:
    """Cards `seat` cannot place (the other's hand, their discards, the pile), sorted."""
    view = _RULES.view(state, seat)
    seen = set(view["hand"]) | set(view["my_discards"])
    seen.update(c for market in view["markets"] for c in market)
    imagined = _imagined(state, seat)
    cards = set(imagined["deck"]) | set(imagined["hands"][1 - seat])
    cards.update(c for s, c in imagined["discards"] if s != seat)
    return sorted(cards - seen)


def _holding(state: State, seat: int, card: str) -> State:
    """The imagined table with `card` in the other's hand (swapped for one that was)."""
    table = _imagined(state, seat)
    them = 1 - seat
    hand = list(table["hands"][them])
    if card in hand or not hand:
        return table
    out = hand[0]
    hand[0] = card
    table = dict(table, hands=[list(h) for h in table["hands"]])
    table["hands"][them] = hand
    table["deck"] = [out if c == card else c for c in table["deck"]]
    table["discards"] = [[s, out if c == card else c] for s, c in table["discards"]]
    return table


def _after_theirs(state: State, seat: int, theirs: dict[str, Any]) -> State:
    """The imagined table after the other's move (IllegalMove when they could not make it)."""
    them = 1 - seat
    card = theirs.get("card")
    if card is not None:
        if card not in _unseen(state, seat):
            raise BadPlan("ahead.error.their_move")
        table = _holding(state, seat, card)
    else:
        table = _imagined(state, seat)
    try:
        return _RULES.apply(table, them, theirs)
    except GameError:
        raise BadPlan("ahead.error.their_move") from None
