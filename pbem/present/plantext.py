"""A plan ahead written in a reply: "if <their move> then <my move>" lines, English or French.

A line "if play ace of leaves 2 chip moons then play castle 1 chip suns" (French: "si ...
alors ...") answers their next move; a line that begins "and if" ("et si") answers their
move after that, under the branch above it. Moves are written as in a reply's first line
(pbem.present.colour_bazaar_text); their move names a card they may hold as far as the
writer can see, never one of the writer's own.
"""

from __future__ import annotations

import re
from typing import Any

from pbem.games import GameError, ahead
from pbem.present.colour_bazaar_text import match
from pbem.present.textmove import TextMoveError

_LINE = re.compile(r"^\s*(?:(and|et)\s+)?(?:if|si)\s+(.+?)\s+(?:then|alors)\s+(.+)$", re.I)


def plan_lines(lines: list[str]) -> tuple[list[str], list[str]]:
    """The lines that write a plan, and the others (where the move is looked for)."""
    plan = [line for line in lines if _LINE.match(line)]
    return plan, [line for line in lines if not _LINE.match(line)]


def read_plan(lines: list[str], state: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    """The plan the lines write, for `seat` in `state` (the other to move), unchecked beyond
    naming moves it could make; TextMoveError (its line in params) for a line that does not."""
    tree: list[dict[str, Any]] = []
    for line in lines:
        found = _LINE.match(line)
        assert found is not None  # plan_lines chose the lines
        deeper, theirs_text, mine_text = found.groups()
        try:
            if deeper:
                if not tree:
                    raise TextMoveError("mailmove.error.empty")
                branch = tree[-1]
                after = ahead.imagined_after(state, seat, branch["if"], branch["then"])
                branch.setdefault("next", []).append(_branch(after, seat, theirs_text, mine_text))
            else:
                tree.append(_branch(state, seat, theirs_text, mine_text))
        except GameError as exc:  # their move cannot be made, or the game would end
            raise TextMoveError(exc.msg.key, **exc.msg.params) from None
    return tree


def _branch(state: dict[str, Any], seat: int, theirs_text: str, mine_text: str) -> dict[str, Any]:
    theirs_moves = ahead.their_moves(state, seat)
    unseen = {m["card"] for m in theirs_moves if "card" in m}
    theirs = match(theirs_text, theirs_moves, unseen)
    mine = match(mine_text, ahead.my_answers(state, seat, theirs), set(state["hands"][seat]))
    return {"if": theirs, "then": mine}
