"""Fantasy Business history released from the stored state: the rules play on from what they
keep, a page's view needs nothing released, and the released records put back give the game
as it was."""

from __future__ import annotations

import random

import pytest

from pbem.games import GAMES
from pbem.games.fantasy_business import FantasyBusiness

G = FantasyBusiness()


def _played(seed: int, auction: str) -> tuple[list[dict], list[tuple[int, dict]]]:
    """Every state of a seeded random four-player game, the first to the last, and its moves."""
    rng = random.Random(seed)
    state = G.setup(4, {"auction": auction}, seed)
    states, moves = [state], []
    while G.to_act(state):
        seat = G.to_act(state)[0]
        move = rng.choice(G.legal_moves(state, seat))
        state = G.apply(state, seat, move)
        states.append(state)
        moves.append((seat, move))
    return states, moves


@pytest.mark.parametrize(("seed", "auction"), [(3, "orders"), (8, "open"), (13, "sealed")])
def test_released_rounds_change_nothing_a_seat_sees_or_does(seed: int, auction: str) -> None:
    states, moves = _played(seed, auction)
    assert len(states[-1]["history"]) == states[-1]["rounds"]
    for before, after, (mover, move) in zip(states[:-1], states[1:], moves, strict=True):
        kept, records = G.release_history(before)
        # The current round and the last finished one stay; the rest is released.
        assert len(kept["history"]) == min(2, len(before["history"]))
        assert [r["round"] for r in records + kept["history"]] == [
            r["round"] for r in before["history"]
        ]
        assert G.released(kept, None) == [r["round"] for r in records]
        # A page and a turn mail view the last finished round: nothing to read back.
        assert G.released(kept, 1) == []
        for seat in (0, 3, None):
            assert G.view(kept, seat, 1) == G.view(before, seat, 1)
            whole = G.restore_history(kept, records)
            assert whole == before
            assert G.view(whole, seat) == G.view(before, seat)
        # The rules play on from the kept state as from the whole one.
        assert G.legal_moves(kept, mover) == G.legal_moves(before, mover)
        assert G.turn_token(kept, mover) == G.turn_token(before, mover)
        assert G.describe(kept, mover, move, None) == G.describe(before, mover, move, None)
        moved = G.apply(kept, mover, move)
        assert G.release_history(moved)[0] == G.release_history(after)[0]
    # Each finished round is released once, and stays as it was released.
    released: dict[int, dict] = {}
    for state in states:
        for record in G.release_history(state)[1]:
            assert released.setdefault(record["round"], record) == record
    assert sorted(released) == list(range(1, states[-1]["rounds"] - 1))


def test_a_view_of_more_rounds_names_the_released_ones_it_needs() -> None:
    last = _played(21, "orders")[0][-1]
    kept, records = G.release_history(last)
    rounds = last["rounds"]
    # The last round and the three before it: the state holds the last two.
    assert G.released(kept, 3) == [rounds - 3, rounds - 2]
    assert G.released(kept, None) == list(range(1, rounds - 1))
    some = G.restore_history(kept, [r for r in records if r["round"] >= rounds - 3])
    assert G.view(some, 2, 3) == G.view(last, 2, 3)
    # A state that was never released (stored before the rows existed) needs nothing.
    assert G.released(last, None) == []
    assert G.restore_history(last, records) == last


def test_colour_bazaar_releases_nothing() -> None:
    rules = GAMES["colour-bazaar"]
    state = rules.setup(2, None, 4)
    assert rules.release_history(state) == (state, [])
    assert rules.released(state, None) == []
