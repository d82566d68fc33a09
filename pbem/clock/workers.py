"""Computer workers: `pbem computers` processes that make the computer moves off the clock.

Each process runs one loop: claim the computer seats due, a batch at a time, and make their
moves (`scheduler.computer_moves`, the clock's own job: one path), then the mail they made;
when none is due, wait `PBEM_COMPUTER_INTERVAL`. Claims keep the processes apart, so more
processes make more strong moves at once: run as many as there are cores to spare.
"""

from __future__ import annotations

import logging
import threading

from flask import Flask

from pbem.clock.scheduler import computer_moves
from pbem.config import settings_of
from pbem.watch import beats

log = logging.getLogger(__name__)


def run_computers(app: Flask, stop: threading.Event) -> int:
    """Make the computer moves that fall due until `stop` is set: how many were made."""
    interval = settings_of(app).computer_interval
    heart = beats.for_app(app, "computers")
    made = 0
    while not stop.is_set():
        heart.maybe()  # every sweep interval, between batches
        try:
            now = computer_moves(app)
        except Exception as exc:
            # The database away for a moment (a restart, a failover): try again later. The
            # type only: a bot's error could name a card of a hidden hand.
            log.error("computer moves failed: %s", type(exc).__name__)
            now = 0
        made += now
        if not now:
            stop.wait(interval)
    return made
