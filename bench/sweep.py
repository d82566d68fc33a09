"""How the cost of one clock sweep grows with the number of games: it must follow the due rows.

For each size N this builds a fresh database (pbem.storage.db.migrate), bulk-inserts N active
Colour Bazaar games of two seats each (one player per three seats), of which `--due`
(default 100) are due, runs ANALYZE, and times one call of pbem.clock.sweeps.sweep(). A
baseline in the same run does the same on a database holding only the due games
(N = due), so the figures can be read as ratios that hold from one machine to another.

By default every due item is a timeout: the seat to move in `due` games is past its
deadline, so the sweep plays a timeout move (and queues its mails) in each; the other
games have a deadline and a reminder in the future. --mix splits the due items over
timeouts, reminders, digests and vacation ends instead (still `due` items in all).
--history adds a finished, already announced vacation for every fifth player.

After the sweeps, every SELECT and UPDATE a sweep issues is run under EXPLAIN (QUERY
PLAN) on the largest database, and any full scan or sort is flagged.

    python bench/sweep.py                  # N = due, 100,000 and 1,000,000; a few minutes
    python bench/sweep.py --quick          # N = due, 10,000 and 100,000; under a minute
    python bench/sweep.py --db postgresql+psycopg://localhost/scratch   # WIPES that database

An untimed warm-up sweep runs first, so imports and mail templates are ready. SQLite
databases are temporary files, removed as soon as measured; a --db URL is wiped before
each size and at the end.

The headline is the ratio of the sweep times at the two largest sizes (aim: under 2).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, MetaData, create_engine, event, func, select
from sqlalchemy.exc import DBAPIError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pbem.clock import sweeps  # noqa: E402
from pbem.games import GAMES  # noqa: E402
from pbem.mailout.mailer import make_templates  # noqa: E402
from pbem.mailout.notify import OutboxMail  # noqa: E402
from pbem.models import Game, Move, Player, Seat, Vacation  # noqa: E402
from pbem.site import Site  # noqa: E402
from pbem.storage.db import make_engine, migrate  # noqa: E402
from pbem.timing import deadlines

SLUG = "colour-bazaar"
SEED = 20261129
CHUNK = 20_000  # games per INSERT batch
NOW = datetime.now(UTC).replace(microsecond=0)
ZONES = ("UTC", "Europe/Paris", "America/New_York")
RULES = GAMES[SLUG]
OPTIONS = RULES.check_options(2, {})
STATE = RULES.setup(2, OPTIONS, SEED)
MOVER = RULES.to_act(STATE)[0]  # every game is at ply 0 of the same deal
REMINDERS = ["24h", "80%"]
DAYS = 3
BASELINE_RUNS = 3  # the baseline is cheap: take the median of three


@dataclass(frozen=True)
class Mix:
    """How many due items of each kind a database holds."""

    timeouts: int
    reminders: int = 0
    digests: int = 0
    vacations: int = 0

    @classmethod
    def split(cls, due: int, mixed: bool) -> Mix:
        """All timeouts, or about 40/30/15/15 over the four kinds when `mixed`."""
        if not mixed:
            return cls(due)
        reminders, digests, vacations = due * 30 // 100, due * 15 // 100, due * 15 // 100
        return cls(due - reminders - digests - vacations, reminders, digests, vacations)

    def expected(self) -> dict[str, int]:
        """What sweeps.sweep() should return."""
        return {
            "timeouts": self.timeouts,
            "reminders": self.reminders,
            "digests": self.digests,
            "vacations": self.vacations,
        }


@dataclass
class Figures:
    """What one size measured."""

    games: int
    fill_s: float
    rows: int
    sweep_s: float
    cpu_s: float  # this process's CPU time during the sweep (SQLite runs in it)
    empty_s: float
    counts: dict[str, int]
    size_mb: float | None
    plans: list[tuple[str, list[str]]] = field(default_factory=list)
    due_ms: dict[str, float] = field(default_factory=dict)  # each bare due query, nothing due
    runs: list[float] = field(default_factory=list)  # every sweep time, when repeated


class _Dumps:
    """json.dumps that serialises each of a few shared objects only once (the fill reuses them)."""

    def __init__(self, *shared: Any) -> None:
        """Serialise `shared` now."""
        self.shared = shared  # kept alive, so their ids stay theirs
        self.cache = {id(obj): json.dumps(obj) for obj in shared}

    def __call__(self, obj: Any) -> str:
        """The JSON text of `obj`."""
        cached = self.cache.get(id(obj))
        return cached if cached is not None else json.dumps(obj)


# --- databases -----------------------------------------------------------------------


def wipe(url: str) -> None:
    """Remove the SQLite file at `url`, or drop every table of the (scratch!) database."""
    if url.startswith("sqlite"):
        path = Path(url.split("///", 1)[-1])
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    else:
        engine = create_engine(url)
        with engine.begin() as conn:  # every table in the schema, whatever migrations exist
            tables = MetaData()
            tables.reflect(conn)
            tables.drop_all(conn)
        engine.dispose()


def fresh_database(url: str) -> None:
    """Empty the database at `url` and migrate it to head."""
    wipe(url)
    migrate(url)


def fill_engine(url: str) -> Engine:
    """An engine for the bulk fill: JSON text made once, and on SQLite no syncing."""
    dumps = _Dumps(STATE, OPTIONS, REMINDERS)
    engine = create_engine(url, json_serializer=dumps)
    if url.startswith("sqlite"):

        @event.listens_for(engine, "connect")
        def _connect(dbapi_connection: Any, _record: Any) -> None:
            """Trade safety for speed: the file is thrown away if the fill fails."""
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA synchronous=OFF")
            cursor.execute("PRAGMA journal_mode=MEMORY")
            cursor.execute("PRAGMA cache_size=-400000")  # 400 MB
            cursor.close()

    return engine


def chunks(rows: Iterator[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    """The rows in lists of at most `size`."""
    batch: list[dict[str, Any]] = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def spread(count: int, among: int) -> list[int]:
    """`count` distinct indexes spread evenly over range(among)."""
    if count > among:
        raise SystemExit(f"cannot place {count} due items among {among} rows")
    return [k * among // count for k in range(count)]


def fill(url: str, games: int, mix: Mix, history: bool) -> int:
    """Bulk-insert `games` active games (`mix` of them due) in one transaction; rows written."""
    players = max(2, -(-2 * games // 3))  # one player per three seats

    def player_of(game: int, seat: int) -> int:
        """The id of the player in the seat; the two seats of a game differ."""
        return (game if seat == 0 else game + players // 2) % players + 1

    rng = random.Random(SEED)
    kinds = ["timeout"] * mix.timeouts + ["reminder"] * mix.reminders
    rng.shuffle(kinds)
    due_games = dict(zip(spread(len(kinds), games), kinds, strict=True))
    digest_due: dict[int, int] = {}  # player: rank; each acts in a game with nothing due
    for first in spread(mix.digests, games):
        game = first
        while game in due_games or player_of(game, MOVER) in digest_due:
            game = (game + 1) % games
            if game == first:
                raise SystemExit(f"too few games for {mix.digests} due digests")
        digest_due[player_of(game, MOVER)] = len(digest_due)
    next_8am = {zone: deadlines.next_digest(Player(tz=zone), NOW) for zone in ZONES}  # type: ignore[call-arg]

    def player_rows() -> Iterator[dict[str, Any]]:
        """Every player; one in ten wants digests."""
        for pid in range(1, players + 1):
            zone = ZONES[pid % len(ZONES)]
            digest = pid in digest_due or pid % 10 == 9
            if pid in digest_due:
                due_at: datetime | None = NOW - timedelta(minutes=1 + digest_due[pid])
            else:
                due_at = next_8am[zone] if digest else None
            yield {
                "id": pid,
                "email": f"player{pid}@bench.example",
                "name": f"Player {pid}",
                "lang": "en",
                "tz": zone,
                "notify": "digest" if digest else "every",
                "next_digest_at": due_at,
                "vacation_days": 14,
                "unsubscribe_key": "",
                "created_at": NOW - timedelta(days=100),
            }

    def game_and_seat_rows(first: int, last: int) -> tuple[list[dict], list[dict]]:
        """The games first..last-1 and their seats."""
        game_rows, seat_rows = [], []
        for g in range(first, last):
            kind = due_games.get(g)
            if kind == "timeout":  # the deadline passed; both reminders went out
                began = NOW - timedelta(days=DAYS, minutes=1 + g % 600)
                reminder, sent = None, 2
            elif kind == "reminder":  # the 24h reminder fell due; the 80% one is later
                began = NOW - timedelta(hours=24, minutes=1 + g % 600)
                reminder, sent = began + timedelta(hours=24), 0
            else:  # the turn began up to 20 hours ago: nothing due for a while
                began = NOW - timedelta(seconds=g * 7919 % 72_000 + 1)
                reminder, sent = began + timedelta(hours=24), 0
            game_rows.append(
                {
                    "id": g + 1,
                    "slug": SLUG,
                    "options": OPTIONS,
                    "seed": SEED,
                    "state": STATE,
                    "ply": 0,
                    "status": "active",
                    "creator_seat": 0,
                    "days_per_move": DAYS,
                    "reminders": REMINDERS,
                    "absent_after": 3,
                    "watch_key": f"w{g:015x}",
                    "created_at": began - timedelta(hours=1),
                    "updated_at": began,
                    "started_at": began,
                }
            )
            for seat in (0, 1):
                moving = seat == MOVER
                pid = player_of(g, seat)
                seat_rows.append(
                    {
                        "id": 2 * g + seat + 1,
                        "game_id": g + 1,
                        "seat": seat,
                        "player_id": pid,
                        "name": f"Player {pid}",
                        "status": "joined",
                        "link_key": f"s{2 * g + seat:015x}",
                        "told_ply": 0,
                        "turn_started_at": began if moving else None,
                        "deadline": began + timedelta(days=DAYS) if moving else None,
                        "next_reminder_at": reminder if moving else None,
                        "reminders_sent": sent if moving else 0,
                        "timeouts_in_row": 0,
                        "absent": False,
                    }
                )
        return game_rows, seat_rows

    def vacation_rows() -> Iterator[dict[str, Any]]:
        """The due vacations, then (with --history) the old ones."""
        for k, pid in enumerate(spread(mix.vacations, players)):
            yield {
                "player_id": pid + 1,
                "starts_at": NOW - timedelta(days=8),
                "ends_at": NOW - timedelta(minutes=1 + k),
                "end_told": False,
                "created_at": NOW - timedelta(days=9),
            }
        if history:  # long over and announced: never due again
            for pid in range(1, players + 1, 5):
                ends = NOW - timedelta(days=1 + pid % 300, minutes=pid % 1440)
                yield {
                    "player_id": pid,
                    "starts_at": ends - timedelta(days=7),
                    "ends_at": ends,
                    "end_told": True,
                    "created_at": ends - timedelta(days=10),
                }

    engine = fill_engine(url)
    written, started, shown = 0, time.perf_counter(), 0
    with engine.begin() as conn:
        for batch in chunks(player_rows(), 3 * CHUNK):
            conn.execute(Player.__table__.insert(), batch)  # type: ignore[attr-defined]
            written += len(batch)
        for first in range(0, games, CHUNK):
            game_rows, seat_rows = game_and_seat_rows(first, min(first + CHUNK, games))
            conn.execute(Game.__table__.insert(), game_rows)  # type: ignore[attr-defined]
            conn.execute(Seat.__table__.insert(), seat_rows)  # type: ignore[attr-defined]
            written += len(game_rows) + len(seat_rows)
            done = first + len(game_rows)
            if games >= 100_000 and done * 10 // games > shown:
                shown = done * 10 // games
                spent = time.perf_counter() - started
                print(f"    {done:>11,} games filled, {spent:6.1f} s", flush=True)
        for batch in chunks(vacation_rows(), 3 * CHUNK):
            conn.execute(Vacation.__table__.insert(), batch)  # type: ignore[attr-defined]
            written += len(batch)
        if engine.dialect.name == "postgresql":  # explicit ids leave the sequences behind
            for table in ("player", "game", "seat", "vacation"):
                conn.exec_driver_sql(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                    f" (SELECT COALESCE(MAX(id), 0) + 1 FROM {table}), false)"
                )
    with engine.connect() as conn:  # so the planner knows the tables are large
        conn.exec_driver_sql("ANALYZE")
        conn.commit()
    engine.dispose()
    settle(url)
    return written


def settle(url: str) -> None:
    """Put the fill on disk now, so the sweep's first fsync does not pay for writing it."""
    if url.startswith("sqlite"):
        with open(url.split("///", 1)[-1], "rb+") as handle:
            os.fsync(handle.fileno())
        return
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("CHECKPOINT")
    except DBAPIError:
        pass  # CHECKPOINT needs a superuser (or pg_checkpoint); the figures are noisier without
    finally:
        engine.dispose()


