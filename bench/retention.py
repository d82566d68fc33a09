"""What retention leaves of a site's history: each table's rows and size before and after.

Builds `--days` (90) simulated days of a site at a steady `--moves-per-day` (1,000):
two-player Colour Bazaar games started evenly over the days, each played at its own pace
(a move every 0.3 to 1.5 days on average, never over the 3 days a move has), so that the
games of the last weeks are still being played at the end. Every row is shaped like one
the code writes, copied from a sample game played first through the real paths (the
lobby, `pbem.moves.submit_move`, the sender, a table webhook, a sign-in asked for): per
move its log line and the turn mail, a reminder when the turn took over a day, a webhook
event in one game in five, a reply by mail for three moves in ten; per game the mails
of its creation, invitation, start and end; a sign-in mail for every 40 moves. Rows go
in in the order of their times, so ids follow time as they do on a real site.

The history is as the clock left it before issue 45: sent mail and posted webhook events
older than PBEM_KEEP_DAYS (30) emptied of their text, received replies kept 30 days
(the sweep's limit). Then, timed, with its transactions counted: `pbem prune` (the whole
history), the tables again, the same compacted (SQLite: VACUUM; PostgreSQL: VACUUM FULL),
and the clock's next daily run a day later. Last, the plan of every statement retention
ran, any full scan or sort flagged.

    python bench/retention.py                     # SQLite, a temporary file
    python bench/retention.py --db pg             # a throwaway PostgreSQL (pbem.devservers)
    python bench/retention.py --db postgresql+psycopg://localhost/scratch   # WIPES it
    python bench/retention.py --quick             # 45 days at 100 moves a day: a smoke test
"""

# ruff: noqa: E402
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

import argparse
import random
import re
import shutil
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine, event, func, insert, select, text

from bench.instructions import commit, machine
from bench.sweep import bad_plan, chunks, explain, short, wipe
from pbem import create_app, moves, play
from pbem.clock.scheduler import drain_outbox
from pbem.config import settings_of
from pbem.devservers import Postgres, pg_bin
from pbem.games import GAMES
from pbem.mailout.notify import queue_signin
from pbem.models import (
    Game,
    InboundMail,
    Move,
    Outbox,
    Player,
    Seat,
    Webhook,
    WebhookDelivery,
)
from pbem.storage.db import make_engine, migrate, write_session
from pbem.storage.retention import CATCH_UP, prune
from pbem.webhooks import events
from pbem.webhooks.registry import add_webhook

SEED = 20261205
SLUG = "colour-bazaar"
KEEP_DAYS = 30
RECEIVED_KEPT = timedelta(days=30)  # pbem.mailin.receive.KEPT: the sweep drops older replies
NOW = datetime(2026, 12, 5, 9, 0, tzinfo=UTC)
TABLES = {
    "outbox": Outbox,
    "webhookdelivery": WebhookDelivery,
    "inboundmail": InboundMail,
    "game": Game,
    "seat": Seat,
    "move": Move,
    "player": Player,
}
CHUNK = 5000


# --- a sample game, through the real code ---------------------------------------------


@dataclass
class Sample:
    """The rows one real two-player game wrote, to copy."""

    mails: dict[str, dict[str, Any]]  # event: an outbox row's columns
    turn_mails: list[dict[str, Any]]  # the turn mail after each move, in order
    moves: list[dict[str, Any]]  # each move's move and log lines
    game: dict[str, Any]  # the finished game's columns
    hook: dict[str, Any]  # a posted webhook event's body and facts


def _rows(engine: Engine, model: Any, order: Any) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        return [dict(r._mapping) for r in conn.execute(select(model).order_by(order))]


