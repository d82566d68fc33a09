"""Fantasy Business bots decide the same at every step when only hidden facts change.

The general honesty test (test_bots.py) samples positions at random; this one makes sure
every step a seat can be asked to act in is covered, in each auction mode: a bot that
read another seat's specials, secret limits, sealed bids or unrevealed prices, or the
draw pile, would answer twins of one view differently somewhere here.
"""

from __future__ import annotations

import random
from functools import cache

import pytest

from pbem.bots import LEVELS, decide
from pbem.games import GAMES
from pbem.games.base import State
from pbem.games.fantasy_business import engine
from tests.bots.positions import random_game

GAME = GAMES["fantasy-business"]
# Every step a seat may wait on, by auction mode (Spec, A round; Spec, Playing by mail).
STEPS = {
    "open": ("choose", "open", "single", "specials", "pricing"),
    "sealed": ("choose", "sealed", "single", "specials", "pricing"),
    "orders": ("order", "limits", "lists", "antitrust_limits", "pricing"),
}
# More Antitrust and Theft cards than the standard deck, so their steps come up often.
SPECIALS = {"antitrust": 10, "theft": 8}
PER_STEP = 3


@cache
def positions(mode: str) -> dict[str, tuple[State, ...]]:
    """Up to PER_STEP positions at each step of `mode`, from seeded random games."""
    found: dict[str, list[State]] = {step: [] for step in STEPS[mode]}
    for seed in range(40):
        n = 3 + seed % 2
        for state in random_game(
            "fantasy-business", n, {"auction": mode, "specials": SPECIALS}, seed
        ):
            if not GAME.to_act(state):
                continue
            step = engine.step_name(state)
            # A later position of a game is a better test: more history, more secrets held.
            if step in found and len(found[step]) < PER_STEP and state["round"] >= 1 + seed % 3:
                found[step].append(state)
        if all(len(v) == PER_STEP for v in found.values()):
            break
    return {step: tuple(states) for step, states in found.items()}


@pytest.mark.parametrize("mode", sorted(STEPS))
def test_every_step_of_every_mode_has_positions(mode):
    found = positions(mode)
    assert {step: len(states) for step, states in found.items()} == dict.fromkeys(
        STEPS[mode], PER_STEP
    )


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(("mode", "step"), [(m, s) for m, steps in STEPS.items() for s in steps])
def test_twins_of_one_view_get_the_same_decision(mode, step, level):
    changed = 0
    for state in positions(mode)[step]:
        # The seat the table waits on last: in simultaneous steps, others have sent secrets.
        seat = GAME.to_act(state)[-1]
        view = GAME.view(state, seat)
        move = decide(GAME, state, seat, level, "honest", simulations=6)
        for other in (1, 2):
            twin = GAME.deal(view, seat, random.Random(other))
            assert GAME.view(twin, seat) == view
            changed += twin != state
            assert decide(GAME, twin, seat, level, "honest", simulations=6) == move
        GAME.apply(state, seat, move)  # and the move is legal
    assert changed, "the twins must differ in what the seat cannot see"
