"""Fantasy Business limits and the answer to the rivals' read limits (pbem.bots.fb_limits)."""

from __future__ import annotations

import random

import pytest

from pbem.bots.fb_limits import answer_limits, order_limits, sale
from pbem.games import GAMES
from pbem.games.fantasy_business.cards import base_price, is_special

GAME = GAMES["fantasy-business"]


def _limits_step(seed: int, row_size: int = 2) -> dict:
    """A 4-player orders game at its first limits step, trimmed to a row of article cards."""
    state = GAME.setup(4, {"auction": "orders"}, seed)
    articles = [c for c in state["deck"] if not is_special(c)][:row_size]
    return dict(
        state,
        step="limits",
        row=articles,
        order=list(range(row_size)),
        first=0,
        money=[20, 20, 20, 20],
        asked=[0, 1, 2, 3],
        limits=[None] * 4,
    )


def test_the_highest_limit_wins_at_the_second_plus_one_and_a_winner_buys_no_more():
    state = _limits_step(5)
    a, b = (base_price(c) for c in state["row"])
    limits = {0: [a + 8, b], 1: [a + 6, 0], 2: [0, 0], 3: [0, 0]}
    # Seat 0 wins the first card; it may not buy the second, which nobody else wants.
    assert sale(state, limits) == [(0, 0, a + 7)]
    limits[1] = [a + 6, b + 1]
    assert sale(state, limits) == [(0, 0, a + 7), (1, 1, b)]


def test_equal_highest_limits_go_to_the_first_clockwise_from_the_first_buyer():
    state = dict(_limits_step(5), first=2)
    a = base_price(state["row"][0])
    limits = {0: [a + 3, 0], 1: [0, 0], 2: [0, 0], 3: [a + 3, 0]}
    assert sale(state, limits)[0] == (3, 0, a + 3)


@pytest.mark.parametrize("strong", [False, True])
def test_the_answer_is_a_set_of_limits_the_rules_accept(strong):
    for seed in range(6):
        state = _limits_step(seed, 3)
        answer = answer_limits(state, 0, random.Random(seed), strong)
        GAME.apply(state, 0, {"action": "limits", "limits": answer})  # raises if not


def test_with_nothing_to_read_and_no_rival_asked_the_answer_is_the_own_reckoning():
    state = dict(_limits_step(3, 3), asked=[0])
    assert answer_limits(state, 0, random.Random(1)) == order_limits(state, 0)
