"""Computer workers racing over the same due seats (issue 33): each seat is claimed by one
worker, its move worked out and made once, its mail sent once; a seat claimed by a worker
that died is taken by another once the lease is past; the clock can leave computers to
the workers. Each worker is an app with its own engine, as a `pbem computers` process is."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from pbem import play
from pbem.clock import computer_play
from pbem.clock.computer_play import claim_due, move_claimed
from pbem.clock.scheduler import computer_moves, make_scheduler
from pbem.clock.workers import run_computers
from pbem.config import settings_of
from pbem.models import Outbox, Seat
from pbem.storage.db import read_session, write_session
from tests.app import make_test_app
from tests.clock.helpers import moves, race_computer_jobs
from tests.settings import process_env
from tests.web.helpers import deliver, headline

GAMES = 6
ANA = play.Invitee("Ana", "ana@example.org")


@pytest.fixture
def decisions(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[Any, int, int]]:
    """Every decision a bot makes, by (game seed, ply, seat); each takes a few ms, so that
    two workers are busy at the same time."""
    made: Counter[tuple[Any, int, int]] = Counter()
    lock = threading.Lock()
    decide = computer_play.decide

    def counted(rules: Any, state: Any, seat: int, level: str, seed: Any) -> Any:
        with lock:
            made[(seed, state["ply"], seat)] += 1
        time.sleep(0.01)
        return decide(rules, state, seat, level, seed)

    monkeypatch.setattr(computer_play, "decide", counted)
    return made


def _games(app: Any, clock: Any, send: bool = True) -> None:
    """Games of Ana and two beginner computers, the first computer to move: one computer
    seat due in each, then the other; `send`: their start mails sent."""
    ext = app.extensions["pbem"]
    for seed in range(GAMES):
        invitees = [ANA, *[play.Invitee("", "", computer="beginner")] * 2]
        with write_session(ext["engine"]) as session:
            play.create_game(
                session, ext["site"], "colour-bazaar", invitees, {"first": 1}, clock(), seed=seed
            )
    if send:
        deliver(app)


@pytest.fixture
def second(database_url: str, clock: Any, smtpd: Any, tmp_path: Any) -> Any:
    """A second worker: another app with its own engine on the same database."""
    worker = make_test_app(database_url, clock, smtpd, tmp_path / "second")
    yield worker
    worker.extensions["pbem"]["engine"].dispose()


def test_two_workers_make_each_computer_move_once(
    app: Any, second: Any, clock: Any, smtpd: Any, decisions: Counter[Any]
) -> None:
    _games(app, clock)
    mailed = len(smtpd.messages)
    for _ in range(2):
        # Not before the delay; then every computer seat due is moved by one worker.
        assert race_computer_jobs([app, second]) == [0, 0]
        clock.advance(seconds=4)
        assert sum(race_computer_jobs([app, second])) == GAMES
    assert race_computer_jobs([app, second]) == [0, 0]  # Ana's turn everywhere now
    with read_session(app.extensions["pbem"]["engine"]) as session:
        held = session.exec(select(Seat).where(Seat.computer_claimed_until != None)).all()  # noqa: E711
    assert held == []  # each claim ended with its move: a seat due again is free at once
    # Twelve seats, each decided once and moved once.
    assert len(decisions) == 2 * GAMES and set(decisions.values()) == {1}
    made = moves(app, "computer")
    assert sorted((m.game_id, m.ply, m.seat) for m in made) == sorted(
        (game, ply, ply + 1) for game in range(1, GAMES + 1) for ply in (0, 1)
    )
    # The mails those moves made (Ana's "your move") went out once, from either worker.
    deliver(app)
    got = smtpd.messages[mailed:]
    ids = [str(m["Message-ID"]) for m in got]
    assert len(got) == GAMES and len(set(ids)) == GAMES
    assert {str(m["To"]) for m in got} == {"Ana <ana@example.org>"}
    assert all(headline(m).startswith("your move") for m in got)
    assert len({str(m["Subject"]) for m in got}) == GAMES  # one a game
    with read_session(app.extensions["pbem"]["engine"]) as session:
        rows = session.exec(select(Outbox).where(Outbox.sent_at != None)).all()  # noqa: E711
    assert len(rows) == mailed + GAMES


def test_a_dead_workers_seats_are_taken_once_its_lease_is_past(
    app: Any, second: Any, clock: Any, decisions: Counter[Any]
) -> None:
    _games(app, clock)
    clock.advance(seconds=4)
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    lease = timedelta(seconds=float(settings_of(app).computer_lease))
    # A worker claims the seats due, then dies before working any of them out.
    now, before = clock(), clock() - timedelta(seconds=3)
    claimed = claim_due(engine, now, before, GAMES, lease)
    assert len(claimed) == GAMES
    assert computer_moves(second) == 0  # held: the other worker leaves them
    clock.advance(seconds=lease.total_seconds() - 10)
    assert computer_moves(second) == 0
    clock.advance(seconds=11)  # the lease is past
    assert computer_moves(second) == GAMES
    assert len(decisions) == GAMES and set(decisions.values()) == {1}
    # Were the first worker only stalled, its late work would find the seats moved.
    assert move_claimed(engine, site, claimed, now, before, now + lease) == 0
    assert len(moves(app, "computer")) == GAMES


def test_the_clock_leaves_computers_to_workers_when_told(
    app: Any, database_url: str, clock: Any, smtpd: Any, tmp_path: Any
) -> None:
    jobs = {job.id for job in make_scheduler(app, blocking=False).get_jobs()}
    assert "computer_moves" in jobs  # one process (`make run`) still plays computers
    workers = make_test_app(database_url, clock, smtpd, tmp_path / "w", CLOCK_COMPUTERS=False)
    jobs = {job.id for job in make_scheduler(workers, blocking=False).get_jobs()}
    workers.extensions["pbem"]["engine"].dispose()
    assert "computer_moves" not in jobs and "sweep" in jobs


def test_pbem_computers_once_makes_the_moves_due(app: Any, runner: Any, clock: Any) -> None:
    _games(app, clock)
    clock.advance(seconds=4)
    result = runner.invoke(args=["computers", "--once"])
    assert result.exit_code == 0, result.output
    assert f"{GAMES} computer moves" in result.output
    assert len(moves(app, "computer")) == GAMES


def test_a_worker_loop_plays_until_stopped(app: Any, second: Any, clock: Any) -> None:
    _games(app, clock)
    clock.advance(seconds=4)
    settings_of(second).computer_interval = 0.05
    stop = threading.Event()
    result: list[int] = []
    worker = threading.Thread(target=lambda: result.append(run_computers(second, stop)))
    worker.start()
    try:
        for _ in range(400):  # at most 20 s: the moves are made at the loop's first look
            if len(moves(app, "computer")) == GAMES:
                break
            time.sleep(0.05)
        clock.advance(seconds=4)  # the second computers fall due while the loop waits
        for _ in range(400):
            if len(moves(app, "computer")) == 2 * GAMES:
                break
            time.sleep(0.05)
    finally:
        stop.set()
        worker.join()
    assert result == [2 * GAMES]


def test_two_pbem_computers_processes_share_the_moves(
    app: Any, clock: Any, smtpd: Any, tmp_path: Path
) -> None:
    """`pbem computers` as the Procfile runs it, twice, on real time: the seats fell due
    on the test clock's date, long past."""
    env = {
        **os.environ,
        **process_env(app, COMPUTER_DELAY=0.2, COMPUTER_INTERVAL=0.1, SENDER_INTERVAL=0.1),
        "PYTHONUNBUFFERED": "1",
    }
    command = [sys.executable, "-c", "from pbem.console import main; main()", "computers"]
    logs = [tmp_path / f"computers{i}.log" for i in range(2)]
    processes = []
    for log in logs:
        with open(log, "wb") as out:
            processes.append(subprocess.Popen(command, env=env, stdout=out, stderr=out))
    try:
        for _ in range(600):  # both up (a SIGTERM before its handler would kill one)
            if all("running" in log.read_text(errors="replace") for log in logs):
                break
            time.sleep(0.1)
        # The processes send the mail: this test's sender, on the test clock's date, would
        # hold its claims on rows until a lease long past in their real time.
        _games(app, clock, send=False)
        for _ in range(600):  # up to a minute on a busy machine
            if len(moves(app, "computer")) == 2 * GAMES and len(smtpd.messages) >= 2 * GAMES:
                break
            for process, log in zip(processes, logs, strict=True):
                assert process.poll() is None, log.read_text(errors="replace")
            time.sleep(0.1)
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        codes = [process.wait(30) for process in processes]
    texts = [log.read_text(errors="replace") for log in logs]
    assert codes == [0, 0], texts
    # Each process says what it made: together every computer move, once.
    made = [int(n) for text in texts for n in re.findall(r"computer moves: (\d+)", text)]
    assert sum(made) == 2 * GAMES, texts
    assert len(moves(app, "computer")) == 2 * GAMES
    # Each game's start mail and Ana's "your move", once each.
    got = smtpd.messages
    assert len(got) == 2 * GAMES and len({str(m["Message-ID"]) for m in got}) == 2 * GAMES
    assert sum(headline(m).startswith("your move") for m in got) == GAMES
