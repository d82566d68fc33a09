"""bench/bots.py: its own opponents play legal whole games, and its ratings read right."""

from __future__ import annotations

import math
import random
import subprocess
import sys
from pathlib import Path

import pytest

from bench import opponents, panel
from bench.bots import HELD_OUT, PANEL, TABLES, pairwise, play, ratings, wilson
from pbem.games import GAMES
from pbem.games.colour_bazaar import score
from pbem.games.fantasy_business.cards import ARTICLE_BY_ID


@pytest.mark.parametrize(
    ("slug", "n", "options", "player"),
    [
        ("colour-bazaar", 2, {"courts": False}, opponents.greedy),
        ("colour-bazaar", 3, {"courts": True}, opponents.greedy),
        ("fantasy-business", 4, {"auction": "orders"}, opponents.bidder),
        (
            "fantasy-business",
            3,
            {"auction": "open", "specials": {"antitrust": 10}},
            opponents.bidder,
        ),
        ("fantasy-business", 4, {"auction": "sealed"}, opponents.bidder),
    ],
)
def test_the_bench_opponents_finish_games_with_legal_moves(slug, n, options, player):
    game = GAMES[slug]
    for seed in range(3):
        state = game.setup(n, options, seed)
        while game.to_act(state):
            seat = game.to_act(state)[0]
            view = game.view(state, seat)
            move = player(game, view, game.legal_moves(state, seat), random.Random(seed))
            state = game.apply(state, seat, move)  # IllegalMove if the rules refuse it
        assert game.outcome(state) is not None


@pytest.mark.parametrize("style", panel.STYLES)
def test_each_panel_player_finishes_orders_games_with_legal_moves(style):
    game, player = GAMES["fantasy-business"], panel.style_player(style)
    for seed in range(2):
        state = game.setup(4, {"auction": "orders"}, seed)
        while game.to_act(state):
            seat = game.to_act(state)[0]
            view = game.view(state, seat)
            move = player(game, view, game.legal_moves(state, seat), random.Random(seed))
            state = game.apply(state, seat, move)
        assert game.outcome(state) is not None


def test_the_panel_styles_send_different_limits_and_prices():
    game = GAMES["fantasy-business"]
    players = {style: panel.style_player(style) for style in panel.STYLES}
    players["bidder"] = opponents.bidder
    seen: dict[str, set] = {"limits": set(), "prices": set()}
    for seed in range(6):
        state = game.setup(4, {"auction": "orders"}, seed)
        while game.to_act(state) and state["round"] <= 4:
            seat = game.to_act(state)[0]
            view, legal = game.view(state, seat), game.legal_moves(state, seat)
            if legal[0]["action"] in seen and state["round"] >= 3:
                moves = {s: p(game, view, legal, random.Random(0)) for s, p in players.items()}
                for key, chosen in seen.items():
                    found = {repr(m.get(key)) for m in moves.values() if key in m}
                    if len(found) > 1:
                        chosen.add(len(found))
            state = game.apply(state, seat, opponents.bidder(game, view, legal, random.Random(1)))
    # Six styles: at least four distinct limit sets and three distinct price lists somewhere.
    assert max(seen["limits"]) >= 4 and max(seen["prices"]) >= 3
    assert set(HELD_OUT) < set(PANEL) and len(PANEL) >= 5


def test_the_greedy_player_takes_the_turn_that_scores_most_now():
    game = GAMES["colour-bazaar"]
    for seed in range(5):
        state = game.setup(2, {"courts": False}, seed)
        seat = game.to_act(state)[0]
        legal = game.legal_moves(state, seat)
        move = opponents.greedy(game, game.view(state, seat), legal, random.Random(0))

        def now(after, seat=seat):
            return score(after["markets"], after["chips"]).scores[seat]

        assert now(game.apply(state, seat, move)) == max(
            now(game.apply(state, seat, m)) for m in legal
        )


def test_the_bidder_prices_against_the_other_sellers():
    # Alone on an article: twice the base; shared: one under the cheapest rival's last price.
    game = GAMES["fantasy-business"]
    rng = random.Random(3)
    state = game.setup(4, {"auction": "orders"}, 11)
    checked = 0
    while game.to_act(state) and checked < 20:
        seat = game.to_act(state)[0]
        legal = game.legal_moves(state, seat)
        move = opponents.bidder(game, game.view(state, seat), legal, rng)
        if move["action"] == "prices":
            for article, price in move["prices"].items():
                base = ARTICLE_BY_ID[article].base
                rivals = [
                    s
                    for s in range(4)
                    if s != seat and any(c.startswith(article + "-") for c in state["articles"][s])
                ]
                if not rivals:
                    assert price == 2 * base
                else:
                    last = [state["last_prices"][s].get(article, 2 * base) for s in rivals]
                    assert price == max(base, min(2 * base, min(last) - 1))
                checked += 1
        state = game.apply(state, seat, move)
    assert checked >= 5


def test_ratings_recover_the_elo_gap_of_a_known_win_share():
    # Elo: a 75% expected score is a gap of 400 * log10(3), about 191 points.
    results = [("a", "b", 1.0)] * 750 + [("a", "b", 0.0)] * 250
    found = ratings(results, "b")
    assert found["b"] == pytest.approx(1500)
    assert found["a"] - found["b"] == pytest.approx(400 * math.log10(3), abs=3)


def test_ratings_stay_finite_for_a_player_who_never_lost():
    found = ratings([("a", "b", 1.0)] * 10 + [("b", "c", 0.5)] * 10, "c")
    assert all(math.isfinite(v) for v in found.values())
    assert found["a"] > found["b"] == pytest.approx(found["c"], abs=40)


def test_pairwise_results_count_only_seats_of_different_players():
    found = pairwise(["strong", "bidder", "bidder", "bidder"], [30, 31, 30, 10])
    assert found == [
        ("strong", "bidder", 0.0),
        ("strong", "bidder", 0.5),
        ("strong", "bidder", 1.0),
    ]


def test_wilson_interval_holds_the_share():
    low, high = wilson(30, 60)
    assert low < 0.5 < high and high - low < 0.3


def test_a_bench_game_is_the_same_every_run():
    table = TABLES[1]
    first = play(table, ["casual", "bidder", "bidder", "bidder"], 1000, {})
    again = play(table, ["casual", "bidder", "bidder", "bidder"], 1000, {})
    assert first[0] == again[0]


def test_the_quick_round_robin_prints_shares_aims_ratings_and_times():
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "bench/bots.py", "--quick", "--jobs", "1"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    for table in ("Colour Bazaar, 2 players", "Fantasy Business, 4 players, orders"):
        part = out.split(table, 1)[1]
        assert "strong vs casual" in part and "% [" in part
        assert "rating (Elo-like" in part and "aim median <= 1 s" in part
    assert "casual vs greedy" in out and "strong vs bidder" in out
