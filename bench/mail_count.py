"""Instructions per mail the outbox sender spends, counted by valgrind's callgrind.

Each figure is a subtraction of two runs of this script under callgrind, from the same
database and the same warm-up: K moves each followed by a drain (or the moves and then one
drain of all their mail) minus the same K moves with no drain after the warm-up. What is
left is the sender's work for those moves' mail (claim, render, build, send to a backend
that keeps nothing, mark sent), divided by the mails it sent. The machine's load does not
change a count. Rows:

    cb-each    Colour Bazaar, 2 players, a drain after every move (one turn mail a drain)
    cb-batch   Colour Bazaar, the same moves, then one drain of all their mail
    fb-early   Fantasy Business, 4 players, a drain after every move, from ply 4
    fb-late    the same game from ply 80

    python bench/mail_count.py                 # every row, K = 6 (valgrind at /usr/bin)
    python bench/mail_count.py --rows fb-late --moves 10

Valgrind comes from Debian's package (apt-get install valgrind). Nothing is asserted.
"""

# ruff: noqa: E402
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Scripts run from bench/ must not see its modules as top-level ones (bench/http.py).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

import argparse
import json
import random
import re
import shutil
import subprocess
import tempfile
from datetime import UTC, datetime, timedelta
from typing import Any

from pbem.games import GAMES
from pbem.mailout.mailer import make_templates
from pbem.mailout.mime import Mail
from pbem.mailout.notify import OutboxMail
from pbem.mailout.sender import drain
from pbem.models import Game
from pbem.moves import submit_move
from pbem.play import Invitee, create_game, join
from pbem.site import Site
from pbem.storage.db import make_engine, migrate, write_session

CONFIG = {"MAIL_FROM": "pbem@localhost", "MAIL_FROM_NAME": "pbem", "SENDER_BATCH": 50}
WARM = 3  # moves, each with its drain, before the ones counted: compiling is not counted
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
ROWS = {
    "cb-each": ("colour-bazaar", 2, 2, True),
    "cb-batch": ("colour-bazaar", 2, 2, False),
    "fb-early": ("fantasy-business", 4, 4, True),
    "fb-late": ("fantasy-business", 4, 80, True),
}


class Keep:
    """A backend that takes every mail and keeps nothing: the count is the sender's."""

    sent = 0

    def send(self, mail: Mail) -> None:
        """Take the mail."""
        Keep.sent += 1

    def close(self) -> None:
        """Nothing is held open."""


def site() -> Site:
    """A Site as pbem/app.py builds it, with a fixed secret (the same bytes every run)."""
    return Site(
        secret="bench-mail-count",
        base_url="http://127.0.0.1:8000",
        mail_templates=make_templates(),
        mail=OutboxMail(),
        domain="localhost",
    )


def script(slug: str, players: int, seed: int) -> list[tuple[int, dict[str, Any], str]]:
    """A whole game's moves (seat, move, token), chosen by a seeded generator."""
    rules = GAMES[slug]
    state = rules.setup(players, rules.check_options(players, {}), seed)
    rng = random.Random(seed)
    moves = []
    while rules.to_act(state):
        seat = rules.to_act(state)[0]
        move = rng.choice(rules.legal_moves(state, seat))
        moves.append((seat, move, rules.turn_token(state, seat)))
        state = rules.apply(state, seat, move)
    return moves


def clock(step: int) -> datetime:
    """The time of move `step`: a minute apart, so every mail is due at its drain."""
    return START + timedelta(minutes=step)


def prepare(path: Path, slug: str, players: int, plies: int, seed: int = 7) -> None:
    """A database with one game of `slug` played to ply `plies`, its mail all sent."""
    url = f"sqlite:///{path}"
    migrate(url)
    engine = make_engine(url)
    place = site()
    with write_session(engine) as session:
        people = [Invitee(f"Joueur {i} Éloïse", f"p{i}@bench.example") for i in range(players)]
        game = create_game(session, place, slug, people, {}, clock(0), seed=seed)
        assert game.id is not None
        for seat in range(1, players):
            join(session, place, game.id, seat, clock(0))
    for step, (seat, move, token) in enumerate(script(slug, players, seed)[:plies], 1):
        with write_session(engine) as session:
            submit_move(session, place, game.id, seat, move, token, clock(step))
    drain(engine, place, Keep(), CONFIG, clock(plies) + timedelta(seconds=30))
    engine.dispose()


def measured(path: Path, slug: str, players: int, plies: int, moves: int, mode: str) -> int:
    """From the prepared database: WARM moves each with a drain (the warm-up), then `moves` moves,
    with a drain after each ("each"), one drain after all ("batch") or none ("none")."""
    engine = make_engine(f"sqlite:///{path}")
    place = site()
    with write_session(engine) as session:
        game_id = session.exec(Game.__table__.select()).first().id  # type: ignore[attr-defined]
    steps = script(slug, players, 7)[plies : plies + WARM + moves]
    for step, (seat, move, token) in enumerate(steps, plies + 1):
        with write_session(engine) as session:
            submit_move(session, place, game_id, seat, move, token, clock(step))
        if step <= plies + WARM or mode == "each":
            drain(engine, place, Keep(), CONFIG, clock(step) + timedelta(seconds=30))
    if mode == "batch":
        drain(engine, place, Keep(), CONFIG, clock(plies + WARM + moves + 1))
    engine.dispose()
    return Keep.sent


def count(command: list[str], scratch: Path) -> tuple[int, int]:
    """Instructions callgrind counted for `command`, and the mails it says it sent."""
    out = scratch / "callgrind.out"
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command],
        capture_output=True,
        text=True,
        check=True,
    )
    collected = re.search(r"Collected : (\d+)", done.stderr)
    assert collected is not None, done.stderr[-2000:]
    return int(collected.group(1)), int(done.stdout.strip().splitlines()[-1])


def main() -> None:
    """Prepare, count each row with and without the drains, print per mail."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", default=",".join(ROWS))
    parser.add_argument("--moves", type=int, default=6)
    parser.add_argument("--run", nargs=3, metavar=("DB", "ROW", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        db, row, mode = args.run
        slug, players, plies, _ = ROWS[row]
        print(measured(Path(db), slug, players, plies, args.moves, mode))
        return
    scratch = Path(tempfile.mkdtemp(prefix="pbem-mail-count-"))
    figures = {}
    try:
        for row in args.rows.split(","):
            slug, players, plies, each = ROWS[row]
            source = scratch / f"{row}.sqlite3"
            prepare(source, slug, players, plies)
            results = {}
            for mode in ("each" if each else "batch", "none"):
                copy = scratch / f"{row}-{mode}.sqlite3"
                shutil.copy(source, copy)
                me = [sys.executable, __file__, "--moves", str(args.moves)]
                results[mode] = count([*me, "--run", str(copy), row, mode], scratch)
            (work, sent), (bare, warm) = results.values()
            mails = sent - warm
            per = (work - bare) / max(mails, 1)
            figures[row] = {"mails": mails, "per_mail": per}
            print(f"{row:9} {mails:4} mails  {per / 1e6:6.2f}M instructions a mail", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
