"""Fantasy Business rounds that are over, released from the state kept between moves and put
back for whoever shows them.

The state's history holds one record per round. The rules read only the current round's
(the last); a finished round's record never changes. So the stored state keeps the current
round and the KEPT rounds before it, and the older records are kept apart, one row a round
(pbem.storage.rounds): the state every move, page and mail decodes stays the same size from
the first round to the last. A view of more rounds, a computer player and the game's
outcome get the released records back with `restore`.
"""

from __future__ import annotations

from typing import Any

from pbem.games.base import State

# Finished rounds kept besides the current one: the page and a turn mail show the last one
# (pbem.present.fantasy_business: PAST_ROUNDS, MAIL_ROUNDS), so neither reads a row for it.
KEPT = 1


def release(state: State) -> tuple[State, list[dict[str, Any]]]:
    """The state without the records before the current round and the KEPT before it, and
    those records (finished rounds, oldest first)."""
    history = state["history"]
    cut = len(history) - (KEPT + 1)
    if cut <= 0:
        return state, []
    kept = dict(state)
    kept["history"] = history[cut:]
    return kept, history[:cut]


def released(state: State, rounds: int | None = None) -> list[int]:
    """The released rounds (by number) that a view of the last record and the `rounds` before
    it needs (None: every round). Records run from round 1 without a gap."""
    history = state["history"]
    if not history:
        return []
    held_from = history[0]["round"]
    wanted_from = 1 if rounds is None else max(1, history[-1]["round"] - rounds)
    return list(range(wanted_from, held_from))


def restore(state: State, records: list[dict[str, Any]]) -> State:
    """The state with released `records` put back before the ones it holds (a record it holds
    already is not doubled)."""
    held = state["history"]
    held_from = held[0]["round"] if held else None
    earlier = sorted(
        (r for r in records if held_from is None or r["round"] < held_from),
        key=lambda r: r["round"],
    )
    if not earlier:
        return state
    whole = dict(state)
    whole["history"] = earlier + held
    return whole
