"""What an idle watcher costs: the live page's stream (`pbem live`) against the 2.5 s poll
it replaces (issue 47), on SQLite and on PostgreSQL.

An idle watcher is a seat page left open on a game where nothing happens. Before issue 47
its script asked the WSGI app every 2.5 s how far the game had gone (24 polls a minute,
each marking the seat seen at most every 20 s: 21 reads and 3 writes a minute). Now the
page holds one stream at `pbem live`, which sends a comment every 25 s, reads the versions
of the games it has streams for every 0.5 s (SQLite only: PostgreSQL NOTIFYs) and marks its
open seats seen every 20 s in one statement; the WSGI app hears nothing from an idle page.

Measured here, natively (CPU time, not instructions: the stream's cost is spread over a
minute of waiting, which callgrind slows fifty-fold):
- one poll through the Flask app (its test client: no HTTP parsing, as a lower bound):
  the 200 with the JSON as before, the 304 the page now gets while the version holds, and
  the poll that also writes seen_at; for PostgreSQL the server's CPU per poll as well;
- `pbem live` as a process, with N streams open on N seats (two a game), idle for a minute:
  its CPU over that minute (utime + stime from /proc), for a small and a large N, so that
  the fixed part (the version reads) and the part per stream are told apart.
Printed: CPU per idle watcher-minute each way. Nothing is asserted.

    python bench/live.py                       # SQLite and PostgreSQL, 1000 watchers, 60 s
    python bench/live.py --watchers 200 --seconds 20 --databases sqlite   # a quick look
"""

# ruff: noqa: E402
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

import argparse
import asyncio
import http.client
import json
import os
import shutil
import subprocess
import tempfile
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlmodel import select

from bench.instructions import commit, machine
from pbem import create_app, play
from pbem.devservers import HOST, Postgres, free_port, pg_bin
from pbem.models import Seat
from pbem.storage.db import migrate, write_session

SECRET = "bench-live-secret-of-at-least-32-bytes"
POLLS_A_MINUTE = 24  # every 2.5 s
WRITES_A_MINUTE = 3  # seen_at, at most every 20 s
PBEM = [sys.executable, "-c", "from pbem.console import main; main()"]
TICK = os.sysconf("SC_CLK_TCK")


