"""How many moves per second pbem takes over HTTP under gunicorn, beside a bare Flask baseline.

For each database (SQLite, PostgreSQL or both) this makes a fresh database, runs the
migrations, creates two-player Colour Bazaar games through pbem's Python API (create,
then the second seat joins), starts gunicorn on 127.0.0.1 with 2 workers (sync workers by
default, as in the Procfile, with its access log) and lets concurrent simulated players
play whole games over HTTP. Each player is a thread with its own connection (http.client)
that owns its games and plays both seats in turn: GET the seat page, read the turn form
(hidden turn and csrf fields, the first card play and the first chip offered), then POST
the move with confirm=1. Every move must be answered 303; anything else is an error.
Only the POST is timed as a move; the page GET is timed on its own line, and moves per
second are over the wall time of the whole play, page GETs included. --post-only skips
the page before each move (the players keep the game in step with pbem.games from its
seed and read each seat's page once, for its form token), to price the move POST alone.
--think makes players pause between page and move, for latencies below saturation.

Afterwards SQL checks the move log: no (game, ply) twice, game.ply equals the number of
logged moves, every game replays from its seed, and every 303 has its move in the log.
A Fantasy Business seat page is timed at ply 0 and at the last ply of a long game, the
two in turn twice, for the ratio of their server CPU per GET (aim: at most 1.3).
pbem's outbox sender runs beside the play in a process of its own, as in the clock
process, draining every 0.2 s into files: its rate, its largest backlog (how long the
oldest mail waited) and its CPU per mail are printed. With --sender-after it waits for
the end of the play and then sends the play's mail in one drain, so that the ratio prices
the move alone, as if the sender had cores of its own (its backlog is then the play's).

Then, with the same gunicorn settings and the same number of concurrent clients, a bare
Flask app (bench/bare_app.py) is measured: GET /bare (no database) and POST /insert (one
row in one write transaction, through pbem.storage.db's engine and write_session). The headline
is moves per second divided by bare inserts per second (aim: at least 0.5), beside the
p99 of the move POST (aim: at most 50 ms with 20 players), errors and duplicates (aim: 0).

CPU is read from /proc around each phase: the gunicorn master and workers, the PostgreSQL
server when this script started it, this client process, and the whole machine. It is
shown per request, with the share of the machine that other processes took meanwhile
("others busy"): rates and latencies mean little when that share is high, while the CPU
per request, and the ratio computed from it, hold up better.

Without --pg-url, PostgreSQL is a throwaway server (initdb in a temporary directory,
default durability settings, 127.0.0.1 only) that is stopped and deleted at the end.

    python bench/throughput.py                  # SQLite and PostgreSQL, about a minute
    python bench/throughput.py --quick          # 5 players, a few seconds per phase
    python bench/throughput.py --db sqlite --post-only --think 0.5
    python bench/throughput.py --db pg --pg-url postgresql+psycopg://localhost/scratch  # WIPES
"""

# ruff: noqa: E402
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# `python bench/throughput.py` puts bench/ first on the path: take it off, so that no bench
# script can hide a standard module, and reach the others as bench.* (a namespace package).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

import argparse
import contextlib
import html
import http.client
import inspect
import json
import math
import multiprocessing
import os
import random
import re
import secrets
import shutil
import signal
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode, urlsplit

from sqlalchemy import MetaData, create_engine, text
from sqlmodel import select

from bench.bare_app import create_table
from pbem.devservers import HOST, Postgres, free_port, gunicorn, pg_bin
from pbem.games import GAMES
from pbem.mailout.mailer import FileBackend, make_templates
from pbem.mailout.notify import OutboxMail
from pbem.mailout.sender import drain
from pbem.models import Game
from pbem.moves import submit_move
from pbem.play import Invitee, create_game, join, replay_problem
from pbem.site import Site
from pbem.storage.db import make_engine, migrate, read_session, write_session
from pbem.storage.store import seats_of

SLUG = "colour-bazaar"
RULES = GAMES[SLUG]
PG_BIN = pg_bin() or Path("/usr/lib/postgresql/15/bin")
SECRET = "bench-http-" + secrets.token_hex(16)
CLK_TCK = os.sysconf("SC_CLK_TCK")
MAX_PLIES = 500  # a bound on the turns of one game, far above Colour Bazaar's 30
MAX_FAILURES = 3  # failed requests in a row before a player gives a game up
READY_TIMEOUT = 60.0
READY_ANSWERS = 4
REQUEST_TIMEOUT = 30.0
MOVE_FORM = re.compile(r'<form method="post" action="[^"]*/move"[^>]*>(.*?)</form>', re.S)
INPUT = re.compile(r'<input type="(hidden|radio)" name="(\w+)" value="([^"]*)"')


# --- measuring ---------------------------------------------------------------------


@dataclass
class Tally:
    """Latencies (ms) of the successful requests of one kind, and the failures by reason."""

    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)

    def add(self, other: Tally) -> None:
        """Fold another tally into this one."""
        self.latencies.extend(other.latencies)
        self.errors.update(other.errors)

    @property
    def count(self) -> int:
        """Successful requests."""
        return len(self.latencies)

    def pct(self, q: float) -> float:
        """The q-quantile of the latencies (nearest rank), NaN when there are none."""
        if not self.latencies:
            return math.nan
        ordered = sorted(self.latencies)
        return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


