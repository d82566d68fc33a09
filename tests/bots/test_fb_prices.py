"""Fantasy Business prices against each rival's habits (pbem.bots.fb_prices)."""

from __future__ import annotations

from pbem.bots.fb_prices import best_price, habit_weights, likely_prices
from pbem.games.fantasy_business.income import earned

# Potions: base 6, so prices run from 6 to 12.
POTIONS = "potions"


def _round(prices: dict[int, int]) -> dict:
    """A finished round in which the seats in `prices` sold potions at those prices."""
    income: list[dict] = [{} for _ in range(3)]
    for seat, price in prices.items():
        income[seat][POTIONS] = {"price": price, "cards": 1}
    return {"income": income}


def test_a_lone_seller_asks_twice_the_base():
    assert best_price(6, 2, []) == 12


def test_matching_a_known_rival_beats_undercutting_them():
    # Spec, Income: equal prices all count as lowest, price + 2 a card; one under earns 1 less.
    assert earned(9, 9, 9, 1) == 11 and earned(8, 8, 9, 1) == 10 and earned(10, 9, 10, 1) == 0
    assert best_price(6, 1, [{9: 1.0}]) == 9


def test_a_doubtful_rival_is_met_at_the_safer_price():
    # Half the time 10, half 9: 9 earns 11 either way; 10 earns 12 or nothing.
    assert best_price(6, 1, [{10: 0.5, 9: 0.5}]) == 9


def test_a_rival_who_always_undercut_is_expected_to_undercut_again():
    # Seat 1 priced one under seat 0's last price three rounds running.
    history = [_round({0: 12, 1: 12}), _round({0: 10, 1: 11}), _round({0: 10, 1: 9})]
    history.append(_round({0: 9, 1: 9}))
    state = {"history": history}
    weights = habit_weights(state, 1)
    likely = likely_prices(state, 1, POTIONS, weights)
    assert max(likely, key=likely.get) == 8  # one under seat 0's last price, 9
    assert best_price(6, 1, [likely]) == 8


def test_a_rival_who_keeps_their_price_is_expected_to_keep_it():
    history = [_round({0: 7, 1: 11}), _round({0: 8, 1: 11}), _round({0: 9, 1: 11})]
    state = {"history": history}
    likely = likely_prices(state, 1, POTIONS, habit_weights(state, 1))
    assert max(likely, key=likely.get) == 11


def test_with_no_history_the_base_is_the_safe_answer():
    # Nothing shown yet: the floor and the ceiling are as likely; the base never earns 0.
    state = {"history": [{"income": None}]}
    likely = likely_prices(state, 1, POTIONS, habit_weights(state, 1))
    assert likely == {6: 0.5, 12: 0.5}
    assert best_price(6, 1, [likely]) == 6
