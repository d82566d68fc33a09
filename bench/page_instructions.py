"""Instructions per seat page GET, counted by valgrind's callgrind, by subtraction.

A seat page's cost in CPU time moves with the machine's load; its count of instructions does
not. This script makes one SQLite database with a Colour Bazaar game and a four-player
Fantasy Business game replayed (fixed seed, random legal moves) to several plies, then, for
each page, runs a small Python process under callgrind twice: warm-up GETs and N1 GETs, then
warm-up GETs and N2 GETs through Flask's test client. (N2 - N1) GETs cost the difference of
the two totals, so start-up and imports drop out. Nothing is asserted.

Needs Debian's valgrind (`apt-get install valgrind`).

    python bench/page_instructions.py
    python bench/page_instructions.py --n1 2 --n2 12 --keep  # keeps the callgrind files
"""

# ruff: noqa: E402
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Scripts in bench/ must not shadow standard modules (bench/http.py and `http`).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

SECRET = "bench-page-instructions-a-fixed-key-of-32-bytes-or-more"
FB = "fantasy-business"
CB = "colour-bazaar"
CB_PLY = 16  # a two-player Colour Bazaar game half-way, seat 0 to move
FB_LATE = 97  # the late ply of issue 32's table
WARM_GETS = 3  # the first GETs fill the caches a running server has full
COLLECTED = re.compile(r"Collected : (\d+)")


def environment(scratch: Path) -> dict[str, str]:
    """The settings both the preparing and the measuring processes run with."""
    return {
        "PBEM_SECRET_KEY": SECRET,
        "PBEM_DATABASE_URL": f"sqlite:///{scratch / 'pages.sqlite3'}",
        "PBEM_MAIL_BACKEND": "file",
        "PBEM_MAIL_DIR": str(scratch / "mail"),
        "PBEM_BASE_URL": "http://127.0.0.1:8000",
        "PYTHONHASHSEED": "0",
    }


def script_of(rules: Any, players: int, seed: int) -> list[tuple[int, Any, str, int]]:
    """A whole game of random legal moves: (seat, move, turn token, round) for each ply."""
    state = rules.setup(players, rules.check_options(players, {}), seed)
    rng = random.Random(seed)
    script = []
    while rules.to_act(state):
        seat = rules.to_act(state)[0]
        move = rng.choice(rules.legal_moves(state, seat))
        script.append((seat, move, rules.turn_token(state, seat), state.get("round", 0)))
        state = rules.apply(state, seat, move)
    return script


def prepare(scratch: Path, seed: int) -> dict[str, str]:
    """Make the games; the seat-0 page path of each measured point, by label."""
    os.environ.update(environment(scratch))
    from pbem.games import GAMES
    from pbem.mailout.mailer import make_templates
    from pbem.mailout.notify import OutboxMail
    from pbem.moves import submit_move
    from pbem.play import Invitee, create_game, join
    from pbem.site import Site
    from pbem.storage.db import make_engine, migrate, write_session
    from pbem.storage.store import seats_of

    url = os.environ["PBEM_DATABASE_URL"]
    migrate(url)
    engine = make_engine(url)
    site = Site(
        secret=SECRET,
        base_url="http://127.0.0.1:8000",
        mail_templates=make_templates(),
        mail=OutboxMail(),
    )
    fb = script_of(GAMES[FB], 4, seed)
    end_of_round_1 = next(ply for ply, step in enumerate(fb) if step[3] > 1)
    late = min(FB_LATE, len(fb) - 1)

    # The same point of round 2 as the late ply is of its round, counted from the round's
    # end (the same step, the same plies still to come): what is left is the game's length.
    def end_of(rnd: int) -> int:
        return max(ply for ply, step in enumerate(fb) if step[3] == rnd)

    same = end_of(2) - (end_of(fb[late][3]) - late)
    points = [
        ("CB seat page", CB, 2, CB_PLY),
        ("FB seat page, ply 0", FB, 4, 0),
        (f"FB seat page, end of round 1 (ply {end_of_round_1})", FB, 4, end_of_round_1),
        (f"FB seat page, round 2 at the late ply's step (ply {same})", FB, 4, same),
        (f"FB seat page, ply {late}", FB, 4, late),
    ]
    paths: dict[str, str] = {}
    for number, (label, slug, players, ply) in enumerate(points):
        now = datetime.now(UTC)
        with write_session(engine) as session:
            people = [Invitee(f"P{i}", f"p{i}.{number}@bench.example") for i in range(players)]
            game = create_game(session, site, slug, people, {}, now, seed=seed)
            assert game.id is not None
            game_id = game.id
            for seat_no in range(1, players):
                join(session, site, game_id, seat_no, now)
            paths[label] = urlsplit(site.seat_url(seats_of(session, game)[0])).path
        script = fb if slug == FB else script_of(GAMES[slug], players, seed)
        for seat, move, token, _ in script[:ply]:
            with write_session(engine) as session:
                submit_move(session, site, game_id, seat, move, token, datetime.now(UTC))
    engine.dispose()
    return paths