def sample(scratch: Path) -> Sample:
    """Play one game to its end through pbem, with a table webhook; read back its rows."""
    clock = [NOW]
    app = create_app(
        {
            "SECRET_KEY": "bench-retention-secret-of-32-bytes-at-least",
            "DATABASE_URL": f"sqlite:///{scratch / 'sample.sqlite3'}",
            "BASE_URL": "https://pbem.example.org",
            "MAIL_FROM": "pbem@pbem.example.org",
            "REPLY_DOMAIN": "in.pbem.example.org",
            "MAIL_BACKEND": "file",
            "MAIL_DIR": str(scratch / "mail"),
            "DEBUG": True,  # the file backend without its warning
            "CLOCK": lambda: clock[0],
        }
    )
    migrate(settings_of(app).database_url)
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    invitees = [
        play.Invitee("Ana", "ana@example.org", "en"),
        play.Invitee("Léo", "leo@example.org", "fr"),
    ]
    with write_session(engine) as session:
        game_id = play.create_game(session, site, SLUG, invitees, {}, clock[0], seed=SEED).id
    with write_session(engine) as session:
        play.join(session, site, game_id, 1, clock[0])
    with write_session(engine) as session:
        game = session.get(Game, game_id)
        seat = session.execute(
            select(Seat).where(Seat.game_id == game_id, Seat.seat == 0)  # type: ignore[arg-type]
        ).scalar_one()
        owner = session.get(Player, seat.player_id)
        add_webhook(session, owner, game, seat, "table", "http://127.0.0.1:9/hook", "generic",
                    True, clock[0])  # fmt: skip
        queue_signin(session, site, "ana@example.org", clock[0])
    drain_outbox(app)
    while True:
        clock[0] += timedelta(hours=7)
        with write_session(engine) as session:
            game = session.get(Game, game_id)
            if game.status != "active":
                break
            rules = GAMES[SLUG]
            mover = rules.to_act(game.state)[0]
            chosen = rules.legal_moves(game.state, mover)[0]
            token = rules.turn_token(game.state, mover)
            moves.submit_move(session, site, game_id, mover, chosen, token, clock[0])
        drain_outbox(app)
    with write_session(engine) as session:  # the bodies the deliverer would write
        hook = session.execute(select(Webhook)).scalar_one()
        for row in session.execute(select(WebhookDelivery)).scalars():
            events.body_of(session, row, hook)
    mails = _rows(engine, Outbox, Outbox.id)
    deliveries = _rows(engine, WebhookDelivery, WebhookDelivery.id)
    made = {
        "mails": {m["event"]: m for m in mails},
        "turn_mails": [m for m in mails if m["event"] == "your_turn"],
        "moves": [{"move": m["move"], "lines": m["lines"]} for m in _rows(engine, Move, Move.ply)],
        "game": _rows(engine, Game, Game.id)[0],
        "hook": {"body": deliveries[0]["body"], "facts": deliveries[0]["facts"]},
    }
    app.extensions["pbem"]["engine"].dispose()
    return Sample(**made)


# --- the history ------------------------------------------------------------------------


@dataclass
class History:
    """Rows to insert, each table's in the order of its times; game and player by index."""

    games: list[dict[str, Any]] = field(default_factory=list)
    seats: list[dict[str, Any]] = field(default_factory=list)
    moves: list[dict[str, Any]] = field(default_factory=list)
    mails: list[dict[str, Any]] = field(default_factory=list)
    deliveries: list[dict[str, Any]] = field(default_factory=list)
    replies: list[dict[str, Any]] = field(default_factory=list)
    players: int = 0


