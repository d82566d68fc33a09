"""gunicorn's settings for pbem's web line (`gunicorn -c python:pbem.watch.gunicorn_conf`):
prometheus_client's multiprocess mode, so that /metrics counts every worker's work.

gunicorn forks its workers, and each would count only its own requests: with
PROMETHEUS_MULTIPROC_DIR set before a worker imports prometheus_client, each writes its
counters and histograms to a file of its own in that folder, and /metrics adds the files up
(pbem.watch.scrape). Read by the gunicorn master when it starts, before any worker:

- PROMETHEUS_MULTIPROC_DIR set (a systemd unit's RuntimeDirectory, say): that folder, emptied
  of the files a previous run left (their counts would add to this run's, and a worker given
  an old worker's pid would go on from its numbers);
- unset: a new folder of its own under the temporary directory, removed when gunicorn stops.

Imported by the master only, never by pbem: it sets the variable, which must happen before
prometheus_client is imported (so not with gunicorn's --preload).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
_made: str | None = None
if not os.environ.get(VARIABLE):
    _made = tempfile.mkdtemp(prefix="pbem-metrics-")
    os.environ[VARIABLE] = _made


def on_starting(server: Any) -> None:
    """gunicorn's hook, in the master before the first worker: an empty folder."""
    folder = Path(os.environ[VARIABLE])
    folder.mkdir(parents=True, exist_ok=True)
    for left in folder.glob("*.db"):
        left.unlink(missing_ok=True)


def on_exit(server: Any) -> None:
    """gunicorn's hook, in the master as it stops: the folder it made goes."""
    if _made is not None:
        shutil.rmtree(_made, ignore_errors=True)