def get(path: str, count: int) -> None:
    """The measured process: the app, WARM_GETS GETs of `path`, then `count` more."""
    from pbem import create_app

    client = create_app().test_client()
    for _ in range(WARM_GETS + count):
        answer = client.get(path)
        assert answer.status_code == 200, answer.status_code


def counted(scratch: Path, path: str, count: int, out: Path) -> int:
    """Instructions of one process that GETs `path` `count` times after the warm-up."""
    command = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out}",
        sys.executable,
        __file__,
        "--get",
        path,
        "--count",
        str(count),
    ]
    env = {**os.environ, **environment(scratch)}
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    found = COLLECTED.search(done.stderr)
    assert found, done.stderr[-2000:]
    return int(found.group(1))


def main() -> None:
    """Prepare the games, count each page at N1 and N2 GETs, print instructions per GET."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--n1", type=int, default=2)
    parser.add_argument("--n2", type=int, default=12)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    parser.add_argument("--only", help="only the pages whose label holds this text")
    parser.add_argument("--get", help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.get:
        get(args.get, args.count)
        return
    if not shutil.which("valgrind"):
        sys.exit("valgrind is missing: apt-get install valgrind")
    scratch = Path(tempfile.mkdtemp(prefix="pbem-bench-instr-"))
    try:
        # The games are made in a process of their own: the measured ones import nothing more.
        made = subprocess.run(
            [sys.executable, __file__, "--prepare-into", str(scratch), "--seed", str(args.seed)],
            capture_output=True,
            text=True,
            check=True,
        )
        paths: dict[str, str] = json.loads(made.stdout)
        if args.only:
            paths = {label: path for label, path in paths.items() if args.only in label}
        runs = [(label, n) for label in paths for n in (args.n1, args.n2)]
        with ThreadPoolExecutor(args.jobs) as pool:
            totals = dict(
                zip(
                    runs,
                    pool.map(
                        lambda run: counted(
                            scratch,
                            paths[run[0]],
                            run[1],
                            scratch / f"callgrind.{list(paths).index(run[0])}.{run[1]}",
                        ),
                        runs,
                    ),
                    strict=True,
                )
            )
        print(f"Instructions per seat page GET (callgrind, ({args.n2} - {args.n1}) GETs)")
        first = None
        for label in paths:
            per = (totals[label, args.n2] - totals[label, args.n1]) / (args.n2 - args.n1)
            if label.startswith("FB") and first is None:
                first = per
            ratio = f"  {per / first:.2f}x the first FB page" if label.startswith("FB") else ""
            print(f"{label:>60}  {per / 1e6:6.2f}M{ratio}")
        if args.keep:
            print(f"callgrind files in {scratch}")
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    if "--prepare-into" in sys.argv:
        where = Path(sys.argv[sys.argv.index("--prepare-into") + 1])
        seed = int(sys.argv[sys.argv.index("--seed") + 1])
        print(json.dumps(prepare(where, seed)))
    else:
        main()
