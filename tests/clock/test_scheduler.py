"""The clock's scheduler as `pbem clock` runs it: the outbox job keeps its own interval."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pbem.clock import scheduler
from pbem.clock.scheduler import drain_outbox, make_scheduler
from tests.settings import process_env
from tests.web.helpers import PLAYERS


def test_pbem_clock_sends_mail_every_sender_interval(client: Any, app: Any, smtpd: Any) -> None:
    # The sweep (which also drains the outbox) is an hour away: only the sender job can
    # deliver within the test.
    settings = app.extensions["pbem"]["settings"]
    settings.sender_interval, settings.sweep_interval = 0.2, 3600.0
    scheduler = make_scheduler(app, blocking=True)  # the BlockingScheduler of `pbem clock`
    runner = threading.Thread(target=scheduler.start, daemon=True)
    runner.start()
    try:
        for _ in range(2):  # mail queued while the clock runs, twice: it keeps running
            before = len(smtpd.messages)
            form = {"game": "colour-bazaar"}
            for row, (name, email) in enumerate(PLAYERS):
                form[f"name_{row}"], form[f"email_{row}"] = name, email
            assert client.post("/games", data=form).status_code == 303
            for _ in range(200):  # up to 20 s on a busy machine; a few intervals normally
                if len(smtpd.messages) == before + 3:
                    break
                time.sleep(0.1)
            assert len(smtpd.messages) == before + 3, "the outbox job did not run"
    finally:
        scheduler.shutdown(wait=False)
        runner.join(10)


def test_the_pbem_clock_process_says_what_it_sent(
    client: Any, app: Any, smtpd: Any, tmp_path: Path
) -> None:
    """`pbem clock` as the Procfile runs it writes a line when it sends mail (its INFO lines
    used to go nowhere), and APScheduler's line for every run of a job is not written."""
    form = {"game": "colour-bazaar"}
    for row, (name, email) in enumerate(PLAYERS):
        form[f"name_{row}"], form[f"email_{row}"] = name, email
    assert client.post("/games", data=form).status_code == 303
    env = {**os.environ, **process_env(app, SENDER_INTERVAL=0.2)}
    log = tmp_path / "clock.log"
    command = [sys.executable, "-c", "from pbem.console import main; main()", "clock"]
    with open(log, "wb") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=out)
    try:
        for _ in range(600):  # up to a minute on a busy machine
            if "outbox: 3 sent" in log.read_text(errors="replace"):
                break
            assert process.poll() is None, log.read_text(errors="replace")
            time.sleep(0.1)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)
    text = log.read_text(errors="replace")
    assert "INFO pbem.clock.scheduler: outbox: 3 sent, 0 failed" in text, text[-2000:]
    assert len(smtpd.messages) == 3
    assert "Running job" not in text


def test_the_clock_prunes_once_a_day_and_soon_after_it_starts(app: Any) -> None:
    """A clock restarted every day (a deploy) still prunes: the first run is minutes after
    the start, not a day."""
    scheduler = make_scheduler(app, blocking=False)
    scheduler.start(paused=True)
    try:
        job = scheduler.get_job("prune_old")
        assert job.trigger.interval.total_seconds() == 86400
        assert job.next_run_time - datetime.now(UTC) < timedelta(minutes=11)
    finally:
        scheduler.shutdown(wait=False)


def test_one_outbox_drain_at_a_time_in_a_process_and_none_asked_for_is_lost(
    client: Any, app: Any, smtpd: Any, monkeypatch: Any
) -> None:
    """The sender job, each sweep and each computer move drained the outbox on their own, up
    to three drains at once in one clock. Now a drain asked for while one runs is run by
    that one when its pass ends: one at a time, each mail once, and none left waiting."""
    running: list[int] = []
    most: list[int] = []
    first_in = threading.Event()
    go = threading.Event()
    lock = threading.Lock()

    def watched(*args: Any, **kwargs: Any) -> dict[str, int]:
        with lock:
            running.append(1)
            most.append(len(running))
        if not first_in.is_set():
            first_in.set()
            go.wait(30)  # held, while the others ask for drains
        try:
            return real_drain(*args, **kwargs)
        finally:
            with lock:
                running.pop()

    real_drain = scheduler.drain
    monkeypatch.setattr(scheduler, "drain", watched)
    create(client)
    results: list[dict[str, int]] = []
    held = threading.Thread(target=lambda: results.append(drain_outbox(app)))
    held.start()
    try:
        assert first_in.wait(30)
        create(client)  # more mail, queued while the drain runs
        others = [threading.Thread(target=lambda: results.append(drain_outbox(app)))]
        others.append(threading.Thread(target=lambda: results.append(drain_outbox(app))))
        for thread in others:
            thread.start()
        for thread in others:
            thread.join(30)
        assert results == [{"sent": 0, "failed": 0}] * 2  # left to the drain running
    finally:
        go.set()
        held.join(60)
    assert results[-1] == {"sent": 6, "failed": 0}  # it went round again for them
    assert max(most) == 1
    assert sorted(Counter(str(m["Message-ID"]) for m in smtpd.messages).values()) == [1] * 6


def create(client: Any) -> None:
    """A game of three: three invitations queued."""
    form = {"game": "colour-bazaar"}
    for row, (name, email) in enumerate(PLAYERS):
        form[f"name_{row}"], form[f"email_{row}"] = name, email
    assert client.post("/games", data=form).status_code == 303
