"""How strong and how quick the computer players are: a round robin, and a rating per level.

Players are the computer levels (beginner, casual, strong) and opponents written from the
rules alone in bench/opponents.py ("greedy" in Colour Bazaar, "bidder" in Fantasy
Business), so a level is measured against a player that is not itself. For each table
(Colour Bazaar 2 players, Fantasy Business 4 players by orders) and each pair A-B, one
seat of A plays against B in every other seat; the seat of A rotates from game to game
and each game has its own seed (first player and deal change too). It prints A's win
share (a shared win counts its share) with a 95% Wilson interval, the equal share, the
issue's aims met or not, an Elo-like rating per player from every pairwise result of the
round robin (the bench opponent anchored at 1500), and the CPU milliseconds per decision
(median, p95, max), beside a bare baseline in the same run: a uniformly random legal move.

Games run in parallel on every core (--jobs); each decision's time is the CPU time of the
process that made it, so the figures do not depend on how many run at once.

    python bench/bots.py                   # the whole round robin at the default budgets
    python bench/bots.py --table Fantasy --pair strong-bidder --games 40
    python bench/bots.py --quick           # a smoke run, a minute or so
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import opponents, panel  # noqa: E402
from pbem.bots import STRONG_SIMULATIONS, Budget, choose, seeded_rng  # noqa: E402
from pbem.games import GAMES  # noqa: E402


@dataclass(frozen=True)
class Table:
    """One game and table size, the pairs played there and the aims for them."""

    label: str
    slug: str
    n: int
    options: dict[str, Any]
    pairs: tuple[tuple[str, str], ...]
    aims: dict[tuple[str, str], float]
    anchor: str


# Fantasy Business players written from the rules (bench/opponents.py, bench/panel.py).
PANEL = ("bidder", *panel.STYLES)
# Styles no tuning run plays against (--tuning leaves them out): the levels' figures
# against them say how the levels do against players they were not tuned on.
HELD_OUT = ("sniper", "discounter")

TABLES = [
    Table(
        "Colour Bazaar, 2 players",
        "colour-bazaar",
        2,
        {"courts": False},
        (
            ("strong", "casual"),
            ("strong", "greedy"),
            ("casual", "greedy"),
            ("casual", "beginner"),
            ("greedy", "beginner"),
            ("strong", "beginner"),
        ),
        {("strong", "casual"): 0.60, ("casual", "greedy"): 0.75},
        "greedy",
    ),
    Table(
        "Fantasy Business, 4 players, orders",
        "fantasy-business",
        4,
        {"auction": "orders"},
        (
            *((a, b) for a in ("strong", "casual", *PANEL) for b in ("casual", *PANEL) if a != b),
            ("casual", "beginner"),
            ("bidder", "beginner"),
            ("strong", "beginner"),
        ),
        {
            **{("strong", b): 0.50 for b in PANEL},
            **{("casual", b): 0.35 for b in PANEL},
            ("strong", "casual"): 0.55,
        },
        "bidder",
    ),
]
OPPONENTS = {
    "greedy": opponents.greedy,
    "bidder": opponents.bidder,
    **{style: panel.style_player(style) for style in panel.STYLES},
}
# Issue 35: CPU a decision, median and max for strong, median for casual.
STRONG_MEDIAN, STRONG_MAX, CASUAL_MEDIAN = 1.0, 2.0, 0.010


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
    table: Table, players: list[str], seed: int, sims: dict[str, int]
) -> tuple[list[int], dict[str, list[float]]]:
    """One whole game: its final scores and each player's CPU seconds per decision."""
    game = GAMES[table.slug]
    state = game.setup(table.n, table.options, seed)
    times: dict[str, list[float]] = {}
    while game.to_act(state):
        seat = game.to_act(state)[0]
        view = game.view(state, seat)
        legal = game.legal_moves(state, seat)
        rng = seeded_rng(seed, state["ply"], seat)
        player = players[seat]
        started = time.process_time()
        if player == "random":
            move = legal[rng.randrange(len(legal))]
        elif player in OPPONENTS:
            move = OPPONENTS[player](game, view, legal, rng)
        else:
            budget = Budget(player, sims[table.slug] if player == "strong" else None)
            move = choose(game, view, legal, rng, budget)
        times.setdefault(player, []).append(time.process_time() - started)
        state = game.apply(state, seat, move)
    outcome = game.outcome(state)
    assert outcome is not None
    return list(outcome.scores), times


