"""A game's review (pbem.bots.review): each decision of a seat beside the strong level's,
judged from what the seat could see then, the same every time it is worked out."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest

from pbem.bots import bot_of, decide, seeded_rng
from pbem.bots.colour_bazaar import _turns
from pbem.bots.review import (
    LOSS_THRESHOLD,
    Played,
    Setup,
    decision_at,
    review_seat,
    states_before,
)
from pbem.bots.search import choice, search, search_root
from pbem.games import GAMES
from pbem.games.base import Game, State
from tests.bots.positions import sample_positions

FEW = 8  # simulations per decision: the tests check the bookkeeping, not the play
GAMES_UNDER_TEST = [
    ("colour-bazaar", 2, {"courts": True}, 11),
    ("fantasy-business", 3, {"auction": "orders"}, 5),
    ("fantasy-business", 3, {"auction": "sealed"}, 6),
]


@cache
def played_game(
    slug: str, n: int, options: tuple[tuple[str, Any], ...], seed: int
) -> tuple[Setup, tuple[Played, ...]]:
    """A whole game of casual players (their moves are quick and sensible)."""
    game = GAMES[slug]
    checked = game.check_options(n, dict(options))
    state = game.setup(n, checked, seed)
    log = []
    while game.to_act(state):
        seat = game.to_act(state)[0]
        move = decide(game, state, seat, "casual", seed)
        log.append(Played(seat, move, "timeout" if len(log) == 4 else "web"))
        state = game.apply(state, seat, move)
    return Setup(n, checked, seed), tuple(log)


def game_of(
    slug: str, n: int, options: dict[str, Any], seed: int
) -> tuple[Setup, tuple[Played, ...]]:
    """The game played once per test session (cached by its options as a tuple)."""
    return played_game(slug, n, tuple(sorted(options.items())), seed)


def test_search_plays_the_choice_its_root_statistics_give() -> None:
    # search is built on search_root: the same rng gives the same move (tests pin moves).
    for slug, state in sample_positions(24, seed=9):
        game = GAMES[slug]
        if not game.to_act(state):
            continue
        seat = game.to_act(state)[0]
        view, legal = game.view(state, seat), game.legal_moves(state, seat)
        bot = bot_of(game)
        move = search(bot, game, view, seat, legal, random.Random(4), FEW)
        children = search_root(bot, game, view, seat, legal, random.Random(4), FEW)
        if len(children) > 1:
            assert choice(bot, children).move == move
            assert sum(c.visits for c in children) == FEW


@pytest.mark.parametrize(("slug", "n", "options", "seed"), GAMES_UNDER_TEST)
def test_a_review_judges_every_move_the_seat_chose(slug, n, options, seed) -> None:
    game = GAMES[slug]
    setup, log = game_of(slug, n, options, seed)
    review = review_seat(game, setup, log, 1, FEW)
    states = states_before(game, setup, log)
    chosen = [
        ply
        for ply, played in enumerate(log)
        if played.seat == 1 and len(game.legal_moves(states[ply], 1)) > 1
    ]
    judged = [d.ply for d in review.decisions]
    assert set(judged) <= {ply for ply, p in enumerate(log) if p.seat == 1}
    assert set(chosen) <= set(judged)
    for decision in review.decisions:
        assert decision.played == log[decision.ply].move
        assert 0.0 <= decision.played_value <= 1.0 and 0.0 <= decision.best_value <= 1.0
        assert decision.loss >= 0.0
        if decision.agrees:
            assert decision.loss == 0.0 and decision.best_said == decision.played_said
        else:
            assert decision.loss == pytest.approx(
                max(0.0, decision.best_value - decision.played_value)
            )
        # Both moves in words, as the player was shown its own move before sending it.
        assert decision.played_said and decision.best_said
        game.apply(states[decision.ply], 1, decision.best)  # the strong move is legal
    # The move the timeout made is judged and said to be one.
    assert [d.source for d in review.decisions if d.ply == 4] in ([], ["timeout"])
    # The costliest moments: at most three, those that lost most, each above the threshold.
    worst = review.costliest()
    assert len(worst) <= 3
    assert all(d.loss > LOSS_THRESHOLD for d in worst)
    rest = [d.loss for d in review.decisions if d not in worst]
    assert all(d.loss >= max(rest, default=0.0) for d in worst)
    assert [d.loss for d in worst] == sorted((d.loss for d in worst), reverse=True)
    assert review.to_json()["costliest"] == [d.ply for d in worst]


def test_a_review_is_the_same_every_time_it_is_worked_out() -> None:
    slug, n, options, seed = GAMES_UNDER_TEST[0]
    game = GAMES[slug]
    setup, log = game_of(slug, n, options, seed)
    first = review_seat(game, setup, log, 0, FEW).to_json()
    assert review_seat(game, setup, log, 0, FEW).to_json() == first
    # Its rng is not the bots' own: a review does not replay the strong player's draws.
    assert seeded_rng(f"review:{seed}", 0, 0).random() != seeded_rng(seed, 0, 0).random()


def test_a_costly_move_is_found_and_an_agreeing_one_costs_nothing() -> None:
    # Late in a Colour Bazaar game (few cards left, so a few dozen simulations see clearly):
    # the turn the casual reckoning rates worst costs, the strong level's own costs nothing.
    slug, n, options, seed = GAMES_UNDER_TEST[0]
    game = GAMES[slug]
    setup, log = game_of(slug, n, options, seed)
    ply = 20
    state, seat = states_before(game, setup, log)[ply], log[ply].seat
    worst = _turns(state, seat)[-1][1]
    bad = decision_at(game, state, seat, ply, Played(seat, worst), seed, 60)
    assert bad is not None and not bad.agrees and bad.loss > LOSS_THRESHOLD
    strong = decision_at(game, state, seat, ply, Played(seat, bad.best), seed, 60)
    assert strong is not None and strong.agrees and strong.loss == 0.0


class ViewsOnly(Game):
    """The game as the review's search gets it, wrapped: every state it deals must come from
    a view the review asked of the real game for the seat reviewed."""

    def __init__(self, rules: Game, seat: int) -> None:
        self.rules, self.seat, self.views = rules, seat, []
        self.slug, self.title = rules.slug, rules.title

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rules, name)

    def view(self, state: State, seat: int | None, rounds: int | None = None) -> dict[str, Any]:
        assert seat == self.seat, "the review asked for another seat's view"
        view = self.rules.view(state, seat, rounds)
        self.views.append(view)
        return view

    def deal(self, view: dict[str, Any], seat: int, rng: random.Random) -> State:
        assert any(view is seen for seen in self.views), "the search was handed a state"
        return self.rules.deal(view, seat, rng)

    # The rest of the interface, passed through (Game's own raise NotImplementedError).
    def setup(self, n_players, options, seed):  # type: ignore[no-untyped-def]
        return self.rules.setup(n_players, options, seed)

    def to_act(self, state):  # type: ignore[no-untyped-def]
        return self.rules.to_act(state)

    def legal_moves(self, state, seat):  # type: ignore[no-untyped-def]
        return self.rules.legal_moves(state, seat)

    def apply(self, state, seat, move):  # type: ignore[no-untyped-def]
        return self.rules.apply(state, seat, move)

    def review(self, state, seat, move):  # type: ignore[no-untyped-def]
        return self.rules.review(state, seat, move)

    def is_over(self, state):  # type: ignore[no-untyped-def]
        return self.rules.is_over(state)


@pytest.mark.parametrize(("slug", "n", "options", "seed"), GAMES_UNDER_TEST)
def test_the_review_searches_from_the_seats_views_only(slug, n, options, seed) -> None:
    setup, log = game_of(slug, n, options, seed)
    wrapped = ViewsOnly(GAMES[slug], n - 1)
    review = review_seat(wrapped, setup, log, n - 1, 4)
    assert review.decisions and wrapped.views


@pytest.mark.parametrize(("slug", "n", "options", "seed"), GAMES_UNDER_TEST)
def test_twins_of_the_seats_view_get_the_same_review_of_a_decision(slug, n, options, seed) -> None:
    # At every decision of seat 1, the state is dealt again from its view (the others' hands,
    # the pile, secret limits, bids, lists and prices redrawn): the judgement is the same.
    game = GAMES[slug]
    setup, log = game_of(slug, n, options, seed)
    states = states_before(game, setup, log)
    differ = 0
    for ply, played in enumerate(log):
        if played.seat != 1:
            continue
        state = states[ply]
        judged = decision_at(game, state, 1, ply, played, seed, 4)
        twin = game.deal(game.view(state, 1), 1, random.Random(ply))
        assert game.view(twin, 1) == game.view(state, 1)
        differ += twin != state
        again = decision_at(game, twin, 1, ply, played, seed, 4)
        assert (again.to_json() if again else None) == (judged.to_json() if judged else None)
    assert differ, "the twins must differ in what the seat cannot see"
