"""How long a move holds the database's write lock, beside a bare one-row insert.

In one process, on a fresh database (SQLite, and PostgreSQL when 15's binaries are
found or --pg-url is given), this plays whole two-player Colour Bazaar games move by
move and times each move's write transaction, from its first statement (BEGIN
IMMEDIATE on SQLite, the first row lock on PostgreSQL) to its COMMIT. Where pbem has
play.prepare_move and play.plan_move, the rules, clocks and mails are worked out
before the transaction and only play.write_move's writes run inside it (as the move
POST does); an older pbem runs the whole play.submit_move inside it. The baseline is
one INSERT in pbem's own write_session. Nothing here is asserted; the figures are
printed.

    python bench/lock.py                     # SQLite and a throwaway PostgreSQL
    python bench/lock.py --db sqlite --games 20
"""

# ruff: noqa: E402
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

import argparse
import inspect
import math
import os
import shutil
import tempfile
import time
from datetime import UTC, datetime

from sqlalchemy import insert

from bench.bare_app import ROWS, create_table
from bench.http import PG_BIN, Postgres, make_games, make_site
from pbem import play
from pbem.db import make_engine, migrate, read_session, write_session
from pbem.games import GAMES
from pbem.models import Game
from pbem.store import seats_of, table_of

RULES = GAMES["colour-bazaar"]
# Where plan_move plans in the caller's read session (it takes the table read there).
PLAN_IN_READ = (
    hasattr(play, "plan_move") and "table" in inspect.signature(play.plan_move).parameters
)


def pct(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)] if ordered else math.nan


def one_move(engine, site, game_id: int) -> tuple[float, float] | None:  # noqa: ANN001
    """Play the first legal move of the game's acting seat: (seconds the write transaction
    took, CPU seconds of the whole move, its read included), or None when the game is over."""
    cpu = time.process_time()
    now = datetime.now(UTC)
    with read_session(engine) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.state is not None
        acting = RULES.to_act(game.state)
        if not acting:
            return None
        seat = acting[0]
        move = RULES.legal_moves(game.state, seat)[0]
        token = RULES.turn_token(game.state, seat)
        count = len(seats_of(session, game))
        if PLAN_IN_READ:
            # As the move POST does: the rules, clocks and mails worked out before the lock,
            # in the session that read the game and its table.
            prepared = play.prepare_move(game, count, seat, move, token, "web")
            plan = play.plan_move(session, site, prepared, now, table_of(session, game_id, now))
    if PLAN_IN_READ or hasattr(play, "plan_move"):
        if not PLAN_IN_READ:  # an older tree: plan_move opened its own read session
            prepared = play.prepare_move(game, count, seat, move, token, "web")
            plan = play.plan_move(engine, site, prepared, now)
        start = time.perf_counter()
        with write_session(engine) as session:
            play.write_move(session, site, prepared, now, plan)
    elif hasattr(play, "prepare_move"):
        prepared = play.prepare_move(game, count, seat, move, token, "web")
        start = time.perf_counter()
        with write_session(engine) as session:
            play.write_move(session, site, prepared, now)
    else:
        start = time.perf_counter()
        with write_session(engine) as session:
            play.submit_move(session, site, game_id, seat, move, token, now)
    return time.perf_counter() - start, time.process_time() - cpu


def measure(name: str, url: str, games: int) -> None:
    """Play `games` games and time their writes, then as many bare inserts."""
    migrate(url)
    create_table(url)
    site = make_site(8000)
    made = make_games(url, site, games, first=1)
    engine = make_engine(url)
    try:
        writes: list[float] = []
        cpus: list[float] = []
        for game in made:
            while (took := one_move(engine, site, game.id)) is not None:
                writes.append(took[0])
                cpus.append(took[1])
        bare: list[float] = []
        bare_cpu: list[float] = []
        for number in range(len(writes)):
            cpu = time.process_time()
            start = time.perf_counter()
            with write_session(engine) as session:
                session.execute(
                    insert(ROWS).values(note=f"n{number}", created_at=datetime.now(UTC))
                )
            bare.append(time.perf_counter() - start)
            bare_cpu.append(time.process_time() - cpu)
    finally:
        engine.dispose()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"\n== {name}: write transaction per move, {len(writes)} moves of {games} games"
        f" (load average {load}) =="
    )
    path = "whole submit_move"
    if hasattr(play, "plan_move"):
        path = "planned write_move"
    elif hasattr(play, "prepare_move"):
        path = "write_move only"
    rows = (
        (f"move: write transaction ({path})", writes),
        ("bare one-row insert: transaction", bare),
        ("move: CPU of the whole move", cpus),
        ("bare one-row insert: CPU", bare_cpu),
    )
    for label, values in rows:
        ms = [v * 1000 for v in values]
        print(
            f"  {label:48} mean {sum(ms) / len(ms):6.2f} ms   p50 {pct(ms, 0.5):6.2f} ms"
            f"   p99 {pct(ms, 0.99):6.2f} ms"
        )


def main() -> None:
    """Parse the command line and measure each database."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=("sqlite", "pg", "both"), default="both")
    parser.add_argument("--pg-url", help="an existing scratch PostgreSQL database: it is WIPED")
    parser.add_argument("--games", type=int, default=10)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="pbem-bench-lock-"))
    try:
        if args.db in ("sqlite", "both"):
            measure("sqlite", f"sqlite:///{scratch / 'lock.sqlite3'}", args.games)
        if args.db in ("pg", "both"):
            if args.pg_url:
                measure("postgresql", args.pg_url, args.games)
            else:
                server = Postgres(PG_BIN)
                try:
                    server.start()
                    measure("postgresql", server.create_database("pbem_lock"), args.games)
                finally:
                    server.stop()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