# --- measuring -----------------------------------------------------------------------


def make_site() -> Site:
    """A Site built as pbem/app.py builds it."""
    return Site(
        secret="bench-not-secret",
        base_url="http://bench.example",
        mail_templates=make_templates(),
        mail=OutboxMail(),
        domain="bench.example",
    )


@contextmanager
def capture(engine: Engine) -> Iterator[dict[str, Any]]:
    """Record each distinct SELECT/UPDATE/DELETE run inside the block, with its first parameters."""
    seen: dict[str, Any] = {}

    def _record(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        """Keep the statement if it is new."""
        if statement.lstrip().split(" ", 1)[0].upper() in ("SELECT", "UPDATE", "DELETE"):
            seen.setdefault(statement, parameters)

    event.listen(engine, "before_cursor_execute", _record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", _record)


def explain(engine: Engine, statements: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """The query plan of each statement on this database."""
    sqlite = engine.dialect.name == "sqlite"
    plans = []
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        for statement, parameters in statements.items():
            prefix = "EXPLAIN QUERY PLAN " if sqlite else "EXPLAIN "
            cursor.execute(prefix + statement, parameters)
            rows = cursor.fetchall()
            plans.append((statement, [str(r[-1] if sqlite else r[0]) for r in rows]))
        raw.rollback()
    finally:
        raw.close()
    return plans


def verify(engine: Engine, got: dict[str, int], mix: Mix) -> None:
    """Stop unless the sweep did exactly the due work."""
    with engine.connect() as conn:
        moved = conn.scalar(
            select(func.count()).select_from(Move).where(Move.source == "timeout")  # type: ignore[arg-type]
        )
    # The sweep's other work (unstarted games, bounce reports) finds nothing in this history.
    expected = mix.expected() | {kind: 0 for kind in got if kind not in mix.expected()}
    if got != expected or moved != mix.timeouts:
        raise SystemExit(f"sweep did {got} ({moved} timeout moves); expected {expected}")


DUE_QUERIES = {  # the column each due query of pbem/clock/sweeps.py ranges over
    "timeouts": "seat.deadline <=",
    "reminders": "seat.next_reminder_at <=",
    "digests": "player.next_digest_at <=",
    "vacations": "vacation.ends_at <=",
}


def time_due_queries(engine: Engine, statements: dict[str, Any]) -> dict[str, float]:
    """Milliseconds (best of 5) of each due query of pbem/clock/sweeps.py, run bare."""
    found = {
        kind: next((s for s in statements if marker in s and " LIMIT " in s), None)
        for kind, marker in DUE_QUERIES.items()
    }
    times = {}
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        for kind, statement in found.items():
            if statement is None:
                raise SystemExit(f"the warm-up sweep ran no due query for {kind}")
            best = float("inf")
            for _ in range(5):
                started = time.perf_counter()
                cursor.execute(statement, statements[statement])
                cursor.fetchall()
                best = min(best, time.perf_counter() - started)
            times[kind] = 1000 * best
        raw.rollback()
    finally:
        raw.close()
    return times


def measure(
    url: str, games: int, mix: Mix, history: bool, site: Site, statements: dict[str, Any]
) -> Figures:
    """Fill a fresh database; time a sweep, an empty sweep and the due queries; take plans."""
    fresh_database(url)
    started = time.perf_counter()
    rows = fill(url, games, mix, history)
    fill_s = time.perf_counter() - started
    engine = make_engine(url)
    try:
        started, cpu = time.perf_counter(), time.process_time()
        got = sweeps.sweep(engine, site, NOW)
        sweep_s, cpu_s = time.perf_counter() - started, time.process_time() - cpu
        verify(engine, got, mix)
        started = time.perf_counter()
        again = sweeps.sweep(engine, site, NOW)
        empty_s = time.perf_counter() - started
        if any(again.values()):
            raise SystemExit(f"a second sweep found more to do: {again}")
        figures = Figures(games, fill_s, rows, sweep_s, cpu_s, empty_s, got, None)
        figures.due_ms = time_due_queries(engine, statements)
        figures.plans = explain(engine, statements)
    finally:
        engine.dispose()
    if url.startswith("sqlite"):
        figures.size_mb = Path(url.split("///", 1)[-1]).stat().st_size / 1e6
    return figures


def warm_up(url: str, site: Site) -> dict[str, Any]:
    """An untimed sweep of every kind of due item (readies templates); the statements it ran."""
    fresh_database(url)
    fill(url, 40, Mix(8, 8, 4, 4), history=True)
    engine = make_engine(url)
    try:
        with capture(engine) as statements:
            got = sweeps.sweep(engine, site, NOW)
        verify(engine, got, Mix(8, 8, 4, 4))
    finally:
        engine.dispose()
    return statements


def short(statement: str) -> str:
    """The statement on one line, its column list elided."""
    line = " ".join(statement.split())
    return re.sub(r"^SELECT (.{40,}?) FROM ", "SELECT ... FROM ", line)


def bad_plan(lines: list[str], sqlite: bool) -> str:
    """The plan's problem: 'full scan', 'sort', or '' when it has none."""
    for line in lines:
        if sqlite and line.startswith("SCAN ") and "CONSTANT ROW" not in line:
            return "full scan"
        if not sqlite and "Seq Scan" in line:
            return "full scan"
    if any("TEMP B-TREE" in line or line.lstrip().startswith("Sort") for line in lines):
        return "sort"
    return ""


# --- output --------------------------------------------------------------------------


def report(figures: list[Figures], mix: Mix, sqlite: bool) -> None:
    """Print the table, the ratios, the bare due queries and the query plans."""
    base = figures[0]
    print()
    print(
        f"{'games':>11} {'rows':>11} {'db MB':>7} {'fill s':>7} {'sweep s':>8} {'cpu s':>6}"
        f" {'ms/item':>8}"
        f" {'empty ms':>9} {'x base':>7}  done (timeouts/reminders/digests/vacations)"
    )
    for f in figures:
        items = sum(f.counts.values())
        size = f"{f.size_mb:7,.0f}" if f.size_mb is not None else f"{'-':>7}"
        print(
            f"{f.games:>11,} {f.rows:>11,} {size} {f.fill_s:>7.1f} {f.sweep_s:>8.3f}"
            f" {f.cpu_s:>6.3f} {1000 * f.sweep_s / items:>8.2f} {1000 * f.empty_s:>9.2f}"
            f" {f.sweep_s / base.sweep_s:>7.2f}  {'/'.join(str(v) for v in f.counts.values())}"
        )
    runs = ", ".join(f"{r:.3f}" for r in base.runs)
    print(f"baseline ({base.games:,} games, all due): median of {len(base.runs)} sweeps ({runs} s)")
    print(f"due items per database: {sum(mix.expected().values())} {mix.expected()}")
    server = "" if sqlite else " (not the database server's)"
    print(f"sweep s: wall time of one sweep; cpu s: this process's CPU time in it{server}")
    print("empty ms: a second sweep right after, with nothing left to do")
    print()
    if len(figures) >= 3:
        big, bigger = figures[-2], figures[-1]
        ratio = bigger.sweep_s / big.sweep_s
        verdict = "OK" if ratio < 2 else "TOO SLOW"
        print(
            f"HEADLINE sweep {bigger.games:,} / {big.games:,} games:"
            f" {ratio:.2f}  (aim: under 2) {verdict}"
        )
        if sqlite:
            cpu_ratio = bigger.cpu_s / big.cpu_s
            print(f"  the same in CPU time: {cpu_ratio:.2f} (steadier on a busy machine)")
    for f in figures[1:]:
        print(
            f"sweep {f.games:,} games / baseline ({base.games:,}): {f.sweep_s / base.sweep_s:.2f}"
        )
    print()
    print(
        "Each due query of pbem/clock/sweeps.py run bare after the sweep (nothing due),"
        " ms, best of 5:"
    )
    print(f"{'games':>11}" + "".join(f" {kind:>10}" for kind in DUE_QUERIES))
    for f in figures:
        print(f"{f.games:>11,}" + "".join(f" {f.due_ms[kind]:>10.3f}" for kind in DUE_QUERIES))
    for kind in DUE_QUERIES:
        first, last = base.due_ms[kind], figures[-1].due_ms[kind]
        if last > 1 and last > 10 * first:
            print(
                f"  {kind}: {last / first:,.0f} times slower with nothing due: it reads rows that"
                " are not due (an index range that also holds rows already handled)"
            )
    print()
    print(f"Query plans of every SELECT/UPDATE a sweep issues, on the {figures[-1].games:,} db:")
    flagged = 0
    for statement, lines in figures[-1].plans:
        problem = bad_plan(lines, sqlite)
        flagged += bool(problem)
        print(f"  {problem.upper() or 'ok':<9} {short(statement)}")
        for line in lines:
            print(f"  {'':<9}   {line}")
    print(f"{flagged} of {len(figures[-1].plans)} statements use a full scan or a sort.")


def main(argv: list[str] | None = None) -> None:
    """Parse arguments, fill, sweep, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--quick", action="store_true", help="sizes 10,000 and 100,000")
    parser.add_argument("--due", type=int, default=100, help="due items per database")
    parser.add_argument("--mix", action="store_true", help="due items of all four kinds")
    parser.add_argument("--history", action="store_true", help="old vacations, 1 per 5 players")
    parser.add_argument(
        "--db",
        default="sqlite",
        help="sqlite (a temporary file, the default) or a database URL, which is WIPED",
    )
    args = parser.parse_args(argv)
    sizes = [10_000, 100_000] if args.quick else args.sizes
    if args.due < 1:
        parser.error("--due must be at least 1")
    if args.db != "sqlite" and not args.db.startswith(("sqlite:///", "postgresql")):
        parser.error("--db: sqlite, or a sqlite:/// or postgresql+psycopg:// URL")
    mix = Mix.split(args.due, args.mix)
    scratch = Path(tempfile.mkdtemp(prefix="pbem-bench-sweep-"))

    def url_for(name: str) -> str:
        """The URL of the database called `name`."""
        return f"sqlite:///{scratch / name}.sqlite3" if args.db == "sqlite" else args.db

    try:
        engine_name = url_for("x").split(":", 1)[0]
        print(f"{engine_name}, sweep at {NOW:%Y-%m-%d %H:%M} UTC, {args.due} due per database")
        site = make_site()
        statements = warm_up(url_for("warm-up"), site)
        print("warm-up sweep done (not timed)")
        figures = []
        for number, games in enumerate([args.due, *sizes]):
            repeats = BASELINE_RUNS if number == 0 else 1
            runs = []
            for _ in range(repeats):
                print(f"  {games:,} games: filling", flush=True)
                url = url_for(f"games-{games}")
                runs.append(measure(url, games, mix, args.history, site, statements))
                wipe(url)
                print(
                    f"  {games:,} games: {runs[-1].rows:,} rows in {runs[-1].fill_s:.1f} s,"
                    f" sweep {runs[-1].sweep_s:.3f} s",
                    flush=True,
                )
            got = sorted(runs, key=lambda f: f.sweep_s)[len(runs) // 2]  # the median
            got.runs = [f.sweep_s for f in runs]
            figures.append(got)
        report(figures, mix, engine_name == "sqlite")
    finally:
        if args.db != "sqlite":
            wipe(args.db)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
