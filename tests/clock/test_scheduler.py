"""The clock's scheduler as `pbem clock` runs it: the outbox job keeps its own interval."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pbem.clock.scheduler import make_scheduler
from tests.settings import process_env
from tests.web.helpers import PLAYERS


def test_pbem_clock_sends_mail_every_sender_interval(client: Any, app: Any, smtpd: Any) -> None:
    # The sweep (which also drains the outbox) is an hour away: only the sender job can
    # deliver within the test.
    app.config.update(SENDER_INTERVAL=0.2, SWEEP_INTERVAL=3600.0)
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