def _play_job(job: tuple[Table, str, list[str], int, dict[str, int]]) -> tuple[Any, ...]:
    table, pair, players, seed, sims = job
    scores, times = play(table, players, seed, sims)
    return table.label, pair, tuple(players), scores, times


def ratings(results: list[tuple[str, str, float]], anchor: str) -> dict[str, float]:
    """Elo-like ratings (Bradley-Terry by minorisation-maximisation), `anchor` at 1500.

    Each result is (a, b, a's score: 1, 1/2 or 0). A player who never loses or never wins
    is pulled in by one drawn game against every other player (a weak prior), so every
    rating is finite.
    """
    players = sorted({p for a, b, _ in results for p in (a, b)})
    prior = [(a, b, 0.5) for a in players for b in players if a < b]
    wins = {p: 0.0 for p in players}
    games: dict[tuple[str, str], float] = {}
    for a, b, s in results + prior:
        wins[a] += s
        wins[b] += 1 - s
        key = (min(a, b), max(a, b))
        games[key] = games.get(key, 0.0) + 1
    strength = {p: 1.0 for p in players}
    for _ in range(2000):
        new = {}
        for p in players:
            denominator = sum(
                n / (strength[q] + strength[r]) for (q, r), n in games.items() if p in (q, r)
            )
            new[p] = wins[p] / denominator if denominator else strength[p]
        norm = new[anchor] if anchor in new else 1.0
        strength = {p: v / norm for p, v in new.items()}
    return {p: 1500 + 400 * math.log10(v) for p, v in strength.items()}


def pairwise(players: list[str], scores: list[int]) -> list[tuple[str, str, float]]:
    """Every pair of seats with different players in one game, and who came out ahead."""
    found = []
    for i in range(len(players)):
        for j in range(i + 1, len(players)):
            if players[i] != players[j]:
                a_score = 1.0 if scores[i] > scores[j] else 0.5 if scores[i] == scores[j] else 0.0
                found.append((players[i], players[j], a_score))
    return found


def ms(values: list[float]) -> str:
    """Median, p95 and max of decision times, in milliseconds."""
    if not values:
        return "-"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return (
        f"median {1000 * statistics.median(ordered):8.2f}  p95 {1000 * p95:8.2f}"
        f"  max {1000 * ordered[-1]:8.2f}"
    )


def met(value: float, aim: float, above: bool = True) -> str:
    """'met' or 'NOT met', for an aim printed beside its figure."""
    return "met" if (value >= aim if above else value <= aim) else "NOT met"