class Clock:
    """The app's clock, moved by hand: polls at one moment read, a moment 20 s on writes."""

    def __init__(self) -> None:
        self.now = datetime(2026, 12, 8, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def settings(url: str, scratch: Path) -> dict[str, Any]:
    return {
        "SECRET_KEY": SECRET,
        "DATABASE_URL": url,
        "BASE_URL": "http://127.0.0.1:8000",
        "MAIL_DIR": str(scratch / "mail"),
        "DEBUG": True,  # the file mail backend without its warning: nothing is mailed
    }


def seat_tokens(app: Any, games: int) -> list[str]:
    """`games` two-player games, started: every seat's link token."""
    ext = app.extensions["pbem"]
    now = app.config["CLOCK"]()
    tokens = []
    with write_session(ext["engine"]) as session:
        for n in range(games):
            people = [play.Invitee("Ana", f"a{n}@example.org"), play.Invitee("Léo", f"l{n}@x.org")]
            game = play.create_game(
                session, ext["site"], "colour-bazaar", people, {}, now, seed=4700 + n
            )
            play.join(session, ext["site"], game.id, 1, now)
            for seat in session.exec(select(Seat).where(Seat.game_id == game.id)):
                tokens.append(ext["site"].seat_url(seat).rsplit("/", 1)[1])
    return tokens


def cpu_of(pid: int, children: bool = False) -> float:
    """CPU seconds of a process (with `children`: of its reaped children, as PostgreSQL's
    ended backends are the postmaster's)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    first = 13 if children else 11  # cutime, cstime / utime, stime
    return (int(fields[first]) + int(fields[first + 1])) / TICK


def poll_costs(app: Any, tokens: list[str], rounds: int, pg: int | None) -> dict[str, float]:
    """CPU seconds per poll: 200 (as before), 304, and the poll that writes seen_at; with
    `pg` (the postmaster) the server's CPU per poll too."""
    client = app.test_client()
    clock = app.config["CLOCK"]
    engine = app.extensions["pbem"]["engine"]
    for token in tokens:  # every seat seen once: the polls below only read
        client.get(f"/p/{token}/ply")
    found: dict[str, float] = {}

    def timed(name: str, ask: Any, move_clock: bool = False) -> None:
        server = cpu_of(pg, children=True) if pg else 0.0
        for token in tokens:  # a round not timed here: the connection made, the caches warm
            ask(token)
        started = time.process_time()
        count = 0
        for _ in range(rounds):
            if move_clock:
                clock.now += timedelta(seconds=20)
            for token in tokens:
                ask(token)
                count += 1
        found[name] = (time.process_time() - started) / count
        if pg:
            engine.dispose()  # its backend ends: its CPU is counted as the postmaster's
            time.sleep(0.5)
            # The server's side of every poll its backend served, the untimed round too
            # (a backend's CPU is known once it has ended).
            found[f"{name} (server)"] = (cpu_of(pg, children=True) - server) / (count + len(tokens))

    etags = {t: client.get(f"/p/{t}/ply").headers["ETag"] for t in tokens}
    if pg:
        # The games just made vacuumed and analysed now, not by autovacuum while polls count.
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.exec_driver_sql("VACUUM ANALYZE")
        engine.dispose()  # that backend's CPU counted now, not with the first polls
        time.sleep(1)
    timed("poll 200", lambda t: client.get(f"/p/{t}/ply"))
    timed("poll 304", lambda t: client.get(f"/p/{t}/ply", headers={"If-None-Match": etags[t]}))
    timed("poll that writes seen_at", lambda t: client.get(f"/p/{t}/ply"), move_clock=True)
    return found


async def hold_streams(port: int, tokens: list[str], seconds: float, pid: int) -> float:
    """Open a stream per token, wait for each first event, then keep them idle `seconds`:
    the live process's CPU seconds over that time."""
    opened = []
    for token in tokens:
        reader, writer = await asyncio.open_connection(HOST, port)
        writer.write(f"GET /live/p/{token} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
        opened.append((reader, writer))
    for reader, _ in opened:
        await reader.readuntil(b"event: changed")
    await asyncio.sleep(2)  # the first marks of seen_at, written
    before = cpu_of(pid)

    async def drain(reader: asyncio.StreamReader) -> None:
        while await reader.read(4096):
            pass

    draining = [asyncio.create_task(drain(reader)) for reader, _ in opened]
    await asyncio.sleep(seconds)
    used = cpu_of(pid) - before
    for task in draining:
        task.cancel()
    for _, writer in opened:
        writer.close()
    return used


def stream_cost(env: dict[str, str], tokens: list[str], seconds: float, scratch: Path) -> float:
    """`pbem live` as a process with a stream per token: its CPU seconds over `seconds` idle."""
    port = free_port()
    log = open(scratch / f"live-{len(tokens)}.log", "wb")  # noqa: SIM115
    process = subprocess.Popen(
        [*PBEM, "live", "--host", HOST, "--port", str(port)], env=env, stdout=log, stderr=log
    )
    try:
        give_up = time.monotonic() + 60
        while True:
            try:
                conn = http.client.HTTPConnection(HOST, port, timeout=2)
                conn.request("GET", "/live/healthz")
                if json.loads(conn.getresponse().read())["listening"] is not False:
                    break
            except OSError:
                pass
            if time.monotonic() > give_up or process.poll() is not None:
                raise RuntimeError((scratch / f"live-{len(tokens)}.log").read_text())
            time.sleep(0.2)
        return asyncio.run(hold_streams(port, tokens, seconds, process.pid))
    finally:
        process.terminate()
        process.wait(30)
        log.close()


def bench(name: str, url: str, args: argparse.Namespace, scratch: Path, pg: int | None) -> None:
    migrate(url)
    clock = Clock()
    app = create_app({**settings(url, scratch), "CLOCK": clock})
    tokens = seat_tokens(app, args.watchers // 2)
    polls = poll_costs(app, tokens[:200], args.rounds, pg)
    app.extensions["pbem"]["engine"].dispose()
    env = {
        **os.environ,
        **{f"PBEM_{k}": str(v) for k, v in settings(url, scratch).items()},
        "PYTHONPATH": str(ROOT),
    }
    small = max(2, args.watchers // 50)
    used_small = stream_cost(env, tokens[:small], args.seconds, scratch)
    used_large = stream_cost(env, tokens, args.seconds, scratch)
    minute = 60 / args.seconds
    per_stream = (used_large - used_small) / (len(tokens) - small) * minute
    fixed = (used_small - per_stream * small / minute) * minute
    before = polls["poll 200"] * (POLLS_A_MINUTE - WRITES_A_MINUTE)
    before += polls["poll that writes seen_at"] * WRITES_A_MINUTE
    after = polls["poll 304"] * (POLLS_A_MINUTE - WRITES_A_MINUTE)
    after += polls["poll that writes seen_at"] * WRITES_A_MINUTE
    print(f"\n{name}: {len(tokens)} seats on {len(tokens) // 2} games")
    for what, cpu in polls.items():
        print(f"  {what:34} {cpu * 1e6:8.0f} µs of CPU")
    for count, used in ((small, used_small), (len(tokens), used_large)):
        label = f"pbem live, {count} idle streams"
        print(f"  {label:34} {used * minute:8.3f} s of CPU a minute")
    print("  per idle watcher-minute:")
    print(f"    2.5 s poll, as before (WSGI app)   {before * 1e3:8.2f} ms")
    print(f"    2.5 s poll answered 304 (fallback) {after * 1e3:8.2f} ms")
    print(f"    stream (pbem live; WSGI app: none) {per_stream * 1e3:8.3f} ms"
          f"  (+ {fixed * 1e3:.1f} ms a minute for the process)")  # fmt: skip
    if per_stream > 0:
        print(f"    the stream costs 1/{before / per_stream:.0f} of the poll")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--watchers", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rounds", type=int, default=5, help="polls of each of 200 seats")
    parser.add_argument("--databases", nargs="*", default=["sqlite", "postgresql"])
    args = parser.parse_args()
    print(f"pbem at {commit()}, {machine()}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
    scratch = Path(tempfile.mkdtemp(prefix="pbem-bench-live-"))
    try:
        if "sqlite" in args.databases:
            bench("SQLite", f"sqlite:///{scratch / 'pbem.sqlite3'}", args, scratch, None)
        if "postgresql" in args.databases:
            bin_dir = pg_bin()
            if bin_dir is None:
                print("PostgreSQL's programs were not found (Debian: apt-get install postgresql)")
                return 2
            server = Postgres(bin_dir, "-c fsync=off -c max_connections=200")
            try:
                server.start()
                url = server.create_database("pbem_live")
                bench("PostgreSQL", url, args, scratch, server.postmaster())
            finally:
                server.stop()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
