"""Bots: they decide from the seat's view only, make legal moves, and finish whole games."""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.bots import LEVELS, Budget, choose, decide, seeded_rng
from pbem.games import GAMES
from pbem.games.base import State
from tests.bots.positions import SETUPS, actors, random_game, sample_positions

# The strong level searches with few simulations here, to keep the tests quick; the
# default budget is measured by bench/bots.py.
FEW = 6


@cache
def _game(index: int, seed: int) -> tuple[State, ...]:
    slug, n, options = SETUPS[index]
    return tuple(s for s in random_game(slug, n, options, seed) if GAMES[slug].to_act(s))


@settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    index=st.integers(0, len(SETUPS) - 1),
    seed=st.integers(0, 2),
    where=st.floats(0, 1, exclude_max=True),
    level=st.sampled_from(LEVELS),
    other=st.integers(0, 2**32),
)
def test_two_states_with_the_same_view_get_the_same_move(index, seed, where, level, other):
    slug = SETUPS[index][0]
    game = GAMES[slug]
    states = _game(index, seed)
    state = states[int(where * len(states))]
    seat = game.to_act(state)[0]
    view = game.view(state, seat)
    # Another state the seat cannot tell apart: hands, pile, secret bids and prices redrawn.
    twin = game.deal(view, seat, random.Random(other))
    assert game.view(twin, seat) == view
    move = decide(game, state, seat, level, "game-7", simulations=FEW)
    assert decide(game, twin, seat, level, "game-7", simulations=FEW) == move
    game.apply(state, seat, move)


def test_the_twins_do_differ_in_what_the_seat_cannot_see():
    # The honesty test above is only worth something if the twin states are different.
    differ = 0
    positions = sample_positions(90, seed=3)
    for slug, state in positions:
        game = GAMES[slug]
        if not game.to_act(state):
            continue
        seat = game.to_act(state)[0]
        twin = game.deal(game.view(state, seat), seat, random.Random(1))
        differ += twin != state
    assert differ >= 0.8 * len(positions)


@pytest.mark.parametrize("level", ["beginner", "casual"])
def test_bots_make_only_legal_moves(level):
    count = 0
    for slug, state in sample_positions(1000, seed=21, per_game=40):
        game = GAMES[slug]
        for seat in actors(slug, state):
            view = game.view(state, seat)
            move = choose(game, view, game.legal_moves(state, seat), random.Random(count), level)
            game.apply(state, seat, move)  # raises IllegalMove if the rules refuse it
            count += 1
    assert count >= 1000


def test_the_strong_bot_makes_only_legal_moves():
    count = 0
    for slug, state in sample_positions(150, seed=22):
        game = GAMES[slug]
        for seat in game.to_act(state)[:1]:
            rng = seeded_rng("strong", state["ply"], seat)
            view = game.view(state, seat)
            move = choose(game, view, game.legal_moves(state, seat), rng, Budget("strong", 3))
            game.apply(state, seat, move)
            count += 1
    assert count >= 120


def test_decisions_depend_on_the_seed_ply_and_seat_only():
    game = GAMES["colour-bazaar"]
    state = game.setup(2, {"courts": True}, 9)
    seat = game.to_act(state)[0]
    moves = {str(decide(game, state, seat, "strong", 41, simulations=20)) for _ in range(3)}
    assert len(moves) == 1
    assert seeded_rng(41, 3, 1).random() == seeded_rng(41, 3, 1).random()
    assert seeded_rng(41, 3, 1).random() != seeded_rng(41, 4, 1).random()
    assert seeded_rng(41, 3, 1).random() != seeded_rng(42, 3, 1).random()


LINEUPS = ["beginner", "casual", "strong"]


@pytest.mark.parametrize("index", range(len(SETUPS)))
def test_bots_finish_whole_games(index):
    slug, n, options = SETUPS[index]
    game = GAMES[slug]
    state = game.setup(n, options, index)
    levels = [LINEUPS[(index + s) % 3] for s in range(n)]
    if n > 5:
        # The strong level is covered by the smaller tables; here it would only be slow.
        levels = [lv if lv != "strong" else "casual" for lv in levels]
    moves = 0
    while game.to_act(state):
        seat = game.to_act(state)[0]
        move = decide(game, state, seat, levels[seat], index, simulations=2)
        state = game.apply(state, seat, move)
        moves += 1
        assert moves < 5000
    outcome = game.outcome(state)
    assert outcome is not None and len(outcome.scores) == n


def test_the_casual_bot_prices_a_monopoly_at_twice_the_base():
    # Spec, Income: a lone seller earns price + 2 a card; nobody undercuts it.
    game = GAMES["fantasy-business"]
    for state in random_game("fantasy-business", 4, {"auction": "open"}, 2):
        if state["step"] == "pricing":
            break
    seat = game.to_act(state)[0]
    held = [{c.rsplit("-", 1)[0] for c in a} for a in state["articles"]]
    move = choose(
        game, game.view(state, seat), game.legal_moves(state, seat), random.Random(0), "casual"
    )
    for article, price in move["prices"].items():
        alone = all(article not in held[s] for s in range(4) if s != seat)
        base = {
            "herbs": 2,
            "components": 3,
            "bows": 3,
            "swords": 4,
            "armour": 5,
            "horses": 5,
            "scrolls": 6,
            "potions": 6,
        }[article]
        if alone and seat not in state["effects"]["defaulting"]:
            assert price == 2 * base
