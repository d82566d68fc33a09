"""Fantasy Business limits read from the sales (pbem.bots.fb_reading)."""

from __future__ import annotations

import random

import pytest

from pbem.bots import Budget, choose, seeded_rng
from pbem.bots.fb_reading import HABITS, draw_limits, read_limits
from pbem.bots.fb_worth import card_values
from pbem.games import GAMES
from pbem.games.fantasy_business import engine
from pbem.games.fantasy_business.cards import base_price

GAME = GAMES["fantasy-business"]


def _all_in(state: dict, seat: int) -> list[int]:
    """Every écu held on every card it can pay the base price of."""
    money = state["money"][seat]
    return [money if base_price(c) <= money else 0 for c in state["row"]]


def _one_card(state: dict, seat: int) -> list[int]:
    """Its whole worth on the card it wants most, nothing on the others."""
    row, money = state["row"], state["money"][seat]
    values = card_values(state, seat, row)
    best = max(range(len(row)), key=lambda s: (values[s] - base_price(row[s]), -s))
    limits = [0] * len(row)
    if base_price(row[best]) <= money:
        limits[best] = min(money, int(values[best]))
    return limits


def _played(seed: int, rounds: int) -> dict:
    """A 4-player orders game after `rounds` rounds: seat 1 sends all it holds on every
    card, seat 2 goes for one card only, seats 0 and 3 play the casual level."""
    state = GAME.setup(4, {"auction": "orders"}, seed)
    while GAME.to_act(state) and state["round"] <= rounds:
        seat = GAME.to_act(state)[0]
        if engine.step_name(state) == "limits" and seat in (1, 2):
            limits = _all_in(state, seat) if seat == 1 else _one_card(state, seat)
            move = {"action": "limits", "limits": limits}
        else:
            view = GAME.view(state, seat)
            legal = GAME.legal_moves(state, seat)
            move = choose(GAME, view, legal, seeded_rng(seed, state["ply"], seat), Budget("casual"))
        state = GAME.apply(state, seat, move)
    return state


@pytest.mark.parametrize("seed", [3, 11, 29])
def test_a_seat_that_sends_all_it_holds_and_one_that_goes_for_one_card_are_told_apart(seed):
    state = _played(seed, 4)
    top = {seat: max(read_limits(state, seat))[1] for seat in (1, 2)}
    assert top == {1: "all", 2: "focus"}


def test_before_any_sale_every_habit_is_as_likely():
    state = GAME.setup(4, {"auction": "orders"}, 5)
    model = read_limits(state, 1)
    assert sorted(h for _, h, _ in model) == sorted(HABITS)
    assert {round(w, 6) for w, _, _ in model} == {0.25}


def test_the_reading_uses_what_every_seat_may_see():
    # A seat's view, dealt again, reads the same model for each rival as the whole state.
    state = _played(7, 3)
    for seat in range(4):
        dealt = GAME.deal(GAME.view(state, seat), seat, random.Random(1))
        for rival in range(4):
            assert read_limits(dealt, rival) == read_limits(state, rival)


def test_drawn_limits_are_limits_the_rules_accept():
    state = _played(13, 3)
    while engine.step_name(state) != "limits":
        seat = GAME.to_act(state)[0]
        view, legal = GAME.view(state, seat), GAME.legal_moves(state, seat)
        state = GAME.apply(state, seat, choose(GAME, view, legal, random.Random(2), "casual"))
    for seat in state["asked"]:
        for limits in draw_limits(state, seat, random.Random(4), 6):
            GAME.apply(state, seat, {"action": "limits", "limits": limits})  # raises if not
