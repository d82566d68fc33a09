"""Glicko-2 against Glickman's worked example, and properties any rating update must keep."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.ratings.glicko2 import Result, Standing, idle, rate


def test_the_papers_worked_example() -> None:
    # "Example of the Glicko-2 system", section "Example calculation": a 1500/200/0.06
    # player beats a 1400/30 one, loses to 1550/100 and to 1700/300, with tau 0.5.
    after = rate(
        Standing(1500, 200, 0.06),
        [Result(1400, 30, 1), Result(1550, 100, 0), Result(1700, 300, 0)],
        tau=0.5,
    )
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_only_widens_the_deviation() -> None:
    after = rate(Standing(1612, 80, 0.06), [])
    assert after.rating == 1612 and after.volatility == 0.06
    # The paper: phi' = sqrt(phi^2 + sigma^2), on the Glicko-2 scale.
    assert after.deviation == pytest.approx(173.7178 * ((80 / 173.7178) ** 2 + 0.06**2) ** 0.5)
    assert after.deviation > 80


def test_a_draw_between_equals_changes_no_rating() -> None:
    after = rate(Standing(1500, 200, 0.06), [Result(1500, 200, 0.5)])
    assert after.rating == pytest.approx(1500)
    assert after.deviation < 200


ratings = st.floats(min_value=800, max_value=2600)
deviations = st.floats(min_value=30, max_value=350)
volatilities = st.floats(min_value=0.03, max_value=0.1)


@given(ratings, deviations, volatilities, ratings, deviations)
def test_a_win_never_lowers_and_a_loss_never_raises(
    rating: float, rd: float, vol: float, other: float, other_rd: float
) -> None:
    player = Standing(rating, rd, vol)
    won = rate(player, [Result(other, other_rd, 1)])
    lost = rate(player, [Result(other, other_rd, 0)])
    assert won.rating >= rating >= lost.rating
    assert won.rating > lost.rating


@given(
    ratings,
    st.floats(min_value=100, max_value=350),
    st.floats(-300, 300),
    deviations,
    st.sampled_from([0, 0.5, 1]),
)
def test_a_game_shrinks_an_unsettled_deviation(
    rating: float, rd: float, gap: float, other_rd: float, score: float
) -> None:
    # Against a settled player with a small RD, the volatility's growth can outweigh one
    # game's news; a player still being placed (RD 100 and up, the start's volatility)
    # against an opponent within 300 points always learns more than the period adds.
    after = rate(Standing(rating, rd, 0.06), [Result(rating + gap, other_rd, score)])
    assert after.deviation < rd


def test_idle_periods_widen_the_deviation_by_the_volatility_alone() -> None:
    settled = Standing(1620.0, 50.0, 0.06)
    assert idle(settled, 0) == settled
    year = idle(settled, 12)
    # sqrt((50 / 173.7178)^2 + 12 * 0.06^2) on the Glicko-2 scale, back on the Glicko scale.
    assert year.deviation == pytest.approx(61.67, abs=0.01)
    assert (year.rating, year.volatility) == (1620.0, 0.06)
