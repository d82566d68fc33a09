"""How fast the outbox sender renders and sends mail over real SMTP, beside bare smtplib.

The mail of whole two-player Colour Bazaar games is queued in a fresh SQLite database (each
move through moves.submit_move, as the site queues it), then pbem's sender drains it into an
aiosmtpd server in another process, whose every reply can be held back (--rtt) to stand for
a server across a network (a new connection waits three of them before its first mail: the
TCP handshake, the greeting, EHLO; a real server's STARTTLS and login add more). The same
queue (a copy of the database) is drained with one SMTP connection per drain (what pbem
does) and with one connection per mail (what it did before), each twice in turn, the
faster run of each printed. The baseline sends the same messages, built beforehand, with
bare smtplib on one connection. Printed: mails per second, the sender's CPU per mail (the
SMTP server's is not counted), and its time rendering (claim included) and sending.
Nothing is asserted.

    python bench/sender.py                 # 20 games, replies at once
    python bench/sender.py --rtt 0.02      # every SMTP reply 20 ms late
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
import multiprocessing
import shutil
import smtplib
import sqlite3
import tempfile
import time
from datetime import UTC, datetime
from typing import Any

from bench.throughput import make_games, make_site
from pbem.config import load_settings
from pbem.devservers import HOST, free_port
from pbem.games import GAMES
from pbem.mailout.mailer import SmtpBackend, build_message
from pbem.mailout.sender import drain
from pbem.models import Game, Outbox
from pbem.moves import submit_move
from pbem.storage.db import make_engine, migrate, read_session, write_session

RULES = GAMES["colour-bazaar"]
CONFIG = {"MAIL_FROM": "pbem@localhost", "MAIL_FROM_NAME": "pbem", "SENDER_BATCH": 50}


class Slow:
    """An aiosmtpd handler that takes every mail and holds each reply back `rtt` seconds."""

    def __init__(self, rtt: float) -> None:
        self.rtt = rtt

    async def handle_EHLO(self, server, session, envelope, hostname, responses):  # noqa: ANN001, ANN201, N802
        await asyncio.sleep(2 * self.rtt)  # the TCP handshake and the greeting, then EHLO
        session.host_name = hostname
        return responses

    async def handle_QUIT(self, server, session, envelope):  # noqa: ANN001, ANN201, N802
        await asyncio.sleep(self.rtt)
        return "221 Bye"

    async def handle_MAIL(self, server, session, envelope, address, options):  # noqa: ANN001, ANN201, N802
        await asyncio.sleep(self.rtt)
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, options):  # noqa: ANN001, ANN201, N802
        await asyncio.sleep(self.rtt)
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(options)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):  # noqa: ANN001, ANN201, N802
        await asyncio.sleep(self.rtt)
        return "250 OK"


def serve(port: int, rtt: float) -> None:
    """Run the SMTP server until killed (in its own process: its CPU is not the sender's)."""
    from aiosmtpd.controller import Controller

    controller = Controller(Slow(rtt), hostname=HOST, port=port)
    controller.start()
    while True:
        time.sleep(3600)


def queue_mail(url: str, games: int) -> int:
    """Play `games` whole games move by move; the number of mails queued."""
    site = make_site(8000)
    made = make_games(url, site, games, first=1)
    engine = make_engine(url)
    for bench_game in made:
        while True:
            with write_session(engine) as session:
                game = session.get(Game, bench_game.id)
                assert game is not None and game.state is not None
                acting = RULES.to_act(game.state)
                if not acting:
                    break
                seat = acting[0]
                move = RULES.legal_moves(game.state, seat)[0]
                token = RULES.turn_token(game.state, seat)
                submit_move(session, site, bench_game.id, seat, move, token, datetime.now(UTC))
    with read_session(engine) as session:
        count = len(session.exec(Outbox.__table__.select()).all())  # type: ignore[attr-defined]
    engine.dispose()
    with sqlite3.connect(url.split("///", 1)[1]) as raw:
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the copies hold the whole queue
    return count


def drain_copy(source: Path, scratch: Path, name: str, port: int, per_connection: int) -> dict:
    """Drain a copy of the queued database into the server; the figures."""
    target = scratch / f"{name}.sqlite3"
    shutil.copy(source, target)
    url = f"sqlite:///{target}"
    engine = make_engine(url)
    config = load_settings(
        {"DEBUG": True, **CONFIG}
        | {
            "SMTP_HOST": HOST,
            "SMTP_PORT": port,
            "SMTP_USER": "",
            "SMTP_PASSWORD": "",
            "SMTP_SECURITY": "none",
            "SMTP_TIMEOUT": 30.0,
        }
    )
    backend = SmtpBackend(config)
    backend.PER_CONNECTION = per_connection  # type: ignore[misc]
    stats: dict[str, float] = {}
    wall, cpu = time.perf_counter(), time.process_time()
    done = drain(engine, make_site(8000), backend, config, datetime.now(UTC), stats)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    with read_session(engine) as session:
        messages = [
            build_message(row, CONFIG["MAIL_FROM"], "pbem")
            for row in session.exec(Outbox.__table__.select())  # type: ignore[attr-defined]
        ]
    engine.dispose()
    return {"done": done, "wall": wall, "cpu": cpu, "stats": stats, "messages": messages}


def bare(port: int, messages: list[Any]) -> dict:
    """The same messages, built beforehand, sent by smtplib on one connection: the floor."""
    wall, cpu = time.perf_counter(), time.process_time()
    with smtplib.SMTP(HOST, port, timeout=30) as smtp:
        for mail in messages:
            smtp.sendmail(mail.sender, [mail.recipient], mail.data)
    return {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}


def main() -> None:
    """Queue, drain both ways, send bare, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--rtt", type=float, default=0.0, help="seconds each SMTP reply waits")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="pbem-bench-sender-"))
    port = free_port()
    server = multiprocessing.get_context("spawn").Process(
        target=serve, args=(port, args.rtt), daemon=True
    )
    server.start()
    try:
        source = scratch / "queued.sqlite3"
        url = f"sqlite:///{source}"
        migrate(url)
        count = queue_mail(url, args.games)
        late = args.rtt * 1000
        print(f"{count} mails queued by {args.games} games; each SMTP reply {late:.0f} ms late")
        time.sleep(0.5)  # the server is up
        # Each way twice, in turn, the faster run of each kept: the first drains of a
        # process pay for compiling templates and statements.
        limit = getattr(SmtpBackend, "PER_CONNECTION", 1)
        runs: dict[int, list[dict]] = {limit: [], 1: []}
        for turn in range(4):
            per_connection = (limit, 1)[turn % 2]
            runs[per_connection].append(
                drain_copy(source, scratch, f"run{turn}", port, per_connection)
            )
        kept, each = (min(runs[key], key=lambda run: run["wall"]) for key in (limit, 1))
        floor = min((bare(port, kept["messages"]) for _ in range(2)), key=lambda r: r["wall"])
        n = len(kept["messages"])
        head = f"{'':38} {'mails':>6} {'per s':>8} {'CPU ms/mail':>12}"
        print(f"{head} {'render s':>9} {'send s':>7}")
        rates = {}
        for name, run in (("one connection a drain", kept), ("one connection a mail", each)):
            sent = run["done"]["sent"]
            rates[name] = sent / run["wall"]
            stats = run["stats"]
            print(
                f"pbem sender, {name:25} {sent:>6} {rates[name]:>8.1f}"
                f" {run['cpu'] * 1000 / sent:>12.2f}"
                f" {stats.get('render_s', 0):>9.2f} {stats.get('send_s', 0):>7.2f}"
            )
        floor_rate = n / floor["wall"]
        cpu = floor["cpu"] * 1000 / n
        print(f"{'bare smtplib, one connection':38} {n:>6} {floor_rate:>8.1f} {cpu:>12.2f}")
        kept_rate, each_rate = rates.values()
        print(
            f"ratios: a drain/bare {kept_rate / floor_rate:.2f}, a mail/bare"
            f" {each_rate / floor_rate:.2f}, a drain/a mail {kept_rate / each_rate:.2f}"
        )
    finally:
        server.kill()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
