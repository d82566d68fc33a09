"""What a Fantasy Business seat page costs at several points of one game, in process.

Issue 15 asks that a page's cost not grow with the game's length, measured at ply 0 and
at the last ply (bench/throughput.py prints that ratio). Ply 0 is a table where nothing has
happened yet; this script shows where between the two the cost comes: one four-player
game (a fixed seed, random legal moves) is replayed into several games of a fresh SQLite
database, each stopped at another ply, and seat 0's page of each is fetched through the
Flask test client, the plies in turn, several rounds. Printed for each ply: the round,
the median CPU per GET, each round's figure, the page's size, and the ratio to ply 0 and
to the first ply after round 1. Beside them, a bare floor measured in the same rounds:
the same app answering its static favicon.svg. Nothing is asserted.

    python bench/pages.py
    python bench/pages.py --plies 0 10 20 40 80 --gets 200
"""

# ruff: noqa: E402
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

import argparse
import os
import random
import shutil
import statistics
import tempfile
import time
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

SLUG = "fantasy-business"


def script_of(rules: Any, seed: int) -> list[tuple[int, Any, str, int]]:
    """A whole game of random legal moves: (seat, move, turn token, round) for each ply."""
    state = rules.setup(4, rules.check_options(4, {}), seed)
    rng = random.Random(seed)
    script = []
    while rules.to_act(state):
        seat = rules.to_act(state)[0]
        move = rng.choice(rules.legal_moves(state, seat))
        script.append((seat, move, rules.turn_token(state, seat), state["round"]))
        state = rules.apply(state, seat, move)
    return script


def main() -> None:
    """Make the games, time their pages in turn, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--plies", type=int, nargs="*", help="default: 0, 12, 25, 50, 75, last")
    parser.add_argument("--gets", type=int, default=100, help="GETs per ply and round")
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="pbem-bench-pages-"))
    url = f"sqlite:///{scratch / 'pages.sqlite3'}"
    from bench.throughput import SECRET, make_site

    os.environ.update(
        PBEM_SECRET_KEY=SECRET,
        PBEM_DATABASE_URL=url,
        PBEM_MAIL_BACKEND="file",
        PBEM_MAIL_DIR=str(scratch / "mail"),
        PBEM_BASE_URL="http://127.0.0.1:8000",
    )
    from pbem import create_app
    from pbem.games import GAMES
    from pbem.moves import submit_move
    from pbem.play import Invitee, create_game, join
    from pbem.storage.db import make_engine, migrate, write_session
    from pbem.storage.store import seats_of

    try:
        migrate(url)
        app = create_app()
        client = app.test_client()
        site = make_site(8000)
        script = script_of(GAMES[SLUG], args.seed)
        last = len(script) - 1  # the last move would end the game
        plies = sorted({min(p, last) for p in (args.plies or [0, 12, 25, 50, 75, last])})
        engine = make_engine(url)
        paths: dict[int, str] = {}
        for number, ply in enumerate(plies):
            now = datetime.now(UTC)
            with write_session(engine) as session:
                people = [Invitee(f"P{i}", f"p{i}.{number}@bench.example") for i in range(4)]
                game = create_game(session, site, SLUG, people, {}, now, seed=args.seed)
                assert game.id is not None
                for seat_no in range(1, 4):
                    join(session, site, game.id, seat_no, now)
                paths[ply] = urlsplit(site.seat_url(seats_of(session, game)[0])).path
                game_id = game.id
            for seat, move, token, _ in script[:ply]:
                with write_session(engine) as session:
                    submit_move(session, site, game_id, seat, move, token, datetime.now(UTC))
        engine.dispose()

        def cost(path: str) -> tuple[float, int]:
            """CPU ms per GET of `path`, after a few untimed ones; and the answer's size."""
            for _ in range(10):
                client.get(path)
            start = time.process_time()
            for _ in range(args.gets):
                answer = client.get(path)
            assert answer.status_code == 200, (path, answer.status_code)
            return (time.process_time() - start) / args.gets * 1000, len(answer.data)

        runs: dict[Any, list[float]] = {ply: [] for ply in plies}
        runs["floor"] = []
        sizes: dict[Any, int] = {}
        for _ in range(args.rounds):
            for key in [*plies, "floor"]:
                ms, size = cost("/static/favicon.svg" if key == "floor" else paths[key])
                runs[key].append(ms)
                sizes[key] = size
        medians = {key: statistics.median(values) for key, values in runs.items()}
        after_first = next((p for p in plies if script[min(p, last)][3] > 1), plies[0])
        print(
            f"Fantasy Business, 4 players, seed {args.seed}: seat 0's page, CPU per GET in"
            f" process ({args.gets} GETs a ply, {args.rounds} rounds in turn)"
        )
        print(
            f"{'':>14} {'round':>5} {'median ms':>9}  {'each round':<28} {'bytes':>6}"
            f" {'/ ply 0':>7} {f'/ ply {after_first}':>9}"
        )
        for key in [*plies, "floor"]:
            label = "favicon.svg" if key == "floor" else f"ply {key}"
            rnd = "" if key == "floor" else str(script[min(key, last)][3])
            each = ", ".join(f"{v:.2f}" for v in runs[key])
            print(
                f"{label:>14} {rnd:>5} {medians[key]:9.2f}  {each:<28} {sizes[key]:6d}"
                f" {medians[key] / medians[plies[0]]:7.2f}"
                f" {medians[key] / medians[after_first]:9.2f}"
            )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
