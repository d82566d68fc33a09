"""What a game's review costs (pbem.bots.review): CPU seconds per review of one seat and
per decision reviewed, for Colour Bazaar with 2 players and Fantasy Business with 4 (the
orders auction), at the strong level's budget unless told otherwise.

The games are played by the casual level in every seat (quick, and a person's game has
as many decisions); each seat of each game is then reviewed in this process, timed by
its CPU time (time.process_time), so the figures do not depend on the machine's load.

    python bench/review.py                     # 3 games of each, every seat reviewed
    python bench/review.py --games 1 --simulations 8
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pbem.bots import decide  # noqa: E402
from pbem.bots.review import Played, Setup, review_seat, simulations_for  # noqa: E402
from pbem.games import GAMES  # noqa: E402

TABLES: list[tuple[str, str, int, dict[str, Any]]] = [
    ("Colour Bazaar, 2 players", "colour-bazaar", 2, {}),
    ("Fantasy Business, 4 players (orders)", "fantasy-business", 4, {"auction": "orders"}),
]


def played(slug: str, n: int, options: dict[str, Any], seed: int) -> tuple[Setup, list[Played]]:
    """A whole game of casual players, as the review reads it: setup and log."""
    game = GAMES[slug]
    checked = game.check_options(n, options)
    state = game.setup(n, checked, seed)
    log = []
    while game.to_act(state):
        seat = game.to_act(state)[0]
        move = decide(game, state, seat, "casual", seed)
        log.append(Played(seat, move))
        state = game.apply(state, seat, move)
    return Setup(n, checked, seed), log


def measure(slug: str, n: int, options: dict[str, Any], games: int, sims: int | None) -> None:
    """Review every seat of `games` games; print the CPU seconds per review and per decision."""
    game = GAMES[slug]
    per_review: list[float] = []
    per_decision: list[float] = []
    decisions: list[int] = []
    for seed in range(1, games + 1):
        setup, log = played(slug, n, options, seed)
        for seat in range(n):
            started = time.process_time()
            review = review_seat(game, setup, log, seat, sims)
            spent = time.process_time() - started
            per_review.append(spent)
            decisions.append(len(review.decisions))
            per_decision.append(spent / max(1, len(review.decisions)))
    print(f"  simulations per decision: {simulations_for(game, sims)}")
    print(f"  reviews: {len(per_review)} ({games} games), decisions each: "
          f"median {statistics.median(decisions):.0f}, max {max(decisions)}")  # fmt: skip
    print(f"  CPU seconds per review: median {statistics.median(per_review):.2f}, "
          f"max {max(per_review):.2f}")  # fmt: skip
    print(f"  CPU seconds per decision: median {statistics.median(per_decision):.3f}, "
          f"max {max(per_decision):.3f}")  # fmt: skip


def main() -> None:
    """Measure both tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="games per table (default 3)")
    parser.add_argument("--simulations", type=int, default=None,
                        help="per decision (default: the strong level's)")  # fmt: skip
    args = parser.parse_args()
    for label, slug, n, options in TABLES:
        print(label)
        measure(slug, n, options, args.games, args.simulations)


if __name__ == "__main__":
    main()
