"""How long a game takes by mail: waits, moves and turn mails per game, through the interface.

Random complete games are played through the Game interface as a table answering by mail
would: in each wait, every seat the game waits on answers (a random legal move), and the
next wait begins. For each game, auction mode and number of players this prints:
  - waits per game: the times the table waits for someone (one answer a day makes it days);
  - moves per game;
  - mails per player: the times a seat newly has to act (a turn mail each), on average over
    the seats, and the most any seat got.
Each row is the mean over the same seeds, so two runs print the same figures.

    python bench/waits.py              # 40 games a row, a few seconds
    python bench/waits.py --games 200
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pbem.games import GAMES  # noqa: E402


@dataclass(frozen=True)
class Case:
    """One configuration to play."""

    slug: str
    mode: str
    players: int
    options: dict[str, Any] = field(default_factory=dict)


CASES: tuple[Case, ...] = (
    Case("colour-bazaar", "-", 2),
    Case("colour-bazaar", "-", 3),
    *(
        Case("fantasy-business", mode, n, {"auction": mode})
        for mode in ("orders", "open", "sealed")
        for n in (3, 4, 6, 8)
    ),
)


def play(case: Case, seed: int) -> tuple[int, int, list[int]]:
    """One random game by mail: its waits, its moves, and each seat's turn mails."""
    game = GAMES[case.slug]
    rng = random.Random(seed)
    state = game.setup(case.players, case.options, seed)
    mails = [0] * case.players
    due = set(game.to_act(state))
    for seat in due:
        mails[seat] += 1
    waits = moves = 0
    while due:
        waits += 1
        acted = set()
        # Every seat due at the start of the wait answers, if the game still waits on it.
        for seat in sorted(due):
            if seat in game.to_act(state):
                move = rng.choice(game.legal_moves(state, seat))
                state = game.apply(state, seat, move)
                acted.add(seat)
                moves += 1
        now = set(game.to_act(state))
        # A turn mail: a seat the game now waits on that it did not, or that has just acted.
        for seat in now:
            if seat not in due or seat in acted:
                mails[seat] += 1
        due = now
    return waits, moves, mails


def main(argv: list[str] | None = None) -> None:
    """Parse arguments, play, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per row (default 40)")
    args = parser.parse_args(argv)
    print(f"{args.games} random games a row, every due seat answering in each wait")
    print()
    print(
        f"{'game':<17} {'mode':<7} {'players':>7} {'waits/game':>11} {'moves/game':>11}"
        f" {'mails/player':>13} {'most mails':>11}"
    )
    for case in CASES:
        results = [play(case, seed) for seed in range(args.games)]
        waits = statistics.mean(r[0] for r in results)
        moves = statistics.mean(r[1] for r in results)
        per_player = statistics.mean(m for r in results for m in r[2])
        most = statistics.mean(max(r[2]) for r in results)
        print(
            f"{case.slug:<17} {case.mode:<7} {case.players:>7} {waits:>11.1f} {moves:>11.1f}"
            f" {per_player:>13.1f} {most:>11.1f}"
        )


if __name__ == "__main__":
    main()
