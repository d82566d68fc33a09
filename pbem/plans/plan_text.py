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
# A line that begins as a plan line does ("if", "and if", "si", "et si", as a word, after any
# punctuation): it is read as one or refuses the reply, never passed over (README "By mail").
_START = re.compile(r"^\W*(?:(?:and|et)\W+)?(?:if|si)\b", re.I)


class PlanLineError(TextMoveError):
    """A plan line that cannot be read or kept: why, and the line, for the refusal mail."""

    def __init__(self, line: str, key: str, **params: Any) -> None:
        super().__init__(key, **params)
        self.line = line


def plan_lines(lines: list[str]) -> tuple[list[str], list[str]]:
    """The lines that write a plan, and the others (where the move is looked for);
    PlanLineError for a line that begins as a plan line but is not written as one."""
    for line in lines:
        if _START.match(line) and not _LINE.match(line):
            raise PlanLineError(line, "mailmove.error.plan_line")
    plan = [line for line in lines if _LINE.match(line)]
    return plan, [line for line in lines if not _LINE.match(line)]


def read_plan(lines: list[str], state: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    """The plan the lines write, for `seat` in `state` (the other to move), unchecked beyond
    naming moves it could make; PlanLineError (with its line) for a line that does not."""
    tree: list[dict[str, Any]] = []
    for line in lines:
        found = _LINE.match(line)
        assert found is not None  # plan_lines chose the lines
        deeper, theirs_text, mine_text = found.groups()
        try:
            if deeper:
                if not tree:
                    raise TextMoveError("mailmove.error.plan_line")
                branch = tree[-1]
                after = ahead.imagined_after(state, seat, branch["if"], branch["then"])
                branch.setdefault("next", []).append(_branch(after, seat, theirs_text, mine_text))
            else:
                tree.append(_branch(state, seat, theirs_text, mine_text))
        except GameError as exc:  # their move cannot be made, or the game would end
            raise PlanLineError(line, exc.msg.key, **exc.msg.params) from None
        except TextMoveError as exc:
            raise PlanLineError(line, exc.key, **exc.params) from None
    return tree


def checked_plan(lines: list[str], state: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    """The plan the lines write, checked as kept (pbem.games.ahead.check_plan) on `state`;
    PlanLineError naming the first line that cannot be read or kept."""
    kept: list[dict[str, Any]] = []
    # Checked a line more at a time: the first prefix refused names the line at fault
    # (at most 8 lines a reply, pbem.mailin.reading.MAX_LINES).
    for count in range(1, len(lines) + 1):
        tree = read_plan(lines[:count], state, seat)
        try:
            kept = ahead.check_plan(state, seat, tree)
        except GameError as exc:
            raise PlanLineError(lines[count - 1], exc.msg.key, **exc.msg.params) from None
    return kept


def _branch(state: dict[str, Any], seat: int, theirs_text: str, mine_text: str) -> dict[str, Any]:
    theirs_moves = ahead.their_moves(state, seat)
    unseen = {m["card"] for m in theirs_moves if "card" in m}
    theirs = match(theirs_text, theirs_moves, unseen)
    mine = match(mine_text, ahead.my_answers(state, seat, theirs), set(state["hands"][seat]))
    return {"if": theirs, "then": mine}
