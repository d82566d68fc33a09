"""bench/retention.py runs its quick round: retention deletes rows, a second run finds nothing,
and no statement it ran reads a whole table or sorts."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_retention_quick_deletes_and_reads_by_index() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "retention.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    outbox = re.search(r"^outbox +([\d,]+) +[\d.]+ +([\d,]+)", out, re.M)
    assert outbox, out[-3000:]
    before, after = (int(n.replace(",", "")) for n in outbox.groups())
    assert 0 < after < before
    again = r"^the same again \(nothing left\): [\d.]+ s, 0 write transactions$"
    assert re.search(again, out, re.M), out[-3000:]
    assert re.search(r"^0 of \d+ statements use a full scan or a sort\.$", out, re.M), out