@dataclass
class Row:
    """One line of the result table."""

    label: str
    tally: Tally
    wall: float
    usage: Usage = field(default_factory=lambda: Usage())
    load: float = math.nan  # the machine's 1-minute load average when the phase ended
    players: float = math.nan  # CPU seconds of this script's player threads, when known

    @property
    def rate(self) -> float:
        """Successful requests per second of wall time."""
        return self.tally.count / self.wall if self.wall > 0 else math.nan

    def cpu_ms(self, seconds: float) -> float:
        """CPU milliseconds per successful request."""
        return seconds * 1000 / self.tally.count if self.tally.count else math.nan

    @property
    def others(self) -> float:
        """The share of the machine's CPU that other processes used meanwhile."""
        u = self.usage
        ours = u.server + u.client + (0.0 if math.isnan(u.database) else u.database)
        capacity = self.wall * (os.cpu_count() or 1)
        if math.isnan(u.machine) or capacity <= 0:
            return math.nan
        return max(0.0, u.machine - ours) / capacity

    @property
    def cpu_total_ms(self) -> float:
        """Server, database and client CPU milliseconds per successful request."""
        u = self.usage
        spent = u.server + u.client + (0.0 if math.isnan(u.database) else u.database)
        return self.cpu_ms(spent)


def timed(
    conn: http.client.HTTPConnection,
    method: str,
    path: str,
    body: str | None = None,
    content_type: str = "application/x-www-form-urlencoded",
):
    """(status, headers, body text, milliseconds) of one request on `conn`."""
    headers = {"Content-Type": content_type} if body is not None else {}
    start = time.perf_counter()
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    data = response.read()
    elapsed = (time.perf_counter() - start) * 1000
    return response.status, response.headers, data.decode("utf-8", "replace"), elapsed


def proc_cpu(pid: int) -> tuple[float, float, int]:
    """(own CPU, CPU of reaped children, parent pid) of a process, in seconds."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0, 0.0, 0
    fields = raw[raw.rindex(")") + 2 :].split()
    own = (int(fields[11]) + int(fields[12])) / CLK_TCK
    reaped = (int(fields[13]) + int(fields[14])) / CLK_TCK
    return own, reaped, int(fields[1])


def tree_cpu(root: int | None) -> float:
    """CPU seconds used so far by a process, its live children and the children it reaped."""
    if root is None:
        return math.nan
    own, reaped, _ = proc_cpu(root)
    total = own + reaped
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != root:
            child_own, _, parent = proc_cpu(int(entry.name))
            if parent == root:
                total += child_own
    return total


def machine_cpu() -> float:
    """CPU seconds the whole machine has been busy since boot (all CPUs)."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    busy = [int(x) for x in fields[:8]]
    return (sum(busy) - busy[3] - busy[4]) / CLK_TCK  # all but idle and iowait


@dataclass
class Usage:
    """CPU seconds used during a phase: server, database server, this client, whole machine."""

    server: float = math.nan
    database: float = math.nan
    client: float = math.nan
    machine: float = math.nan


@dataclass
class Meters:
    """Where CPU is read: the gunicorn master and the PostgreSQL postmaster (if ours), and
    this script with its helper processes (the sender's)."""

    server: int | None
    database: int | None
    helpers: list[int] = field(default_factory=list)

    def read(self) -> Usage:
        """CPU seconds used so far."""
        client = time.process_time() + sum(proc_cpu(pid)[0] for pid in self.helpers)
        return Usage(tree_cpu(self.server), tree_cpu(self.database), client, machine_cpu())

    @staticmethod
    def spent(before: Usage, after: Usage) -> Usage:
        """The CPU used between two readings."""
        return Usage(
            after.server - before.server,
            after.database - before.database,
            after.client - before.client,
            after.machine - before.machine,
        )


