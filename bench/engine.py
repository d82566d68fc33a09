"""How fast the game engines run, on one core, beside a bare Python baseline.

For each case (a game, a number of players, options) this prints:
  - complete random games per second: every ply lists the legal moves and applies a
    random one, from setup to the end;
  - legal-move listings per second, over positions taken from random games;
  - scorings per second: outcome() on finished games.
A baseline measured in the same run (random.choice over a fixed list, and a dict copy)
turns the figures into ratios that hold from one machine to another. Each figure is the
best of several rounds, in CPU time, so a busy machine disturbs it little.

    python bench/engine.py            # about 25 s
    python bench/engine.py --quick    # about 2 s
    python bench/engine.py --seconds 60 --case "CB 3 players"

To measure another game, add a row to CASES.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pbem.games import GAMES  # noqa: E402
from pbem.games.base import Game, State  # noqa: E402


@dataclass(frozen=True)
class Case:
    """One configuration to measure."""

    label: str
    slug: str
    players: int
    options: dict[str, Any] = field(default_factory=dict)


CASES: tuple[Case, ...] = (
    Case("CB 2 players", "colour-bazaar", 2),
    Case("CB 3 players", "colour-bazaar", 3),
    Case("CB 3 players + Courts", "colour-bazaar", 3, {"courts": True}),
    Case("FB 4 players, orders", "fantasy-business", 4, {"auction": "orders"}),
    Case("FB 8 players, orders", "fantasy-business", 8, {"auction": "orders"}),
    Case("FB 4 players, open", "fantasy-business", 4, {"auction": "open"}),
    Case("FB 6 players, sealed", "fantasy-business", 6, {"auction": "sealed"}),
    Case("FB 8 players, open", "fantasy-business", 8, {"auction": "open"}),
)


def rate(work: Callable[[int], int], seconds: float) -> float:
    """Operations per second of `work(batch)`, which runs `batch` operations and returns
    how many it ran, over about `seconds`: the best of rounds of about a tenth of that.

    Times are the CPU time of this process, and the best round is kept: on a busy shared
    machine other processes slow some rounds down, and never speed one up.
    """
    batch = 1
    while True:
        start = time.process_time()
        done = work(batch)
        took = time.process_time() - start
        if took >= seconds / 10:
            break
        batch *= 2
    best, spent, rounds = done / max(took, 1e-9), took, 1
    while spent < seconds or rounds < 3:
        rounds += 1
        start = time.process_time()
        done = work(batch)
        took = time.process_time() - start
        spent += took
        best = max(best, done / max(took, 1e-9))
    return best


def play(game: Game, case: Case, seed: int, rng: random.Random) -> tuple[State, list[State]]:
    """One complete random game: its final state and every position on the way."""
    state = game.setup(case.players, case.options, seed)
    positions = []
    while acting := game.to_act(state):
        seat = rng.choice(acting)
        positions.append(state)
        state = game.apply(state, seat, rng.choice(game.legal_moves(state, seat)))
    return state, positions


def measure_case(case: Case, seconds: float) -> dict[str, float]:
    """Games, listings and scorings per second for one case, `seconds` each."""
    game = GAMES[case.slug]
    rng = random.Random(1)
    seeds = iter(range(10**9))

    def games(batch: int) -> int:
        for _ in range(batch):
            play(game, case, next(seeds), rng)
        return batch

    finished, positions = [], []
    for seed in range(50):
        end, seen = play(game, case, 10**6 + seed, rng)
        finished.append(end)
        positions.extend((state, game.to_act(state)[0]) for state in seen)

    def listings(batch: int) -> int:
        for i in range(batch):
            state, seat = positions[i % len(positions)]
            game.legal_moves(state, seat)
        return batch

    def scorings(batch: int) -> int:
        for i in range(batch):
            game.outcome(finished[i % len(finished)])
        return batch

    return {
        "games": rate(games, seconds),
        "listings": rate(listings, seconds),
        "scorings": rate(scorings, seconds),
    }


def measure_baseline(seconds: float) -> dict[str, float]:
    """Bare Python in the same run: random.choice over a fixed list, and a dict copy."""
    rng = random.Random(1)
    items = list(range(100))
    table = {f"key{i}": i for i in range(12)}

    def choices(batch: int) -> int:
        choice = rng.choice
        for _ in range(batch):
            choice(items)
        return batch

    def copies(batch: int) -> int:
        for _ in range(batch):
            dict(table)
        return batch

    return {"choice": rate(choices, seconds), "copy": rate(copies, seconds)}


def main(argv: list[str] | None = None) -> None:
    """Parse arguments, measure, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 2 s run, for a smoke test")
    parser.add_argument("--seconds", type=float, default=25.0, help="total time (default 25)")
    parser.add_argument("--case", action="append", help="measure only this case (repeatable)")
    args = parser.parse_args(argv)
    total = 2.0 if args.quick else args.seconds
    cases = [c for c in CASES if not args.case or c.label in args.case]
    if not cases:
        parser.error(f"no such case; choose from: {', '.join(c.label for c in CASES)}")
    # Three measurements per case, two for the baseline; setup plays a few games.
    each = total / (3 * len(cases) + 2) * 0.9

    print(f"Python {sys.version.split()[0]}, one core, {each:.2f} s per figure")
    base = measure_baseline(each)
    print(
        f"baseline: random.choice {base['choice']:>12,.0f}/s   dict copy {base['copy']:>12,.0f}/s"
    )
    print()
    header = f"{'case':<22} {'games/s':>9} {'ms/game':>8} {'listings/s':>11} {'scorings/s':>11}"
    ratio = f"{'choices/game':>13} {'choices/listing':>16} {'choices/scoring':>16}"
    print(header, ratio)
    for case in cases:
        got = measure_case(case, each)
        print(
            f"{case.label:<22} {got['games']:>9,.0f} {1000 / got['games']:>8.2f}"
            f" {got['listings']:>11,.0f} {got['scorings']:>11,.0f}"
            f" {base['choice'] / got['games']:>13,.0f}"
            f" {base['choice'] / got['listings']:>16,.1f}"
            f" {base['choice'] / got['scorings']:>16,.1f}"
        )
    print()
    print("choices/X: how many random.choice calls take as long as one X (lower is faster).")


if __name__ == "__main__":
    main()
