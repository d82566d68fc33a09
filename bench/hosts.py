"""Mails/s, timeouts/s and computer moves/s with 1, 2 and 3 clock processes on PostgreSQL.

On a throwaway PostgreSQL server (pbem.devservers), for each kind of work and 1, 2 or 3
processes: the database is emptied; the processes start, each a clock with its own app
and engine, and run their job once on nothing (imports, connections); meanwhile the work
is made through pbem's lobby functions, fixed seeds: `--mails` queued mails (invitations
and start mails of three-player Colour Bazaar games), `--timeouts` games a day past the
deadline of the seat to move, or `--computers` games whose computer seat (`--level`) is
due. Then all run the clock's job at once until nothing is left for them: drain_outbox,
sweep_due or computer_moves of pbem.clock.scheduler (what `pbem clock` and `pbem
computers` run). The mail goes to an SMTP sink in a process of its own that answers each
mail `--delay` seconds late (50 ms); the mail that the timeouts and computer moves make,
to one that answers at once. Printed for each run: seconds from the start to the last
process done, items per second, speed-up against one process, the clocks' and
PostgreSQL's CPU seconds, the load, the split between processes, and the counts that say
each mail was received once at the sink, each timeout applied once, each computer move
made once. The issue's aim: mail >= 1.7x with 2 clocks, >= 2.3x with 3. Nothing is asserted.

    python bench/hosts.py            # 300 mails, 200 timeouts, 24 strong computer moves
    python bench/hosts.py --quick    # 30 mails, 20 timeouts, 8 casual moves; a smoke test
    python bench/hosts.py --quick --kinds mails --processes 1,2    # the test suite's smoke run
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
import contextlib
import multiprocessing
import os
import re
import shutil
import socket
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from aiosmtpd.controller import Controller
from sqlalchemy import create_engine, text
from sqlmodel import SQLModel

from bench.instructions import commit, machine
from pbem import create_app, play
from pbem.clock.scheduler import computer_moves, drain_outbox, sweep_due
from pbem.devservers import HOST, Postgres, free_port, pg_bin
from pbem.present.forms import TimeControl
from pbem.storage.db import migrate, write_session

SECRET = "bench-hosts-secret-of-at-least-32-bytes"
AIMS = {2: 1.7, 3: 2.3}  # mail speed-up against one clock (issue 33)
KINDS = ("mails", "timeouts", "computers")
SLUG = "colour-bazaar"
MESSAGE_ID = re.compile(rb"^Message-ID:\s*(\S+)", re.IGNORECASE | re.MULTILINE)


# --- the SMTP sink -------------------------------------------------------------------


class Sink:
    """An aiosmtpd handler that answers each mail `delay` seconds late and writes its
    Message-ID, one a line, to `log` (before answering: a mail answered is counted)."""

    def __init__(self, delay: float, log: Path) -> None:
        self.delay = delay
        self.log = open(log, "ab", buffering=0)  # noqa: SIM115 - open while the sink runs

    async def handle_DATA(self, server, session, envelope):  # noqa: ANN001, ANN201, N802
        await asyncio.sleep(self.delay)
        found = MESSAGE_ID.search(envelope.content)
        self.log.write((found.group(1) if found else b"-") + b"\n")
        return "250 OK"


def wait_for(port: int) -> None:
    """Return once something listens on `port` (the sink has started)."""
    for _ in range(600):
        with contextlib.suppress(OSError), socket.create_connection((HOST, port), timeout=1):
            return
        time.sleep(0.1)
    raise RuntimeError(f"the SMTP sink did not start on port {port}")


def serve_sinks(port: int, delay: float, log: Path, instant_port: int) -> None:
    """Run the slow sink on `port` and one that answers at once on `instant_port` until
    killed (a process of their own: their CPU is not the clocks')."""
    Controller(Sink(delay, log), hostname=HOST, port=port).start()
    Controller(Sink(0.0, log.with_suffix(".instant")), hostname=HOST, port=instant_port).start()
    while True:
        time.sleep(3600)


# --- the work, prepared --------------------------------------------------------------


def settings(url: str, scratch: Path, smtp_port: int) -> dict[str, Any]:
    """An app's settings on `url`: mail to a sink, computers without delay."""
    return {
        "SECRET_KEY": SECRET,
        "DATABASE_URL": url,
        "BASE_URL": "http://pbem.bench",
        "MAIL_DIR": str(scratch / "mail"),
        "MAIL_BACKEND": "smtp",
        "SMTP_HOST": HOST,
        "SMTP_PORT": smtp_port,
        "SMTP_TIMEOUT": 30.0,
        "TURN_MAIL_DELAY": 0.0,  # every mail due at once
        "COMPUTER_DELAY": 0.0,
    }


def sql(url: str, statement: str) -> Any:
    """Run one statement in a transaction of its own; the first value it returns, if any."""
    engine = create_engine(url)
    with engine.begin() as conn:
        result = conn.execute(text(statement))
        value = result.scalar() if result.returns_rows else None
    engine.dispose()
    return value


def empty(url: str) -> None:
    """Empty every table (the schema stays)."""
    names = ", ".join(f'"{t.name}"' for t in SQLModel.metadata.sorted_tables)
    sql(url, f"TRUNCATE {names} RESTART IDENTITY CASCADE")


def prepare(kind: str, count: int, app: Any, level: str) -> int:
    """Make `count` items of `kind` due now (mails: at least `count`); how many there are."""
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    # Begun four days ago for the timeouts (three days a move), an hour ago for the others.
    at = datetime.now(UTC).replace(microsecond=0) - timedelta(
        days=4 if kind == "timeouts" else 0, hours=1
    )
    seed = made = 0
    while made < count:
        seed += 1
        with write_session(engine) as session:
            if kind == "computers":
                # A person and a computer that moves first: one computer move, then the
                # person's turn, so each game makes exactly one.
                people = [
                    play.Invitee(f"P{seed}", f"p{seed}@bench.example"),
                    play.Invitee("", "", computer=level),
                ]
                options = {"first": 1}
            else:
                people = [
                    play.Invitee(f"P{seed}x{s}", f"p{seed}x{s}@bench.example")
                    for s in range(3 if kind == "mails" else 2)
                ]
                options = {"first": 0}
            # No reminders: in the timeouts' games only the timeouts are due.
            timing = TimeControl(reminders=[])
            game = play.create_game(session, site, SLUG, people, options, at, seed, timing)
            game_id = game.id or 0
        if kind != "computers":
            with write_session(engine) as session:
                for seat in range(1, len(people)):
                    play.join(session, site, game_id, seat, at)
        if kind == "mails":
            with engine.connect() as conn:
                made = conn.execute(text("SELECT count(*) FROM outbox")).scalar() or 0
        else:
            made += 1
    engine.dispose()
    return made


# --- the clocks ----------------------------------------------------------------------


def clock(kind: str, config: dict[str, Any], ready: Any, start: Any, results: Any, i: int) -> None:
    """One clock process: build its app and engine, run its job once on the empty database
    (imports, connections, first statements), wait for the work and the start, run it."""
    app = create_app(config)
    job = JOBS[kind]
    job(app)
    ready.wait()
    start.wait()
    cpu = time.process_time()
    done = job(app)
    results.put((i, done, time.process_time() - cpu, time.time()))


JOBS: dict[str, Callable[[Any], int]] = {
    "mails": lambda app: drain_outbox(app)["sent"],
    "timeouts": lambda app: sweep_due(app)["timeouts"],
    "computers": computer_moves,
}


@dataclass(frozen=True)
class Where:
    """The database and the two SMTP sinks (the slow one logs what it receives)."""

    url: str
    scratch: Path
    smtp_port: int
    instant_port: int
    sink_log: Path
    pg_pid: int | None = None  # the postmaster, whose reaped backends' CPU is the database's


def db_cpu(pid: int | None) -> float:
    """CPU seconds of the PostgreSQL backends that have ended so far (0 if unknown)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")  # cutime + cstime


@dataclass
class Run:
    """One timed run: how many processes, what each did, how long it all took."""

    kind: str
    processes: int
    prepared: int
    split: list[int]
    seconds: float
    check: str
    once: bool
    load: float  # the machine's 1-minute load average when it ended, ours included
    cpu: float  # the clocks' CPU seconds, all together
    db: float  # PostgreSQL's CPU seconds meanwhile

    def rate(self) -> float:
        """Items a second."""
        return sum(self.split) / self.seconds if self.seconds else 0.0


def check(kind: str, url: str, prepared: int, sink_log: Path) -> tuple[str, bool]:
    """Whether each item was handled exactly once, and the counts that say so."""
    if kind == "mails":
        ids = Counter(sink_log.read_bytes().split())
        sent = sql(url, "SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL")
        received, twice = sum(ids.values()), sum(1 for n in ids.values() if n > 1)
        ok = received == len(ids) == sent == prepared
        return f"{received} received, {len(ids)} distinct, {sent} marked sent, {twice} twice", ok
    source = "timeout" if kind == "timeouts" else "computer"
    counts = f"count(*) || ' {source} moves in ' || count(DISTINCT game_id) || ' games'"
    said = sql(url, f"SELECT {counts} FROM move WHERE source = '{source}'")
    return said, said == f"{prepared} {source} moves in {prepared} games"


def timed(kind: str, processes: int, size: int, args: argparse.Namespace, where: Where) -> Run:
    """Empty the database, start `processes` clocks, prepare the work while they wait,
    let them go together, wait for all; the run."""
    empty(where.url)
    # The timeouts' and computers' own mail goes to the sink that answers at once.
    port = where.smtp_port if kind == "mails" else where.instant_port
    config = settings(where.url, where.scratch, port)
    spawn = multiprocessing.get_context("spawn")
    ready, start = spawn.Barrier(processes + 1), spawn.Barrier(processes + 1)
    results = spawn.Queue()
    workers = [
        spawn.Process(target=clock, args=(kind, config, ready, start, results, i))
        for i in range(processes)
    ]
    for worker in workers:
        worker.start()
    ready.wait(timeout=120)
    prepared = prepare(kind, size, create_app(config), args.level)
    if kind != "mails":
        # Only the mail the timeouts and computer moves make is left for their clocks to send.
        sql(where.url, "UPDATE outbox SET sent_at = now() WHERE sent_at IS NULL")
    where.sink_log.write_bytes(b"")
    time.sleep(0.5)  # the preparation's backends ended: their CPU is not the run's
    db = db_cpu(where.pg_pid)
    start.wait(timeout=60)
    began = time.time()
    done = [results.get(timeout=900) for _ in workers]
    for worker in workers:
        worker.join(30)
    time.sleep(0.5)  # the clocks' backends ended with them
    db = db_cpu(where.pg_pid) - db
    split = [n for _, n, _, _ in sorted(done)]
    seconds = max(end for _, _, _, end in done) - began
    counts, once = check(kind, where.url, prepared, where.sink_log)
    load = os.getloadavg()[0]
    cpu = sum(used for _, _, used, _ in done)
    return Run(kind, processes, prepared, split, seconds, counts, once, load, cpu, db)


def bench(args: argparse.Namespace, where: Where) -> list[Run]:
    """Each kind asked for with each count of processes, each on freshly prepared work."""
    runs = []
    sizes = {"mails": args.mails, "timeouts": args.timeouts, "computers": args.computers}
    for kind in args.kinds:
        for processes in args.processes:
            run = timed(kind, processes, sizes[kind], args, where)
            print(f"  {kind} with {processes}: {run.seconds:.2f} s, split {run.split}", flush=True)
            runs.append(run)
    return runs


def report(runs: list[Run], args: argparse.Namespace) -> None:
    """The table, the counts and the aims."""
    print()
    print(
        f"{'':10} {'procs':>5} {'items':>6} {'seconds':>8} {'per s':>8} {'speed-up':>8}"
        f" {'CPU s':>6} {'db s':>5} {'load':>5}  {'split':16} counts"
    )
    one: dict[str, float] = {}
    for run in runs:
        one.setdefault(run.kind, run.rate())
        speed = run.rate() / one[run.kind] if one[run.kind] else 0.0
        split = "/".join(str(n) for n in run.split)
        verdict = "once ok" if run.once else "MISSED"
        print(
            f"{run.kind:10} {run.processes:>5} {sum(run.split):>6} {run.seconds:>8.2f}"
            f" {run.rate():>8.1f} {speed:>7.2f}x {run.cpu:>6.2f} {run.db:>5.2f} {run.load:>5.1f}"
            f"  {split:16} {run.check}: {verdict}"
        )
    print()
    mails = {run.processes: run.rate() for run in runs if run.kind == "mails"}
    for processes, aim in AIMS.items():
        if processes not in mails or 1 not in mails:
            continue  # not run this time (--kinds, --processes)
        speed = mails[processes] / mails[1] if mails[1] else 0.0
        label = f"mail speed-up, {processes} clocks"
        print(f"  {label:28} {speed:>6.2f}x   aim >= {aim}x {'ok' if speed >= aim else 'MISSED'}")
    bad = sum(1 for run in runs if not run.once)
    print(
        f"  {'each item handled once':28} {len(runs) - bad:>3}/{len(runs)}   aim all "
        f"{'ok' if not bad else 'MISSED'}"
    )
    print(
        f"  (the SMTP sink answers each mail {args.delay * 1000:.0f} ms late;"
        f" computer players: {args.level}; CPU s, db s: the clocks' and"
        f" PostgreSQL's CPU time;"
        f" load: the 1-minute load average at the end of the run, on {os.cpu_count()} CPUs)"
    )


def parse(argv: list[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mails", type=int, default=300, help="mails queued (at least)")
    parser.add_argument("--timeouts", type=int, default=200, help="games past their deadline")
    parser.add_argument("--computers", type=int, default=24, help="computer seats due")
    parser.add_argument("--level", choices=("beginner", "casual", "strong"), default="strong")
    parser.add_argument("--delay", type=float, default=0.05, help="seconds the sink takes a mail")
    parser.add_argument("--quick", action="store_true", help="small counts: a smoke test")
    parser.add_argument(
        "--kinds", type=lambda s: s.split(","), default=list(KINDS), help="e.g. mails,timeouts"
    )
    parser.add_argument(
        "--processes",
        type=lambda s: [int(n) for n in s.split(",")],
        default=[1, 2, 3],
        help="clock processes in each run, e.g. 1,2",
    )
    args = parser.parse_args(argv)
    unknown = set(args.kinds) - set(KINDS)
    if unknown:
        parser.error(f"unknown kinds {sorted(unknown)}: choose from {', '.join(KINDS)}")
    if args.quick:
        args.mails, args.timeouts, args.computers, args.level = 30, 20, 8, "casual"
    return args


def main(argv: list[str] | None = None) -> int:
    """Start PostgreSQL and the sink, run the bench, print; 2 without PostgreSQL."""
    args = parse(argv)
    bin_dir = pg_bin()
    if bin_dir is None:
        print("PostgreSQL's programs were not found (Debian: apt-get install postgresql)")
        return 2
    print(f"pbem at {commit()}, {machine()}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC", flush=True)
    scratch = Path(tempfile.mkdtemp(prefix="pbem-bench-hosts-"))
    server = Postgres(bin_dir, "-c fsync=off -c max_connections=200")
    where = Where("", scratch, free_port(), free_port(), scratch / "received.txt")
    sink = multiprocessing.get_context("spawn").Process(
        target=serve_sinks,
        args=(where.smtp_port, args.delay, where.sink_log, where.instant_port),
        daemon=True,
    )
    try:
        server.start()
        url = server.create_database("pbem_hosts")
        where = replace(where, url=url, pg_pid=server.postmaster())
        migrate(where.url)
        sink.start()
        for port in (where.smtp_port, where.instant_port):
            wait_for(port)
        print(f"PostgreSQL on {HOST}:{server.port}; SMTP sinks on {HOST}", flush=True)
        runs = bench(args, where)
        report(runs, args)
    finally:
        if sink.is_alive():
            sink.kill()
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