def main() -> None:
    """Play the round robin and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per pair, Colour Bazaar")
    parser.add_argument("--fb-games", type=int, default=300, help="games a pair, Fantasy")
    parser.add_argument("--cb-sims", type=int, default=STRONG_SIMULATIONS["colour-bazaar"])
    parser.add_argument("--fb-sims", type=int, default=STRONG_SIMULATIONS["fantasy-business"])
    parser.add_argument("--table", default="", help="only tables whose label contains this")
    parser.add_argument("--pair", default="", help="only pairs like strong-bidder")
    parser.add_argument("--first", default="", help="only pairs whose A is one of these (a,b)")
    parser.add_argument(
        "--tuning", action="store_true", help=f"leave the held-out styles out: {HELD_OUT}"
    )
    parser.add_argument("--seed", type=int, default=1000, help="the first game's seed")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes")
    parser.add_argument("--quick", action="store_true", help="2 games a pair, small budget")
    args = parser.parse_args()
    if args.quick:
        args.games, args.fb_games, args.cb_sims, args.fb_sims = 2, 2, 20, 4
    sims = {"colour-bazaar": args.cb_sims, "fantasy-business": args.fb_sims}
    print(
        f"strong budget: {args.cb_sims} simulations a decision in Colour Bazaar, "
        f"{args.fb_sims} in Fantasy Business (defaults {STRONG_SIMULATIONS}); "
        f"{args.games} games a pair in Colour Bazaar, {args.fb_games} in Fantasy Business; "
        f"{args.jobs} processes; times are the CPU time of the deciding process"
    )
    tables = [t for t in TABLES if args.table in t.label]
    jobs = []
    for table in tables:
        for a, b in table.pairs:
            if args.pair and args.pair != f"{a}-{b}":
                continue
            if args.first and a not in args.first.split(","):
                continue
            if args.tuning and (a in HELD_OUT or b in HELD_OUT):
                continue
            count = args.fb_games if table.slug == "fantasy-business" else args.games
            for k in range(count):
                seat_a = k % table.n
                players = [a if s == seat_a else b for s in range(table.n)]
                jobs.append((table, f"{a}-{b}", players, args.seed + k, sims))
        # The bare baseline: a random legal move, a few games' positions.
        jobs.extend((table, "random", ["random"] * table.n, 5000 + k, sims) for k in range(4))
    started = time.monotonic()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        done = list(pool.map(_play_job, jobs, chunksize=1))
    for table in tables:
        report(table, [d for d in done if d[0] == table.label])
    print(f"\nwall time {time.monotonic() - started:.0f} s")


def matrix(shares: dict[tuple[str, str], float]) -> None:
    """The win shares again as a grid: a row per A (one seat), a column per B (the rest)."""
    rows = list(dict.fromkeys(a for a, _ in shares))
    columns = list(dict.fromkeys(b for _, b in shares))
    if len(rows) < 2 or len(columns) < 2:
        return
    print("\nA's share, one A (row) against the others B (column); * held out")
    mark = {p: p + ("*" if p in HELD_OUT else "") for p in rows + columns}
    print(f"{'':12}" + "".join(f"{mark[b]:>12}" for b in columns))
    for a in rows:
        cells = [
            f"{100 * shares[a, b]:11.1f}%" if (a, b) in shares else f"{'-':>12}" for b in columns
        ]
        print(f"{mark[a]:12}" + "".join(cells))


def report(table: Table, done: list[tuple[Any, ...]]) -> None:
    """One table's win shares, aims, ratings and decision times."""
    print(
        f"\n{table.label}\n{'pair (one A, others B)':26} {'games':>5}  A's share [95%]   equal  aim"
    )
    times: dict[str, list[float]] = {}
    results: list[tuple[str, str, float]] = []
    for _, _, players, scores, spent in done:
        for player, values in spent.items():
            times.setdefault(player, []).extend(values)
        if "random" not in players:
            results.extend(pairwise(list(players), scores))
    shares: dict[tuple[str, str], float] = {}
    for a, b in table.pairs:
        wins, games = 0.0, 0
        for _, pair, players, scores, _ in done:
            if pair == f"{a}-{b}":
                seat = players.index(a)
                best = max(scores)
                if scores[seat] == best:
                    wins += 1 / scores.count(best)
                games += 1
        if not games:
            continue
        low, high = wilson(wins, games)
        share = shares[a, b] = wins / games
        aim = table.aims.get((a, b))
        aim_text = f">= {100 * aim:.0f}% {met(share, aim)}" if aim is not None else ""
        if b in HELD_OUT or a in HELD_OUT:
            aim_text += " (held out)"
        print(
            f"{a + ' vs ' + b:26} {games:5}  {100 * share:5.1f}%"
            f" [{100 * low:4.1f}-{100 * high:5.1f}]  {100 / table.n:4.1f}%  {aim_text}"
        )
    matrix(shares)
    if results:
        print("rating (Elo-like, from every pairwise result; " + table.anchor + " = 1500):")
        for player, rating in sorted(ratings(results, table.anchor).items(), key=lambda x: -x[1]):
            print(f"  {player:9} {rating:6.0f}")
    print("ms per decision (CPU):")
    for player in ("random", "beginner", "casual", "strong", *OPPONENTS):
        found = times.get(player, [])
        if not found:
            continue
        aim_text = ""
        if player == "strong":
            median, worst = statistics.median(found), max(found)
            aim_text = (
                f"  aim median <= {STRONG_MEDIAN:.0f} s {met(median, STRONG_MEDIAN, False)},"
                f" max <= {STRONG_MAX:.0f} s {met(worst, STRONG_MAX, False)}"
            )
        if player == "casual":
            aim_text = (
                f"  aim median <= 10 ms {met(statistics.median(found), CASUAL_MEDIAN, False)}"
            )
        print(f"  {player:9} {ms(found)}  ({len(found)} decisions){aim_text}")


if __name__ == "__main__":
    main()