def simulate(s: Sample, days: int, per_day: int) -> History:
    """The site's `days` of history up to NOW, as the clock left it before issue 45."""
    rng = random.Random(SEED)
    plies = len(s.moves)
    count = max(1, days * per_day // plies)
    h = History(players=max(2, count * 2 // 3))
    cutoff = NOW - timedelta(days=KEEP_DAYS)
    serial = iter(range(1, 1 << 62))

    def mail(event: str, game: int | None, seat: int | None, at: datetime, like: dict) -> None:
        row = {k: v for k, v in like.items() if k not in ("id", "claimed_until", "last_error")}
        n = next(serial)
        row |= {"event": event, "game_id": game, "seat": seat, "player_id": None,
                "message_id": f"<{n:032x}.g{game or 0}@pbem.example.org>",
                "thread_id": f"<game-{game}@pbem.example.org>" if game is not None else None,
                "created_at": at, "next_attempt_at": at, "rendered_at": at,
                "sent_at": at + timedelta(seconds=5), "attempts": 1}  # fmt: skip
        if row["sent_at"] < cutoff:  # what the clock's prune did before issue 45
            row |= {"body_text": "", "body_html": ""}
            row["extra"] = row["extra"] if event == "signin" else {}
        h.mails.append(row)

    for g in range(count):
        created = NOW - timedelta(days=days * (1 - (g + rng.random()) / count))
        pace = rng.uniform(0.3, 1.5)
        hooked = rng.random() < 0.2
        a, b = rng.randrange(h.players), rng.randrange(h.players - 1)
        players = (a, b if b < a else b + 1)
        for seat, player in enumerate(players):
            h.seats.append({"game": g, "seat": seat, "player": player})
        mail("created", g, 0, created, s.mails["created"])
        mail("invitation", g, 1, created, s.mails["invitation"])
        started = created + timedelta(days=min(rng.expovariate(2.0), 3.0))
        at, last = started, None
        if started < NOW:
            mail("started", g, 0, started, s.mails["started"])
        for ply, made in enumerate(s.moves):
            took = timedelta(days=min(rng.expovariate(1 / pace), 3.0))
            if took > timedelta(days=1) and at + timedelta(days=1) < NOW:
                mail("reminder", g, ply % 2, at + timedelta(days=1), s.turn_mails[0])
            at += took
            if at >= NOW:
                break
            h.moves.append({"game": g, "ply": ply, "seat": ply % 2, **made, "created_at": at})
            last = ply
            if ply < plies - 1:
                mail("your_turn", g, (ply + 1) % 2, at, s.turn_mails[ply % len(s.turn_mails)])
            if hooked:
                h.deliveries.append(_delivery(s, at, cutoff, next(serial)))
            if rng.random() < 0.3 and at > NOW - RECEIVED_KEPT:
                h.replies.append({"game": g, "seat": ply % 2, "turn": f"t{ply}",
                                  "move": made["move"], "created_at": at,
                                  "message_id": f"<r{next(serial)}@example.org>"})  # fmt: skip
        over = last == plies - 1
        if over:
            for seat in (0, 1):
                mail("game_over", g, seat, at, s.mails["game_over"])
        ply = 0 if last is None else last + 1
        h.games.append({"created": created, "started": started, "ply": ply,
                        "finished": at if over else None})  # fmt: skip
    for _ in range(len(h.moves) // 40):  # sign-in mails, no game
        mail("signin", None, None, NOW - timedelta(days=days * rng.random()), s.mails["signin"])
    for rows, key in ((h.moves, "created_at"), (h.mails, "created_at"),
                      (h.deliveries, "created_at"), (h.replies, "created_at")):  # fmt: skip
        rows.sort(key=lambda row: row[key])
    return h


def _delivery(s: Sample, at: datetime, cutoff: datetime, n: int) -> dict[str, Any]:
    sent = at + timedelta(seconds=2)
    posted = sent >= cutoff
    return {"event_id": f"w1.{n}", "event": "your_turn", "created_at": at,
            "next_attempt_at": at, "attempts": 1, "sent_at": sent, "given_up": False,
            "body": s.hook["body"] if posted else "",
            "facts": s.hook["facts"] if posted else None}  # fmt: skip


REPLY = {"status": "applied", "sender": "ana@example.org", "reason": ""}


def _without(row: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k != key}


def _id(index: int | None) -> int | None:
    """The row id of the game at `index` (ids start at 1)."""
    return None if index is None else index + 1


def fill(engine: Engine, s: Sample, h: History) -> None:
    """Insert the history; ids are given in order, so they follow time."""
    game_cols = {k: v for k, v in s.game.items() if k not in ("id", "form_key", "watch_key")}
    with engine.begin() as conn:
        players = [{"id": p + 1, "email": f"player{p}@example.org", "name": f"Player {p}",
                    "created_at": NOW - timedelta(days=400)} for p in range(h.players)]  # fmt: skip
        for part in chunks(iter(players), CHUNK):
            conn.execute(insert(Player), part)
        hook = conn.execute(
            insert(Webhook)
            .values(
                player_id=1,
                kind="generic",
                url="https://chat.example.org/h",
                secret="s",
                created_at=NOW - timedelta(days=400),
            )  # fmt: skip
            .returning(Webhook.id)
        ).scalar_one()
        games = []
        for g, row in enumerate(h.games):
            over = row["finished"] is not None
            games.append(game_cols | {
                "id": g + 1, "watch_key": f"w{g:015x}", "ply": row["ply"],
                "status": "over" if over else "active", "finished_at": row["finished"],
                "outcome": s.game["outcome"] if over else None, "created_at": row["created"],
                "updated_at": row["finished"] or NOW, "started_at": row["started"],
            })  # fmt: skip
        for part in chunks(iter(games), CHUNK):
            conn.execute(insert(Game), part)
        seats = [{"game_id": r["game"] + 1, "seat": r["seat"], "player_id": r["player"] + 1,
                  "name": f"Player {r['player']}", "status": "joined",
                  "link_key": f"k{i:015x}"} for i, r in enumerate(h.seats)]  # fmt: skip
        for part in chunks(iter(seats), CHUNK):
            conn.execute(insert(Seat), part)
        outbox = [r | {"game_id": _id(r["game_id"]), "player_id": 1} for r in h.mails]
        tables: list[tuple[Any, list[dict[str, Any]]]] = [
            (Move, [_without(r, "game") | {"game_id": r["game"] + 1} for r in h.moves]),
            (Outbox, outbox),
            (WebhookDelivery, [r | {"webhook_id": hook} for r in h.deliveries]),
            (
                InboundMail,
                [_without(r, "game") | {"game_id": r["game"] + 1} | REPLY for r in h.replies],
            ),
        ]
        for model, rows in tables:
            for part in chunks(iter(rows), CHUNK):
                conn.execute(insert(model), part)
        if engine.dialect.name == "postgresql":  # explicit ids leave the sequences behind
            for table in ("player", "game"):
                conn.exec_driver_sql(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                    f" (SELECT COALESCE(MAX(id), 0) + 1 FROM {table}), false)"
                )
    with engine.connect() as conn:
        conn.exec_driver_sql("ANALYZE")
        conn.commit()


# --- measuring ---------------------------------------------------------------------------


def sizes(engine: Engine) -> dict[str, tuple[int, float]]:
    """Each table's rows and megabytes (with its indexes: SQLite's dbstat pages, or
    PostgreSQL's pg_total_relation_size)."""
    found = {}
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            pages = dict(conn.execute(text(
                "SELECT m.tbl_name, SUM(d.pgsize) FROM dbstat d"
                " JOIN sqlite_master m ON m.name = d.name GROUP BY m.tbl_name"
            )).all())  # fmt: skip
        for name, model in TABLES.items():
            rows = conn.execute(select(func.count()).select_from(model)).scalar_one()
            if engine.dialect.name == "sqlite":
                size = pages.get(name, 0)
            else:
                size = conn.execute(text(f"SELECT pg_total_relation_size('{name}')")).scalar_one()
            found[name] = (int(rows), size / 1e6)
    return found


def file_mb(engine: Engine) -> float:
    """The whole database's megabytes (the SQLite file, or the PostgreSQL database)."""
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            return float(conn.exec_driver_sql("PRAGMA page_count").scalar_one()
                         * conn.exec_driver_sql("PRAGMA page_size").scalar_one()) / 1e6  # fmt: skip
        return conn.execute(text("SELECT pg_database_size(current_database())")).scalar_one() / 1e6


def compact(engine: Engine) -> None:
    """Give the freed space back to the file system: VACUUM, or PostgreSQL's VACUUM FULL."""
    if engine.dialect.name == "sqlite":  # pbem's engine begins every transaction itself
        raw = engine.raw_connection()
        try:
            raw.cursor().execute("VACUUM")
        finally:
            raw.close()
        return
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql("VACUUM FULL")


@dataclass
class Run:
    """One retention run: its counts, seconds and write transactions."""

    counts: dict[str, int]
    seconds: float
    transactions: list[float]  # each committed transaction's milliseconds


@contextmanager
def watched(engine: Engine) -> Iterator[tuple[list[float], dict[str, Any]]]:
    """Each committed transaction's length, and each statement's shape with parameters."""
    begun: dict[int, float] = {}
    lengths: list[float] = []
    statements: dict[str, Any] = {}

    def begin(conn: Any) -> None:
        begun[id(conn)] = time.perf_counter()

    def commit_(conn: Any) -> None:
        if id(conn) in begun:
            lengths.append(1000 * (time.perf_counter() - begun.pop(id(conn))))

    def executed(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        if statement.lstrip().split(" ", 1)[0].upper() in ("SELECT", "UPDATE", "DELETE"):
            shape = re.sub(r"%\(\w+\)s(::[A-Z ]+)?|\?", "?", statement)
            shape = re.sub(r"\?(, \?)+", "...", shape)
            statements.setdefault(shape, (statement, parameters))

    listeners = (("begin", begin), ("commit", commit_), ("before_cursor_execute", executed))
    for name, listener in listeners:
        event.listen(engine, name, listener)
    try:
        yield lengths, statements
    finally:
        for name, listener in listeners:
            event.remove(engine, name, listener)


def run(engine: Engine, now: datetime, since: timedelta | None, seen: dict[str, Any]) -> Run:
    """Time one retention run at `now`; its statements added to `seen`."""
    with watched(engine) as (lengths, statements):
        started = time.perf_counter()
        counts = prune(engine, now, KEEP_DAYS, since=since)
        seconds = time.perf_counter() - started
    seen.update({k: v for k, v in statements.items() if k not in seen})
    return Run(counts, seconds, lengths)


# --- output ------------------------------------------------------------------------------


def table(before: dict, after: dict, compacted: dict, compact_name: str) -> None:
    print(f"{'table':<16} {'rows before':>12} {'MB before':>10} {'rows after':>11}"
          f" {'MB after':>9} {'MB ' + compact_name:>{len(compact_name) + 3}}")  # fmt: skip
    for name in TABLES:
        (rb, mb), (ra, ma), (_, mc) = before[name], after[name], compacted[name]
        print(f"{name:<16} {rb:>12,} {mb:>10.1f} {ra:>11,} {ma:>9.1f}"
              f" {mc:>{len(compact_name) + 3}.1f}")  # fmt: skip


def describe(label: str, r: Run) -> None:
    t = r.transactions
    longest = f", the longest {max(t):.1f} ms, median {statistics.median(t):.1f} ms" if t else ""
    print(f"{label}: {r.seconds:.2f} s, {len(t)} write transactions{longest}")
    print(f"  deleted {r.counts['mails']:,} sent mails, {r.counts['webhooks']:,} webhook"
          f" deliveries, {r.counts['received']:,} received mails;"
          f" emptied {r.counts['emptied']:,} sent mails")  # fmt: skip


def judge(statement: str, lines: list[str], sqlite: bool) -> str:
    """A plan's problem, as bench/sweep.py sees it, less two that read no more than a page:
    SQLite's walk of a table in id order stopped by the LIMIT, and PostgreSQL's
    incremental sort of an index's order by the id (rows equal in the index's columns)."""
    problem = bad_plan(lines, sqlite)
    if problem == "full scan" and re.search(r"ORDER BY \w+\.id\s+LIMIT", statement):
        return ""
    if problem == "sort" and not any(
        line.lstrip("-> ").startswith("Sort ") for line in lines if "Sort Key" not in line
    ):
        return "" if any("Presorted Key" in line for line in lines) else problem
    return problem


def main(argv: list[str] | None = None) -> None:
    """Build, measure, prune, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--moves-per-day", type=int, default=1000)
    parser.add_argument("--quick", action="store_true", help="45 days at 100 moves a day")
    parser.add_argument(
        "--db", default="sqlite",
        help="sqlite (a temporary file), pg (a throwaway PostgreSQL) or a URL, which is WIPED",
    )  # fmt: skip
    args = parser.parse_args(argv)
    days, per_day = (45, 100) if args.quick else (args.days, args.moves_per_day)
    scratch = Path(tempfile.mkdtemp(prefix="pbem-bench-retention-"))
    server = None
    try:
        if args.db == "sqlite":
            url = f"sqlite:///{scratch / 'history.sqlite3'}"
        elif args.db == "pg":
            bin_dir = pg_bin()
            if bin_dir is None:
                raise SystemExit("PostgreSQL's programs were not found: apt-get install postgresql")
            server = Postgres(bin_dir, "-c fsync=off")
            server.start()
            url = server.create_database("pbem_retention")
        else:
            url = args.db
            wipe(url)
        print(f"pbem at {commit()}, {machine()}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
        s = sample(scratch)
        h = simulate(s, days, per_day)
        migrate(url)
        engine = make_engine(url)
        started = time.perf_counter()
        fill(engine, s, h)
        over = sum(1 for g in h.games if g["finished"] is not None)
        playing, spent = len(h.games) - over, time.perf_counter() - started
        print(f"{url.split(':', 1)[0]}: {days} days at {per_day:,} moves a day:"
              f" {len(h.games):,} games ({over:,} over, {playing:,} being played),"
              f" {len(h.moves):,} moves, filled in {spent:.0f} s")  # fmt: skip
        before, whole_before = sizes(engine), file_mb(engine)
        seen: dict[str, Any] = {}
        full = run(engine, NOW, None, seen)
        after, whole_after = sizes(engine), file_mb(engine)
        daily = run(engine, NOW + timedelta(days=1), CATCH_UP, seen)
        again = run(engine, NOW + timedelta(days=1), CATCH_UP, seen)
        plans = explain(engine, dict(seen.values()))
        compact(engine)
        compacted, whole_compacted = sizes(engine), file_mb(engine)
        engine.dispose()
        name = "VACUUM" if url.startswith("sqlite") else "VACUUM FULL"
        print()
        table(before, after, compacted, name)
        print(f"{'the database':<16} {'':>12} {whole_before:>10.1f} {'':>11} {whole_after:>9.1f}"
              f" {whole_compacted:>{len(name) + 3}.1f}")  # fmt: skip
        print()
        describe("pbem prune (the whole history)", full)
        describe("the clock's next daily run, a day later", daily)
        describe("the same again (nothing left)", again)
        print()
        print("Plans of the statements retention ran:")
        flagged = 0
        for statement, lines in plans:
            problem = judge(statement, lines, url.startswith("sqlite"))
            flagged += bool(problem)
            print(f"  {problem.upper() or 'ok':<9} {short(statement)[:150]}")
            for line in lines:
                print(f"  {'':<9}   {line[:150]}")
        print(f"{flagged} of {len(plans)} statements use a full scan or a sort.")
    finally:
        if server is not None:
            server.stop()
        elif args.db not in ("sqlite", "pg"):
            wipe(args.db)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
