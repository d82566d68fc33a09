"""The clock's scheduler as `pbem clock` runs it: the outbox job keeps its own interval."""

from __future__ import annotations

import threading
import time
from typing import Any

from pbem.scheduler import make_scheduler
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