def run_clients(count: int, work: Callable[[int, float], Tally], deadline_s: float):
    """Run `work(index, deadline)` in `count` threads started together: (tally, wall seconds)."""
    results: list[Tally] = [Tally() for _ in range(count)]
    barrier = threading.Barrier(count + 1)

    def body(index: int) -> None:
        """One client: wait for the others, then work until its deadline."""
        barrier.wait()
        try:
            results[index] = work(index, time.perf_counter() + deadline_s)
        except Exception as exc:  # noqa: BLE001 - a crashed client is an error, not a crash
            results[index].errors[f"client {type(exc).__name__}: {exc}"] += 1

    threads = [threading.Thread(target=body, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    barrier.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join(deadline_s + REQUEST_TIMEOUT + 10)
    wall = time.perf_counter() - start
    total = Tally()
    for tally in results:
        total.add(tally)
    return total, wall


def phase(meters: Meters, label: str, clients: int, work: Callable, seconds: float) -> Row:
    """Run one measured phase and read the CPU around it."""
    before = meters.read()
    tally, wall = run_clients(clients, work, seconds)
    return Row(label, tally, wall, Meters.spent(before, meters.read()), os.getloadavg()[0])


def in_turn(
    meters: Meters, clients: int, works: list[tuple[str, Callable]], seconds: float, turns: int = 2
) -> list[Row]:
    """Run the phases one after the other, `turns` times, and add up each one's runs: a
    ratio of two of them is less bent by the machine speeding up or slowing down."""
    rows = [Row(label, Tally(), 0.0, Usage(0.0, 0.0, 0.0, 0.0)) for label, _ in works]
    for _ in range(turns):
        for row, (label, work) in zip(rows, works, strict=True):
            run = phase(meters, label, clients, work, seconds)
            row.tally.add(run.tally)
            row.wall += run.wall
            for name in ("server", "database", "client", "machine"):
                setattr(row.usage, name, getattr(row.usage, name) + getattr(run.usage, name))
            row.load = run.load
    return rows


# --- the simulated players ---------------------------------------------------------


@dataclass
class BenchGame:
    """A game made for the bench: its id and the path of each seat's link."""

    id: int
    paths: list[str]
    seed: int


@dataclass
class PlayTally:
    """What players did: the move POSTs, the page GETs, and games seen to their end."""

    moves: Tally = field(default_factory=Tally)
    pages: Tally = field(default_factory=Tally)
    finished: int = 0


def turn_form(page: str) -> dict[str, str] | None:
    """The move to send from a seat page: turn, csrf, first play and first chip; None if none."""
    match = MOVE_FORM.search(page)
    if match is None:
        return None
    form: dict[str, str] = {}
    for _kind, name, value in INPUT.findall(match.group(1)):
        form.setdefault(name, html.unescape(value))
    if not {"turn", "csrf", "play", "chip"} <= form.keys():
        return None
    return {key: form[key] for key in ("csrf", "turn", "play", "chip")}


@dataclass(frozen=True)
class Style:
    """How the simulated players play."""

    think: float = 0.0  # mean seconds between reading a page and sending its move
    post_only: bool = False  # keep each game in step here and skip the page before each move
    api: bool = False  # the JSON API instead of the pages: GET the view, POST the move in JSON


def play_games(
    port: int, games: list[BenchGame], deadline: float, out: PlayTally, style: Style
) -> None:
    """Play each game to its end (or the deadline), both seats in turn, one POST per move."""
    conn = http.client.HTTPConnection(HOST, port, timeout=REQUEST_TIMEOUT)
    rng = random.Random(games[0].id if games else 0)
    if style.api:
        play = _play_api
    else:
        play = _play_post_only if style.post_only else _play_one
    try:
        for game in games:
            if play(conn, game, deadline, out, style, rng):
                out.finished += 1
            if time.perf_counter() >= deadline:
                return
    finally:
        conn.close()


def _get_form(
    conn: http.client.HTTPConnection, path: str, out: PlayTally
) -> tuple[bool, dict[str, str] | None]:
    """GET a seat page: (whether it answered 200, its turn form or None)."""
    try:
        status, _, page, ms = timed(conn, "GET", path)
    except (OSError, http.client.HTTPException) as exc:
        out.pages.errors[f"GET {type(exc).__name__}"] += 1
        conn.close()
        return False, None
    if status != 200:
        out.pages.errors[f"GET {status}"] += 1
        return False, None
    out.pages.latencies.append(ms)
    return True, turn_form(page)


def _post_move(
    conn: http.client.HTTPConnection, path: str, form: dict[str, str], out: PlayTally
) -> bool:
    """POST one move with confirm=1; True when it is answered 303 to the page with done=1."""
    body = urlencode({**form, "confirm": "1"})
    try:
        status, headers, _, ms = timed(conn, "POST", f"{path}/move", body)
    except (OSError, http.client.HTTPException) as exc:
        out.moves.errors[f"POST {type(exc).__name__}"] += 1
        conn.close()
        return False
    if status == 303 and "done=1" in (headers.get("Location") or ""):
        out.moves.latencies.append(ms)
        return True
    out.moves.errors[f"POST {status}"] += 1
    return False


def _pause(style: Style, deadline: float, rng: random.Random) -> None:
    """Think between half and one and a half times style.think, so players drift apart."""
    if style.think > 0:
        pause = style.think * rng.uniform(0.5, 1.5)
        time.sleep(min(pause, max(0.0, deadline - time.perf_counter())))


def _play_one(
    conn: http.client.HTTPConnection,
    game: BenchGame,
    deadline: float,
    out: PlayTally,
    style: Style,
    rng: random.Random,
) -> bool:
    """Play one game, reading the page before each move; True when no seat may move any more."""
    seat, failures = 0, 0
    for _ in range(MAX_PLIES):
        if time.perf_counter() >= deadline or failures >= MAX_FAILURES:
            return False
        form = None
        for offset in range(len(game.paths)):
            candidate = (seat + offset) % len(game.paths)
            answered, form = _get_form(conn, game.paths[candidate], out)
            if not answered:
                failures += 1
                break
            if form is not None:
                seat = candidate
                break
        else:
            return True  # every page answered and none has a turn form: the game is over
        if form is None:
            continue
        _pause(style, deadline, rng)
        if _post_move(conn, game.paths[seat], form, out):
            failures = 0
            seat = (seat + 1) % len(game.paths)
        else:
            failures += 1
    return False


def move_fields(move: dict[str, Any]) -> dict[str, str]:
    """The turn form's play and chip fields for a move of Colour Bazaar's legal_moves."""
    play = f"discard:{move['discard']}" if "discard" in move else f"{move['card']}@{move['market']}"
    if "suit" in move:
        play += f"/{move['suit']}"
    return {"play": play, "chip": move["chip"]}


def _play_post_only(
    conn: http.client.HTTPConnection,
    game: BenchGame,
    deadline: float,
    out: PlayTally,
    style: Style,
    rng: random.Random,
) -> bool:
    """Play one game by POSTs alone, the rules run here from its seed; True when it is over."""
    # Each seat's page is read once, the first time it is to move, for its form token.
    state = RULES.setup(len(game.paths), {}, game.seed)
    tokens: dict[int, str] = {}
    failures = 0
    for _ in range(MAX_PLIES):
        acting = RULES.to_act(state)
        if not acting:
            return True
        if time.perf_counter() >= deadline or failures >= MAX_FAILURES:
            return False
        seat = acting[0]
        if seat not in tokens:
            _, form = _get_form(conn, game.paths[seat], out)
            if form is None:
                failures += 1
                continue
            tokens[seat] = form["csrf"]
        move = RULES.legal_moves(state, seat)[0]
        form = {"csrf": tokens[seat], "turn": RULES.turn_token(state, seat), **move_fields(move)}
        _pause(style, deadline, rng)
        if _post_move(conn, game.paths[seat], form, out):
            state = RULES.apply(state, seat, move)
            failures = 0
        else:
            failures += 1
    return False


def _api_path(path: str) -> str:
    """The API path of a seat page path /p/<token>."""
    return "/api/v1/seat/" + path.rsplit("/", 1)[-1]


def _play_api(
    conn: http.client.HTTPConnection,
    game: BenchGame,
    deadline: float,
    out: PlayTally,
    style: Style,
    rng: random.Random,
) -> bool:
    """Play one game over the JSON API: GET the acting seat's view (unless --post-only, when
    the rules run here from the seed), then POST its first legal move; True when it is over."""
    state = RULES.setup(len(game.paths), {}, game.seed)
    failures = 0
    for _ in range(MAX_PLIES):
        acting = RULES.to_act(state)
        if not acting:
            return True
        if time.perf_counter() >= deadline or failures >= MAX_FAILURES:
            return False
        seat = acting[0]
        path = _api_path(game.paths[seat])
        move = RULES.legal_moves(state, seat)[0]
        turn = RULES.turn_token(state, seat)
        if not style.post_only:
            try:
                status, _, answer, ms = timed(conn, "GET", path)
            except (OSError, http.client.HTTPException) as exc:
                out.pages.errors[f"GET {type(exc).__name__}"] += 1
                conn.close()
                failures += 1
                continue
            if status != 200:
                out.pages.errors[f"GET {status}"] += 1
                failures += 1
                continue
            out.pages.latencies.append(ms)
            view = json.loads(answer)
            move, turn = view["legal_moves"][0], view["turn"]
        _pause(style, deadline, rng)
        body = json.dumps({"turn": turn, "move": move})
        try:
            status, _, answer, ms = timed(conn, "POST", f"{path}/move", body, "application/json")
        except (OSError, http.client.HTTPException) as exc:
            out.moves.errors[f"POST {type(exc).__name__}"] += 1
            conn.close()
            failures += 1
            continue
        if status == 200:
            out.moves.latencies.append(ms)
            state = RULES.apply(state, seat, move)
            failures = 0
        else:
            out.moves.errors[f"POST {status}"] += 1
            failures += 1
    return False


# --- the sender, running beside the play in a process of its own, as the clock's -------


@dataclass
class SenderRun:
    """What the sender did during a phase, and the outbox's largest backlog seen."""

    stats: dict[str, float] = field(default_factory=dict)
    max_backlog: int = 0
    max_age: float = 0.0  # seconds the oldest unsent mail had waited, at worst
    wall: float = 0.0
    cpu: float = 0.0  # CPU seconds of the sender's process, its last pass after the play too
    pid: int | None = None  # the sender's process, while it runs: its CPU counts as ours


@contextmanager
def sender_beside(url: str, port: int, scratch: Path) -> Iterator[SenderRun]:
    """Run pbem's outbox sender (file backend) in a process of its own until the block ends.

    In production the sender runs in the clock process (Procfile), not beside the players:
    a thread of this script would share its interpreter lock with the 20 player threads.
    Its process's CPU counts as this script's."""
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    receive, reply = context.Pipe(duplex=False)
    worker = context.Process(
        target=_sender_process, args=(url, port, str(scratch), SECRET, stop, reply), daemon=True
    )
    worker.start()
    if not receive.poll(120) or receive.recv() != "ready":  # imports and engine: not timed
        raise RuntimeError("the sender's process did not start")
    run = SenderRun(pid=worker.pid)
    try:
        yield run
    finally:
        stop.set()
        if receive.poll(120):
            done: SenderRun = receive.recv()
            run.stats, run.max_backlog, run.max_age = done.stats, done.max_backlog, done.max_age
            run.wall, run.cpu = done.wall, done.cpu
        worker.join(10)
        run.pid = None


def _sender_process(url: str, port: int, scratch: str, secret: str, stop: Any, reply: Any) -> None:
    """The sender's process: drain every 0.2 s until told to stop, then once more (the mail
    the play queued since), and send back what it did."""
    global SECRET
    SECRET = secret
    run = SenderRun()
    engine = make_engine(url)
    site = make_site(port)
    backend = FileBackend(str(Path(scratch) / "mail-sent"))
    config: Any = {"MAIL_FROM": "pbem@localhost", "MAIL_FROM_NAME": "pbem", "SENDER_BATCH": 50}
    try:
        from pbem.config import load_settings
    except ImportError:  # an older pbem, whose settings were a dict
        pass
    else:
        config = load_settings({"DEBUG": True, **config})
    reply.send("ready")

    def backlog() -> None:
        with engine.connect() as conn:
            row = conn.execute(
                text("SELECT count(*), min(created_at) FROM outbox WHERE sent_at IS NULL")
            ).one()
        run.max_backlog = max(run.max_backlog, int(row[0]))
        if row[1] is not None:
            oldest = row[1] if isinstance(row[1], datetime) else datetime.fromisoformat(row[1])
            if oldest.tzinfo is None:
                oldest = oldest.replace(tzinfo=UTC)
            run.max_age = max(run.max_age, (datetime.now(UTC) - oldest).total_seconds())

    started, started_cpu = time.perf_counter(), time.process_time()
    while not stop.is_set():
        backlog()
        _drain(engine, site, backend, config, run.stats)
        stop.wait(0.2)
    backlog()
    _drain(engine, site, backend, config, run.stats)
    run.wall = time.perf_counter() - started
    run.cpu = time.process_time() - started_cpu
    engine.dispose()
    reply.send(run)


def _drain(
    engine: Any, site: Site, backend: FileBackend, config: Any, stats: dict[str, float]
) -> None:
    """One pass of the sender; an older pbem (mail rendered in the request) only sends."""
    if "site" in inspect.signature(drain).parameters:
        drain(engine, site, backend, config, datetime.now(UTC), stats)
        return
    clock = time.perf_counter()
    done = drain(engine, backend, config, datetime.now(UTC))  # type: ignore[call-arg]
    stats["sent"] = stats.get("sent", 0) + done["sent"]
    stats["send_s"] = stats.get("send_s", 0.0) + time.perf_counter() - clock


def settle_outbox(url: str, port: int, scratch: Path) -> None:
    """Send the mail that making the games queued, so the backlog measured is the play's."""
    with sender_beside(url, port, scratch):
        pass


def play_phase(
    meters: Meters, port: int, games: list[list[BenchGame]], seconds: float, style: Style
) -> tuple[Row, Row, int]:
    """All players at once, each on its own list of games: (move row, page row, games over)."""
    tallies = [PlayTally() for _ in games]
    spent = [0.0] * len(games)  # each player thread's CPU seconds

    def work(index: int, deadline: float) -> Tally:
        """One player on its own games."""
        started = time.thread_time()
        try:
            play_games(port, games[index], deadline, tallies[index], style)
        finally:
            spent[index] = time.thread_time() - started
        return Tally()

    before = meters.read()
    crashed, wall = run_clients(len(games), work, seconds)
    usage = Meters.spent(before, meters.read())
    moves, pages = Tally(), Tally()
    moves.add(crashed)
    for tally in tallies:
        moves.add(tally.moves)
        pages.add(tally.pages)
    load = os.getloadavg()[0]
    move_row = Row("pbem move POST", moves, wall, usage, load, players=sum(spent))
    page_row = Row("pbem page GET", pages, wall, load=load)
    return move_row, page_row, sum(t.finished for t in tallies)


def hammer(
    port: int, method: str, path: str, limit: int, expect: str | None = "ok"
) -> Callable[[int, float], Tally]:
    """A client that repeats one request until the deadline or `limit` requests.

    A request counts when answered 200 with the body `expect` (any body when None)."""

    def work(index: int, deadline: float) -> Tally:
        """One client repeating the request."""
        tally = Tally()
        conn = http.client.HTTPConnection(HOST, port, timeout=REQUEST_TIMEOUT)
        body = urlencode({"note": f"client {index}"}) if method == "POST" else None
        try:
            for _ in range(limit):
                if time.perf_counter() >= deadline:
                    break
                try:
                    status, _, answer, ms = timed(conn, method, path, body)
                except (OSError, http.client.HTTPException) as exc:
                    tally.errors[f"{method} {type(exc).__name__}"] += 1
                    conn.close()
                    continue
                if status == 200 and (expect is None or answer == expect):
                    tally.latencies.append(ms)
                else:
                    tally.errors[f"{method} {status}"] += 1
        finally:
            conn.close()
        return tally

    return work


# --- servers -----------------------------------------------------------------------


@dataclass
class Settings:
    """How gunicorn runs: the same for pbem and for the bare app."""

    workers: int = 2
    worker_class: str = "sync"
    threads: int = 4

    def args(self) -> list[str]:
        """The gunicorn options."""
        extra = ["--threads", str(self.threads)] if self.worker_class == "gthread" else []
        return [
            "--workers",
            str(self.workers),
            "--worker-class",
            self.worker_class,
            *extra,
            "--access-logfile",
            "-",
        ]

    def describe(self) -> str:
        """The settings in words."""
        threads = f" x {self.threads} threads" if self.worker_class == "gthread" else ""
        return f"gunicorn {self.workers} {self.worker_class} workers{threads}, access log on"


def serve(
    app: str, port: int, env: dict[str, str], settings: Settings, scratch: Path, probe: str
) -> contextlib.AbstractContextManager[int]:
    """gunicorn serving `app` with these settings, ready once `probe` answers; the master's pid."""
    options = [*settings.args(), "--pythonpath", str(ROOT)]
    return gunicorn(app, port, env, options, scratch / f"gunicorn-{port}.log", scratch, probe)


def server_env(url: str, port: int, scratch: Path) -> dict[str, str]:
    """The environment of a gunicorn process: this one's, minus other PBEM_*, plus ours."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env.update(
        PBEM_SECRET_KEY=SECRET,
        PBEM_DATABASE_URL=url,
        PBEM_MAIL_BACKEND="file",
        PBEM_MAIL_DIR=str(scratch / "mail"),
        PBEM_BASE_URL=f"http://{HOST}:{port}",
        PYTHONDONTWRITEBYTECODE="1",
    )
    return env


def wipe(url: str) -> None:
    """Drop every table of a scratch PostgreSQL database."""
    engine = create_engine(url)
    meta = MetaData()
    meta.reflect(engine)
    meta.drop_all(engine)
    engine.dispose()


# --- games and checks --------------------------------------------------------------


def make_site(port: int) -> Site:
    """A Site built as pbem/app.py builds it, for the server at `port`."""
    return Site(
        secret=SECRET,
        base_url=f"http://{HOST}:{port}",
        mail_templates=make_templates(),
        mail=OutboxMail(),
        domain="localhost",
    )


def make_games(url: str, site: Site, count: int, first: int) -> list[BenchGame]:
    """Create `count` started two-player games, one transaction each, as the lobby would."""
    engine = make_engine(url)
    made = []
    try:
        for number in range(first, first + count):
            now = datetime.now(UTC)
            with write_session(engine) as session:
                invitees = [
                    Invitee(f"Ana {number}", f"ana{number}@bench.example"),
                    Invitee(f"Léo {number}", f"leo{number}@bench.example"),
                ]
                game = create_game(session, site, SLUG, invitees, {}, now, seed=number)
                assert game.id is not None
                join(session, site, game.id, 1, now)
                paths = [urlsplit(site.seat_url(s)).path for s in seats_of(session, game)]
            made.append(BenchGame(game.id, paths, game.seed))
    finally:
        engine.dispose()
    return made


FB = "fantasy-business"


@dataclass
class PageGames:
    """Two four-player Fantasy Business games from one seed: one at ply 0, one at its last ply."""

    fresh: str  # seat 0's page path at ply 0
    long: str  # seat 0's page path in the long game
    plies: int


def make_page_games(url: str, site: Site, seed: int) -> PageGames:
    """Play a Fantasy Business game through pbem's Python API up to its last move."""
    rules = GAMES[FB]
    options = rules.check_options(4, {})
    state = rules.setup(4, options, seed)
    rng = random.Random(seed)
    script = []
    while rules.to_act(state):
        seat = rules.to_act(state)[0]
        move = rng.choice(rules.legal_moves(state, seat))
        script.append((seat, move, rules.turn_token(state, seat)))
        state = rules.apply(state, seat, move)
    engine = make_engine(url)
    paths = []
    try:
        for _ in range(2):
            now = datetime.now(UTC)
            with write_session(engine) as session:
                people = [
                    Invitee(f"P{i} {seed}", f"p{i}.{seed}.{len(paths)}@bench.example")
                    for i in range(4)
                ]
                game = create_game(session, site, FB, people, {}, now, seed=seed)
                assert game.id is not None
                for seat_no in range(1, 4):
                    join(session, site, game.id, seat_no, now)
                paths.append((game.id, urlsplit(site.seat_url(seats_of(session, game)[0])).path))
        long_id = paths[1][0]
        for seat, move, token in script[:-1]:  # the last move would end the game
            with write_session(engine) as session:
                submit_move(session, site, long_id, seat, move, token, datetime.now(UTC))
    finally:
        engine.dispose()
    return PageGames(paths[0][1], paths[1][1], len(script) - 1)


@dataclass
class Check:
    """What the database says after the run."""

    duplicates: int
    ply_mismatch: int
    replay_problems: int
    logged: int  # moves in the log of the measured games
    over: int  # measured games that are over


def check(url: str, measured: list[int]) -> Check:
    """Duplicates, ply against log length, replays, and the measured games' moves."""
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            duplicates = conn.execute(
                text(
                    "SELECT game_id, ply, count(*) FROM move GROUP BY game_id, ply"
                    " HAVING count(*) > 1"
                )
            ).all()
            per_game = dict(
                conn.execute(text("SELECT game_id, count(*) FROM move GROUP BY game_id")).all()
            )
            games = conn.execute(text("SELECT id, ply, status FROM game")).all()
        mismatch = sum(1 for g in games if g.ply != per_game.get(g.id, 0))
        wanted = set(measured)
        with read_session(engine) as session:
            problems = sum(
                1 for game in session.exec(select(Game)) if replay_problem(session, game)
            )
        return Check(
            duplicates=len(duplicates),
            ply_mismatch=mismatch,
            replay_problems=problems,
            logged=sum(n for game_id, n in per_game.items() if game_id in wanted),
            over=sum(1 for g in games if g.id in wanted and g.status == "over"),
        )
    finally:
        engine.dispose()


# --- one database ------------------------------------------------------------------


@dataclass
class Result:
    """Everything measured on one database."""

    name: str
    rows: list[Row]
    check: Check
    games: int
    finished: int
    ratio: float
    sender: SenderRun | None = None
    page_plies: int = 0


def bench_database(
    name: str, url: str, args: argparse.Namespace, scratch: Path, db_pid: int | None
) -> Result:
    """Migrate, make games, play them over HTTP, check the log, then measure the bare app."""
    print(f"{name}: migrating a fresh database", flush=True)
    migrate(url)
    create_table(url)
    settings = Settings(args.workers, args.worker_class, args.threads)
    port = free_port()
    site = make_site(port)
    warm = make_games(url, site, args.warmup_games, first=1)
    per_player = args.games_per_player
    games = make_games(url, site, args.players * per_player, first=1 + len(warm))
    lists = [games[i * per_player : (i + 1) * per_player] for i in range(args.players)]
    print(f"{name}: {len(games)} games for {args.players} players (+{len(warm)} warm-up)")
    print(f"{name}: a Fantasy Business game played to its last move, for the page cost", flush=True)
    pages = make_page_games(url, site, seed=7)
    settle_outbox(url, port, scratch)

    env = server_env(url, port, scratch)
    with serve("pbem:create_app()", port, env, settings, scratch, "/") as master:
        meters = Meters(master, db_pid)
        if warm:
            print(f"{name}: warm-up game(s), not timed", flush=True)
            play_phase(meters, port, [[g] for g in warm], args.duration, Style())
        print(f"{name}: {args.players} players playing (at most {args.duration:.0f} s)", flush=True)
        style = Style(args.think, args.post_only, args.api)
        if args.sender_after:
            # The move alone: the mail waits in the outbox, then one drain sends all of it.
            move_row, page_row, finished = play_phase(meters, port, lists, args.duration, style)
            print(f"{name}: the play's mail, sent after it", flush=True)
            with sender_beside(url, port, scratch) as sender_run:
                pass
        else:
            with sender_beside(url, port, scratch) as sender_run:
                meters.helpers = [sender_run.pid or 0]
                move_row, page_row, finished = play_phase(meters, port, lists, args.duration, style)
                meters.helpers = []
        print(
            f"{name}: page GET at ply 0 and at ply {pages.plies}, in turn, twice"
            f" {args.bare_seconds:.0f} s each"
        )
        fresh, long = in_turn(
            meters,
            args.players,
            [
                ("FB page, ply 0", hammer(port, "GET", pages.fresh, args.bare_requests, None)),
                (
                    f"FB page, ply {pages.plies}",
                    hammer(port, "GET", pages.long, args.bare_requests, None),
                ),
            ],
            args.bare_seconds,
        )
    result_check = check(url, [g.id for g in games])

    port = free_port()
    env = server_env(url, port, scratch)
    with serve("bench.bare_app:create_app()", port, env, settings, scratch, "/bare") as master:
        meters = Meters(master, db_pid)
        warm_up = hammer(port, "POST", "/insert", 50)
        run_clients(min(args.players, 4), warm_up, 1.0)
        print(f"{name}: bare GET and bare insert, {args.bare_seconds:.0f} s each", flush=True)
        limit = args.bare_requests
        bare = phase(
            meters,
            "bare GET /bare",
            args.players,
            hammer(port, "GET", "/bare", limit),
            args.bare_seconds,
        )
        insert = phase(
            meters,
            "bare POST /insert",
            args.players,
            hammer(port, "POST", "/insert", limit),
            args.bare_seconds,
        )
    ratio = move_row.rate / insert.rate if insert.rate else math.nan
    if args.api:
        move_row.label, page_row.label = "pbem API move POST", "pbem API view GET"
    rows = [move_row, page_row, bare, insert, fresh, long]
    return Result(name, rows, result_check, len(games), finished, ratio, sender_run, pages.plies)


# --- report ------------------------------------------------------------------------


def fmt(value: float, digits: int = 1) -> str:
    """A number for the table, or a dash."""
    return "-" if math.isnan(value) else f"{value:,.{digits}f}"


def report(result: Result, args: argparse.Namespace, settings: Settings) -> None:
    """Print the table and the verdicts for one database."""
    print()
    think = f", {args.think:g} s think time per move" if args.think else ""
    think += ", POSTs only (a page per seat and game)" if args.post_only else ""
    think += ", over the JSON API" if args.api else ""
    print(f"== {result.name}: {settings.describe()}, {args.players} concurrent clients{think} ==")
    print(
        f"{'':18} {'ok':>6} {'per s':>8} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6}"
        f"  {'CPU ms per request':^26}  {'others':>6} {'load':>5}"
    )
    print(f"{'':58}{'server':>8} {'db':>6} {'client':>7}  {'busy':>6} {'1 min':>5}")
    for row in result.rows:
        u = row.usage
        print(
            f"{row.label:18} {row.tally.count:6d} {fmt(row.rate):>8} {fmt(row.tally.pct(0.5)):>7}"
            f" {fmt(row.tally.pct(0.99)):>7} {sum(row.tally.errors.values()):6d}"
            f"  {fmt(row.cpu_ms(u.server), 2):>8} {fmt(row.cpu_ms(u.database), 2):>6}"
            f" {fmt(row.cpu_ms(u.client), 2):>7}  {fmt(row.others * 100, 0) + '%':>6}"
            f" {fmt(row.load, 2):>5}"
        )
    move, insert = result.rows[0], result.rows[3]
    print(
        "(the move line's CPU and 'others' cover the whole play phase, page GETs included;"
        " 'others busy': the machine's CPU used meanwhile by processes outside the bench)"
    )
    for row in result.rows:
        for reason, n in sorted(row.tally.errors.items()):
            print(f"  {row.label}: {n} x {reason}")
    c = result.check
    acked = move.tally.count
    print(
        f"move log: {c.duplicates} duplicate (game, ply); {c.ply_mismatch} games with"
        f" ply != moves logged; {c.replay_problems} replay problems;"
        f" {acked} moves answered 303, {c.logged} logged"
    )
    print(f"games: {result.finished}/{result.games} played to the end ({c.over} over in the db)")
    errors = sum(sum(r.tally.errors.values()) for r in result.rows)
    verdicts = [
        ("moves/s / insert req/s", fmt(result.ratio, 2), ">= 0.5", result.ratio >= 0.5),
        ("move p99 ms", fmt(move.tally.pct(0.99)), "<= 50", move.tally.pct(0.99) <= 50),
        ("errors", str(errors), "0", errors == 0),
        (
            "duplicates / lost",
            f"{c.duplicates} / {max(0, acked - c.logged)}",
            "0 / 0",
            c.duplicates == 0 and c.ply_mismatch == 0 and c.logged >= acked,
        ),
    ]
    for label, value, aim, ok in verdicts:
        print(f"  {label:24} {value:>10}   aim {aim:8} {'ok' if ok else 'MISSED'}")
    print(
        f"  ({fmt(move.rate)} moves/s against {fmt(insert.rate)} bare inserts/s;"
        f" bare insert p99 {fmt(insert.tally.pct(0.99))} ms)"
    )
    print(
        f"  (the same ratio from CPU per request, server + db + client, which other load"
        f" disturbs less: {fmt(insert.cpu_total_ms, 2)} / {fmt(move.cpu_total_ms, 2)} ms"
        f" = {fmt(insert.cpu_total_ms / move.cpu_total_ms, 2)})"
    )
    fresh, long = result.rows[4], result.rows[5]
    cost = long.cpu_ms(long.usage.server) / fresh.cpu_ms(fresh.usage.server)
    print(
        f"  page at ply {result.page_plies} / page at ply 0 (server CPU per GET):"
        f" {fmt(long.cpu_ms(long.usage.server), 2)} / {fmt(fresh.cpu_ms(fresh.usage.server), 2)} ms"
        f" = {fmt(cost, 2)}   aim <= 1.3 {'ok' if cost <= 1.3 else 'MISSED'}"
        f"   (by rate: {fmt(fresh.rate / long.rate if long.rate else math.nan, 2)})"
    )
    if result.sender is not None:
        r = result.sender
        rendered, sent = r.stats.get("rendered", 0), r.stats.get("sent", 0)
        render_s, send_s = r.stats.get("render_s", 0.0), r.stats.get("send_s", 0.0)
        where = "after the play" if args.sender_after else "beside the play"
        print(
            f"  sender ({where}, a process of its own, file backend): {int(rendered)} mails"
            f" rendered and {int(sent)} sent in {fmt(r.wall)} s ="
            f" {fmt(rendered / r.wall if r.wall else math.nan)} rendered/s;"
            f" busy claiming and rendering {fmt(render_s, 2)} s"
            f" ({fmt(rendered / render_s if render_s else math.nan)}/s),"
            f" sending {fmt(send_s, 2)} s ({fmt(sent / send_s if send_s else math.nan)}/s);"
            f" outbox backlog at most {r.max_backlog} mails, the oldest waiting {fmt(r.max_age)} s"
        )
        # What a move costs this script, whatever the server does: its players' threads and,
        # for the mail the move queues, the sender's process (which goes on draining after
        # the play, so it is counted per mail). With a server that cost nothing, a move
        # would still cost that: the ratio by CPU could reach at most the bare insert's
        # whole cost over it.
        players = move.cpu_ms(move.players)
        per_mail = r.cpu * 1000 / rendered if rendered else math.nan
        mails = rendered / move.tally.count if move.tally.count else math.nan
        script = players + per_mail * mails
        if args.sender_after:
            print(
                f"  the ratio prices the move alone: the play's mail ({fmt(mails, 2)} a move,"
                f" {fmt(per_mail, 2)} ms of the sender's CPU each) was sent after it"
            )
        else:
            print(
                f"  this script's CPU per move: the players {fmt(players, 2)} ms, the sender"
                f" {fmt(per_mail, 2)} ms a mail x {fmt(mails, 2)} mails a move; with a server"
                f" that cost nothing the ratio by CPU could reach at most"
                f" {fmt(insert.cpu_total_ms, 2)} / {fmt(script, 2)}"
                f" = {fmt(insert.cpu_total_ms / script if script else math.nan, 2)}"
            )
    if result.name == "postgresql" and math.isnan(move.usage.database):
        print("  (a database server not started here: its CPU counts under 'others busy')")
    busiest = max((r.others for r in result.rows if not math.isnan(r.others)), default=0.0)
    if busiest > 0.1:
        print(
            f"  WARNING: other processes used up to {busiest:.0%} of the machine's CPU"
            " during a phase: rates and latencies are low by that much; rerun on a quiet machine"
        )


# --- main --------------------------------------------------------------------------


def parse(argv: list[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=("sqlite", "pg", "both"), default="both")
    parser.add_argument("--pg-url", help="an existing scratch PostgreSQL database: it is WIPED")
    parser.add_argument("--pg-bin", type=Path, default=PG_BIN, help="initdb and pg_ctl live here")
    parser.add_argument("--players", type=int, default=20, help="concurrent clients")
    parser.add_argument("--games-per-player", type=int, default=2, help="30 moves each")
    parser.add_argument("--duration", type=float, default=45.0, help="cap on the play, seconds")
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="mean seconds a player waits between page and move (uniform, 0.5x to 1.5x)",
    )
    parser.add_argument(
        "--post-only",
        action="store_true",
        help="players keep their games in step locally and POST moves without reading the page",
    )
    parser.add_argument(
        "--api",
        action="store_true",
        help="play over the JSON API (GET the view, POST the move; with --post-only, POSTs only)",
    )
    parser.add_argument(
        "--sender-after",
        action="store_true",
        help="the sender waits for the end of the play, then sends its mail: the move alone",
    )
    parser.add_argument("--warmup-games", type=int, default=2, help="played first, not timed")
    parser.add_argument("--bare-seconds", type=float, default=5.0, help="per bare endpoint")
    parser.add_argument("--bare-requests", type=int, default=20_000, help="cap per client")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--worker-class", choices=("sync", "gthread"), default="sync")
    parser.add_argument("--threads", type=int, default=4, help="per worker, with gthread")
    parser.add_argument("--quick", action="store_true", help="5 players, 1 game each, short")
    args = parser.parse_args(argv)
    if args.quick:
        args.players, args.games_per_player, args.duration = 5, 1, 15.0
        args.warmup_games, args.bare_seconds = 1, 1.5
    for name in ("players", "games_per_player", "workers", "threads", "bare_requests"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.pg_url and not args.pg_url.startswith("postgresql"):
        parser.error("--pg-url: a postgresql+psycopg:// URL")
    return args


def main(argv: list[str] | None = None) -> None:
    """Run the bench on each database asked for and print a table per database."""
    args = parse(argv)
    # A plain kill stops the run like Ctrl-C does: servers stopped, temporary files removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    settings = Settings(args.workers, args.worker_class, args.threads)
    started = time.perf_counter()
    scratch = Path(tempfile.mkdtemp(prefix="pbem-bench-http-"))
    print(f"{settings.describe()}; {os.cpu_count()} CPUs; scratch {scratch}", flush=True)
    results = []
    try:
        if args.db in ("sqlite", "both"):
            url = f"sqlite:///{scratch / 'pbem.sqlite3'}"
            results.append(bench_database("sqlite", url, args, scratch, None))
        if args.db in ("pg", "both"):
            if args.pg_url:
                wipe(args.pg_url)
                results.append(bench_database("postgresql", args.pg_url, args, scratch, None))
            else:
                server = Postgres(args.pg_bin)
                try:
                    print(f"postgresql: throwaway server on {HOST}:{server.port}", flush=True)
                    server.start()
                    url = server.create_database("pbem_bench")
                    pid = server.postmaster()
                    results.append(bench_database("postgresql", url, args, scratch, pid))
                finally:
                    server.stop()
        for result in results:
            report(result, args, settings)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"\n(total {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
