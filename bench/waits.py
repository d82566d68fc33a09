"""How long a game takes by mail: waits, moves and turn mails per game, through the interface.

Random complete games are played through the Game interface as a table answering by mail
would: in each wait, every seat the game waits on answers (a random legal move), and the
next wait begins. For each game, auction mode and number of players this prints:
  - waits per game: the times the table waits for someone (one answer a day makes it days);
  - moves per game;
  - mails per player: the times a seat newly has to act (a turn mail each), on average over
    the seats, and the most any seat got.
Each row is the mean over the same seeds, so two runs print the same figures.

Then the waits plans ahead save (issue 34): two-player Colour Bazaar games between casual
bots, once with no plans, once with each player leaving, with every move they make by
hand, a plan for the next two plies (their likely moves, as the casual bot guesses them
from what this player can see, each with the casual bot's answer). A wait is a move made
by hand (a turn mail answered); a move played ahead is not one.

    python bench/waits.py              # 40 games a row, a few seconds
    python bench/waits.py --games 200
    python bench/waits.py --quick      # 3 games a row: a smoke run
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

from pbem.bots import decide  # noqa: E402
from pbem.games import GAMES, GameError, ahead  # noqa: E402


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


GUESSES = 8  # imagined deals a player guesses the other's move from
BRANCHES = (6, 3)  # the likeliest moves a plan names, at its first and second level


def guesses(
    state: dict[str, Any], me: int, seed: int, keep: int
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The other's likeliest moves as `me` can guess them, each with a table it leads to:
    the casual bot's choice in a few deals of the cards `me` cannot see, most often chosen
    first (a face-down discard names no card, so a plan cannot name it)."""
    game = GAMES["colour-bazaar"]
    them = 1 - me
    counted: dict[str, list[Any]] = {}
    for k in range(GUESSES):
        rng = random.Random(seed * 1000 + state["ply"] * 10 + k)
        dealt = game.deal(game.view(state, me), me, rng)
        move = decide(game, dealt, them, "casual", (seed, k))
        if "discard" in move:
            continue
        key = repr(sorted(move.items()))
        if key not in counted:
            counted[key] = [0, move, game.apply(dealt, them, move)]
        counted[key][0] += 1
    ranked = sorted(counted.values(), key=lambda c: -c[0])
    return [(move, after) for _, move, after in ranked[:keep]]


def plan_for(state: dict[str, Any], me: int, seed: int) -> list[dict[str, Any]]:
    """A two-ply plan for `me`, the other to move: each guess with the casual answer to it
    from what `me` can see, and under it the guesses of their next move with my answers."""
    game = GAMES["colour-bazaar"]
    tree = []
    for theirs, after in guesses(state, me, seed, BRANCHES[0]):
        if after["over"]:
            continue
        mine = decide(game, after, me, "casual", seed)
        branch: dict[str, Any] = {"if": theirs, "then": mine, "next": []}
        later = game.apply(after, me, mine)
        if not later["over"]:
            for theirs2, after2 in guesses(later, me, seed, BRANCHES[1]):
                if not after2["over"]:
                    mine2 = decide(game, after2, me, "casual", seed)
                    branch["next"].append({"if": theirs2, "then": mine2})
        tree.append(branch)
    # What the server keeps (pbem.games.ahead): a branch it refuses is left out, a second
    # level it refuses (an answer with the card still to be drawn) dropped.
    kept = []
    for branch in tree:
        for candidate in (branch, {"if": branch["if"], "then": branch["then"]}):
            try:
                kept += ahead.check_plan(state, me, [candidate])
                break
            except GameError:  # ahead.BadPlan, or the rules refusing the imagined table
                continue
    return kept


def play_ahead(seed: int, plans: bool) -> tuple[int, int]:
    """One two-player game between casual bots: (waits, moves played ahead)."""
    game = GAMES["colour-bazaar"]
    state = game.setup(2, {}, seed)
    kept: list[list[dict[str, Any]]] = [[], []]
    waits = played_ahead = 0
    while not state["over"]:
        mover = state["turn"]
        move = decide(game, state, mover, "casual", seed)
        waits += 1
        state = game.apply(state, mover, move)
        if plans and not state["over"]:
            kept[mover] = plan_for(state, mover, seed)  # sent with the move, by reply
        # The chain the server plays (pbem.moves): each plan answering the move before.
        last = move
        while not state["over"]:
            seat = state["turn"]
            branch = ahead.branch_for(kept[seat], last) if kept[seat] else None
            if branch is None or branch["then"] not in game.legal_moves(state, seat):
                kept[seat] = []
                break
            state = game.apply(state, seat, branch["then"])
            kept[seat] = branch.get("next", [])
            last = branch["then"]
            played_ahead += 1
    return waits, played_ahead


def ahead_figures(games: int) -> None:
    """Print the waits per game with no plans and with both players planning two plies."""
    without = [play_ahead(seed, False)[0] for seed in range(games)]
    results = [play_ahead(seed, True) for seed in range(games)]
    with_plans = [r[0] for r in results]
    saved = 1 - statistics.mean(with_plans) / statistics.mean(without)
    print()
    print(f"Plans ahead: {games} two-player Colour Bazaar games between casual bots")
    print(f"{'plans':<28} {'waits/game':>11} {'played ahead/game':>18}")
    print(f"{'none':<28} {statistics.mean(without):>11.1f} {0:>18.1f}")
    print(
        f"{'both, next 2 plies':<28} {statistics.mean(with_plans):>11.1f}"
        f" {statistics.mean(r[1] for r in results):>18.1f}"
    )
    print(f"waits saved: {saved:.0%}")


def main(argv: list[str] | None = None) -> None:
    """Parse arguments, play, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per row (default 40)")
    parser.add_argument("--quick", action="store_true", help="3 games a row: a smoke run")
    args = parser.parse_args(argv)
    if args.quick:
        args.games = 3
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
    ahead_figures(args.games)


if __name__ == "__main__":
    main()
