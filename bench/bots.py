"""How strong and how quick the computer players are: a round robin on one core.

For each game and table (Colour Bazaar 2 and 3 players, Fantasy Business 4 players) and
each pair of levels, one seat of the first level plays against the other level in every
other seat; the seats rotate from game to game (and each game has its own seed, so the
first player and the deal change too). It prints the games played, the first level's
win share (a shared win counts its share) with a 95% Wilson interval, against the equal
share, and for each level the milliseconds per decision (median and p95). A bare
baseline in the same run, a uniformly random legal move, gives the cost of just asking
for the legal moves and choosing.

Aims (issue 12): strong >= 60% against casual in 2-player Colour Bazaar; casual >= 75%
against beginner; in 4-player Fantasy Business one strong seat with three casual ones
wins >= 50% (twice the equal share).

    python bench/bots.py                     # the strong level at its default budget
    python bench/bots.py --games 40 --cb-sims 150 --fb-sims 60
    python bench/bots.py --quick             # a smoke run, a minute or so
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pbem.bots import STRONG_SIMULATIONS, Budget, choose, seeded_rng  # noqa: E402
from pbem.games import GAMES  # noqa: E402


@dataclass(frozen=True)
class Table:
    """One game and table size to play on."""

    label: str
    slug: str
    n: int
    options: dict[str, Any]


# Fantasy Business in its mail mode, the orders auction, where the engine has it.
_AUCTIONS = next(o.choices for o in GAMES["fantasy-business"].options if o.name == "auction")
_FB_MODE = "orders" if "orders" in _AUCTIONS else "open"
TABLES = [
    Table("Colour Bazaar, 2 players", "colour-bazaar", 2, {"courts": False}),
    Table("Colour Bazaar, 3 players", "colour-bazaar", 3, {"courts": False}),
    Table(f"Fantasy Business, 4 players, {_FB_MODE}", "fantasy-business", 4, {"auction": _FB_MODE}),
]
PAIRS = [("strong", "casual"), ("casual", "beginner"), ("strong", "beginner")]


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win share."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = p + z * z / (2 * games)
    spread = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    low = (centre - spread) / (1 + z * z / games)
    high = (centre + spread) / (1 + z * z / games)
    return max(0.0, low), min(1.0, high)


def play(
    table: Table, levels: list[str], seed: int, sims: dict[str, int], times: dict[str, list[float]]
) -> list[int]:
    """One whole game; the seats that won (shared first places all count)."""
    game = GAMES[table.slug]
    state = game.setup(table.n, table.options, seed)
    while game.to_act(state):
        seat = game.to_act(state)[0]
        view = game.view(state, seat)
        legal = game.legal_moves(state, seat)
        rng = seeded_rng(seed, state["ply"], seat)
        level = levels[seat]
        started = time.process_time()
        if level == "random":
            move = legal[rng.randrange(len(legal))]
        else:
            budget = Budget(level, sims[table.slug] if level == "strong" else None)
            move = choose(game, view, legal, rng, budget)
        times.setdefault(f"{table.slug} {level}", []).append(time.process_time() - started)
        state = game.apply(state, seat, move)
    outcome = game.outcome(state)
    assert outcome is not None
    return outcome.winners()


def ms(values: list[float]) -> str:
    """Median and p95 of decision times, in milliseconds."""
    if not values:
        return "-"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"median {1000 * statistics.median(ordered):8.2f}  p95 {1000 * p95:8.2f}"


def time_strong(table: Table, sims: int, decisions: int) -> list[float]:
    """CPU seconds of `decisions` strong decisions, on positions of casual games."""
    game = GAMES[table.slug]
    found: list[float] = []
    seed = 7000
    while len(found) < decisions:
        state = game.setup(table.n, table.options, seed)
        ply = 0
        while game.to_act(state) and len(found) < decisions:
            seat = game.to_act(state)[0]
            view, legal = game.view(state, seat), game.legal_moves(state, seat)
            rng = seeded_rng(seed, ply, seat)
            if ply % 5 == 0:
                started = time.process_time()
                choose(game, view, legal, rng, Budget("strong", sims))
                found.append(time.process_time() - started)
            state = game.apply(state, seat, choose(game, view, legal, rng, "casual"))
            ply += 1
        seed += 1
    return found


def main() -> None:
    """Play the round robin and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=24, help="games per pair, Colour Bazaar")
    parser.add_argument("--fb-games", type=int, default=12, help="games per pair, Fantasy Business")
    parser.add_argument("--cb-sims", type=int, default=STRONG_SIMULATIONS["colour-bazaar"])
    parser.add_argument("--fb-sims", type=int, default=STRONG_SIMULATIONS["fantasy-business"])
    parser.add_argument("--table", default="", help="only tables whose label contains this")
    parser.add_argument("--pair", default="", help="only pairs like strong-casual")
    parser.add_argument("--quick", action="store_true", help="4 games, small budget")
    parser.add_argument(
        "--decisions",
        type=int,
        default=0,
        help="only time this many strong decisions per table at the budget, no games",
    )
    args = parser.parse_args()
    if args.quick:
        args.games, args.fb_games, args.cb_sims, args.fb_sims = 4, 4, 20, 10
    sims = {"colour-bazaar": args.cb_sims, "fantasy-business": args.fb_sims}
    print(
        f"strong budget: {args.cb_sims} simulations a decision in Colour Bazaar, "
        f"{args.fb_sims} in Fantasy Business (defaults {STRONG_SIMULATIONS}); "
        f"{args.games} games per pair in Colour Bazaar, {args.fb_games} in Fantasy Business;"
        " times are CPU time of this one process"
    )
    if args.decisions:
        for table in TABLES:
            if args.table in table.label:
                found = time_strong(table, sims[table.slug], args.decisions)
                print(f"{table.label:40} strong {ms(found)}  ({len(found)} decisions)")
        return
    times: dict[str, list[float]] = {}
    started = time.monotonic()
    print(f"\n{'table':30} {'pair (one A, others B)':26} {'games':>5}  A's share [95%]   equal")
    for table in TABLES:
        if args.table not in table.label:
            continue
        for a, b in PAIRS:
            if args.pair and args.pair != f"{a}-{b}":
                continue
            wins = 0.0
            games = args.fb_games if table.slug == "fantasy-business" else args.games
            for k in range(games):
                seat_a = k % table.n
                levels = [a if s == seat_a else b for s in range(table.n)]
                winners = play(table, levels, 1000 + k, sims, times)
                if seat_a in winners:
                    wins += 1 / len(winners)
            low, high = wilson(wins, games)
            print(
                f"{table.label:30} {a + ' vs ' + b:26} {games:5}  "
                f"{100 * wins / games:5.1f}% [{100 * low:4.1f}-{100 * high:5.1f}]"
                f"  {100 / table.n:4.1f}%",
                flush=True,
            )
    # The bare baseline: a random legal move, the same games' positions.
    for table in TABLES:
        if args.table in table.label:
            for k in range(4):
                play(table, ["random"] * table.n, 5000 + k, sims, times)
    print("\nms per decision (CPU):")
    for slug in ("colour-bazaar", "fantasy-business"):
        for level in ("random", "beginner", "casual", "strong"):
            found = times.get(f"{slug} {level}", [])
            if found:
                print(f"  {slug:17} {level:9} {ms(found)}  ({len(found)} decisions)")
    print(f"\nwall time {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
