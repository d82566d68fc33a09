"""How long a move holds the database's write lock, beside a bare one-row insert.

In one process, on a fresh database (SQLite, and PostgreSQL when 15's binaries are
found or --pg-url is given), this plays whole two-player Colour Bazaar games move by
move and times each move's write transaction, from its first statement (BEGIN
IMMEDIATE on SQLite, the first row lock on PostgreSQL) to its COMMIT. As the move POST
does, moves.prepare_move and moves.plan_move work out the rules, clocks and mails
before the transaction and only moves.write_move's writes run inside it. The baseline is
one INSERT in pbem's own write_session. Between the two, as many moves of other games
are played the lean way (lean_move): the floor of a move in this stack, with nothing
pbem adds. Nothing here is asserted; the figures are printed.

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
import math
import os
import shutil
import tempfile
import time
from datetime import UTC, datetime

from sqlalchemy import bindparam, insert, select, update

from bench.bare_app import ROWS, create_table
from bench.throughput import PG_BIN, Postgres, make_games, make_site
from pbem import moves
from pbem.games import GAMES
from pbem.models import Game, Move, Outbox, Seat
from pbem.storage.db import make_engine, migrate, read_session, write_session

RULES = GAMES["colour-bazaar"]


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
        read = moves.read_table(session, game_id, now)
    state = read.game.state
    assert state is not None
    acting = RULES.to_act(state)
    if not acting:
        return None
    seat = acting[0]
    move = RULES.legal_moves(state, seat)[0]
    token = RULES.turn_token(state, seat)
    # As the move POST does: the rules, clocks and mails worked out before the lock.
    prepared = moves.prepare_move(read.game, len(read.seats), seat, move, token, "web")
    plan = moves.plan_move(site, read, prepared, now)
    start = time.perf_counter()
    with write_session(engine) as session:
        moves.write_move(session, site, prepared, plan, now)
    return time.perf_counter() - start, time.process_time() - cpu


GAME_T, MOVE_T, OUTBOX_T, SEAT_T = (
    Game.__table__,  # type: ignore[attr-defined]
    Move.__table__,  # type: ignore[attr-defined]
    Outbox.__table__,  # type: ignore[attr-defined]
    Seat.__table__,  # type: ignore[attr-defined]
)


# The lean move's statements, built once (as a server that cares would build them).
_LEAN_GAME = select(GAME_T.c.state, GAME_T.c.ply).where(GAME_T.c.id == bindparam("game"))
_LEAN_SEATS = (
    select(SEAT_T.c.player_id).where(SEAT_T.c.game_id == bindparam("game")).order_by(SEAT_T.c.seat)
)
_LEAN_MOVE_ON = (
    update(GAME_T)
    .where(GAME_T.c.id == bindparam("game"), GAME_T.c.ply == bindparam("at"))
    .values(
        state=bindparam("state", type_=GAME_T.c.state.type),
        ply=bindparam("next", type_=GAME_T.c.ply.type),
        updated_at=bindparam("now", type_=GAME_T.c.updated_at.type),
    )
)
_LEAN_LOG = insert(MOVE_T).values(
    {k: bindparam(k, type_=MOVE_T.c[k].type) for k in ("game_id", "ply", "seat", "move", "lines")}
    | {"source": "web", "created_at": bindparam("now", type_=MOVE_T.c.created_at.type)}
)
_OUTBOX_KEYS = ("game_id", "player_id", "seat", "ply", "extra", "headers", "message_id")
_LEAN_MAIL = insert(OUTBOX_T).values(
    {k: bindparam(k, type_=OUTBOX_T.c[k].type) for k in _OUTBOX_KEYS}
    | {k: "" for k in ("to_addr", "to_name", "subject", "body_text", "body_html")}
    | {
        "event": "your_turn",
        "attempts": 0,
        "created_at": bindparam("now", type_=OUTBOX_T.c.created_at.type),
        "next_attempt_at": bindparam("now", type_=OUTBOX_T.c.next_attempt_at.type),
    }
)


def lean_move(engine, game_id: int) -> tuple[float, float] | None:  # noqa: ANN001
    """The floor of a move in this stack: what any server must do for one, in SQLAlchemy
    Core with statements built once, no ORM, no clocks, no sign-in or CSRF, no webhooks and
    a mail row with no facts. Read the game and its seats; run the rules (apply, the log
    lines for each viewer, the outcome, as prepare_move does); then, in pbem's write
    transaction, the conditional UPDATE of the game, the move and one outbox row.
    (seconds the write transaction took, CPU seconds of the whole), or None when over."""
    cpu = time.process_time()
    now = datetime.now(UTC)
    with engine.connect() as conn:
        game = conn.execute(_LEAN_GAME, {"game": game_id}).one()
        seats = conn.execute(_LEAN_SEATS, {"game": game_id}).all()
        conn.rollback()
    state = game.state
    acting = RULES.to_act(state)
    if not acting:
        return None
    seat = acting[0]
    move = RULES.legal_moves(state, seat)[0]
    new_state = RULES.apply(state, seat, move)
    lines = {
        str(v): [m.to_json() for m in RULES.describe(state, seat, move, v)]
        for v in range(len(seats))
    }
    lines["watch"] = [m.to_json() for m in RULES.describe(state, seat, move, None)]
    outcome = RULES.outcome(new_state)
    after = RULES.to_act(new_state)
    start = time.perf_counter()
    with write_session(engine) as session:
        conn = session.connection()
        moved = {"game": game_id, "at": game.ply, "state": new_state, "next": game.ply + 1}
        done = conn.execute(_LEAN_MOVE_ON, moved | {"now": now})
        assert done.rowcount == 1
        logged = {"game_id": game_id, "ply": game.ply, "seat": seat, "move": move}
        conn.execute(_LEAN_LOG, logged | {"lines": lines, "now": now})
        if after and outcome is None:
            mail = {"game_id": game_id, "player_id": seats[after[0]].player_id}
            mail |= {"seat": after[0], "ply": game.ply + 1, "extra": {}, "headers": {}}
            mail |= {"message_id": f"<lean-{game_id}-{game.ply}@bench>", "now": now}
            conn.execute(_LEAN_MAIL, mail)
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
        lean: list[float] = []
        lean_cpu: list[float] = []
        for game in make_games(url, site, games, first=1 + games):
            while (took := lean_move(engine, game.id)) is not None:
                lean.append(took[0])
                lean_cpu.append(took[1])
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
    path = "planned write_move"
    rows = (
        (f"move: write transaction ({path})", writes),
        ("bare one-row insert: transaction", bare),
        ("lean move (the floor): write transaction", lean),
        ("move: CPU of the whole move", cpus),
        ("lean move (the floor): CPU of the whole move", lean_cpu),
        ("bare one-row insert: CPU", bare_cpu),
    )
    for label, values in rows:
        ms = [v * 1000 for v in values]
        print(
            f"  {label:52} mean {sum(ms) / len(ms):6.2f} ms   p50 {pct(ms, 0.5):6.2f} ms"
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
