"""Processes killed at the worst moment: the sender after SMTP accepted, the clock mid-sweep."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlmodel import select

from pbem.clock.scheduler import drain_outbox
from pbem.models import Outbox
from pbem.storage.db import read_session
from tests.clock.helpers import moves, new_game, run_sweep
from tests.settings import process_env
from tests.web.helpers import PLAYERS, deliver, headline

ROOT = Path(__file__).resolve().parents[2]


def run_killed(app: Any, what: str) -> None:
    """Run tests/faults/crash.py with the app's settings; it must die by SIGKILL."""
    env = {**os.environ, **process_env(app)}
    done = subprocess.run(
        [sys.executable, "-m", "tests.faults.crash", what],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr


def test_sender_killed_after_smtp_accepted_resends_with_the_same_message_id(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    form = {"game": "colour-bazaar"}
    for row, (name, email) in enumerate(PLAYERS):
        form[f"name_{row}"], form[f"email_{row}"] = name, email
    assert client.post("/games", data=form).status_code == 303
    run_killed(app, "sender")
    (accepted,) = smtpd.messages  # the server took the first mail, then the sender died
    # The dead sender's claim lapses; the next drain sends everything not marked sent.
    clock.now = datetime.now(UTC) + timedelta(minutes=6)
    assert drain_outbox(app) == {"sent": 3, "failed": 0}
    ids = Counter(str(m["Message-ID"]) for m in smtpd.messages)
    assert ids[str(accepted["Message-ID"])] == 2  # at least once, with a stable Message-ID
    assert sorted(ids.values()) == [1, 1, 2]
    with read_session(app.extensions["pbem"]["engine"]) as session:
        assert all(row.sent_at for row in session.exec(select(Outbox)))


def test_clock_killed_mid_sweep_is_completed_once_by_the_next(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    for n in range(5):
        new_game(
            client,
            app,
            smtpd,
            [(f"A{n}", f"a{n}@example.org"), (f"B{n}", f"b{n}@example.org")],
            **{"opt_colour-bazaar_first": "0"},
        )
    # The subprocess sweeps at the real time, long after these deadlines.
    run_killed(app, "sweep")
    assert sorted(m.game_id for m in moves(app)) == [1, 2]  # game 3 was rolled back whole
    clock.now = datetime.now(UTC) + timedelta(minutes=1)
    run_sweep(app)
    assert sorted(m.game_id for m in moves(app) if m.ply == 0) == [1, 2, 3, 4, 5]
    assert Counter((m.game_id, m.ply) for m in moves(app)).most_common(1)[0][1] == 1
    smtpd.clear()
    deliver(app)
    timeouts = [m for m in smtpd.messages if "time ran out" in headline(m)]
    assert len(timeouts) == 5  # one mail per timed-out seat, none twice


def test_after_a_sender_crash_the_other_mails_do_not_wait_for_a_lease(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    form = {"game": "colour-bazaar"}
    for row, (name, email) in enumerate(PLAYERS):
        form[f"name_{row}"], form[f"email_{row}"] = name, email
    assert client.post("/games", data=form).status_code == 303
    run_killed(app, "sender")
    (accepted,) = smtpd.messages
    # Right after the crash: the mails the dead sender had not begun go out at once...
    clock.now = datetime.now(UTC)
    assert drain_outbox(app) == {"sent": 2, "failed": 0}
    ids = Counter(str(m["Message-ID"]) for m in smtpd.messages)
    assert sorted(ids.values()) == [1, 1, 1]  # none twice
    # ...and the one it was sending waits out a few SMTP timeouts (10 s each), not minutes.
    clock.now = datetime.now(UTC) + timedelta(seconds=31)
    assert drain_outbox(app) == {"sent": 1, "failed": 0}
    ids = Counter(str(m["Message-ID"]) for m in smtpd.messages)
    assert ids[str(accepted["Message-ID"])] == 2 and sorted(ids.values()) == [1, 1, 2]
