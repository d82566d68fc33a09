"""Heartbeats: each long-running process's row in `heartbeat`, written by that process alone.

The clock beats from a job of its scheduler every sweep interval (so does `pbem serve`, which
runs the clock beside the web pages, as kind "serve"), a computer worker from its loop, the
inbound listener from a thread while it listens. A row is keyed by a random id made at the
process's start: no two processes ever write one row, on one host or on many. It carries the
process's counters and histograms (pbem.counters.samples), so that /metrics on a web host shows
the work of processes on hosts that serve no pages (pbem.watch.scrape). Gunicorn's web
workers do not beat: their series are in PROMETHEUS_MULTIPROC_DIR's files.

The clock drops the rows of processes silent for a day (stopped, or their host gone).
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, delete, func, update
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from pbem.config import settings_of
from pbem.counters import metrics
from pbem.counters.samples import Snapshot, snapshot
from pbem.models import Heartbeat
from pbem.storage.db import write_session

log = logging.getLogger(__name__)
KINDS = ("clock", "computers", "inbound", "serve")
CLOCKS = ("clock", "serve")  # the kinds that run the clock's jobs (/readyz asks for one)
SILENT = timedelta(days=1)  # a row not written for this long is dropped by the clock
FRESH_BEATS = 10  # a row's series count in /metrics for this many beat intervals after it
HOST = socket.gethostname()[:255]


class Beats:
    """This process's heartbeat: who it is (a new random id each start) and when it wrote."""

    def __init__(
        self, engine: Engine, kind: str, now: Callable[[], datetime], every: float
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"no process kind {kind!r}")
        self.engine, self.kind, self.now, self.every = engine, kind, now, every
        self.id = secrets.token_hex(16)
        self.host = HOST
        self.pid = os.getpid()
        self.started_at = now()
        self._last: float | None = None  # time.monotonic() of the last beat
        self._warned = False

    def beat(self) -> bool:
        """Write this process's row now (a clock also drops rows silent for a day); False
        when the database did not take it (the next beat tries again)."""
        now = self.now()
        self._last = time.monotonic()
        try:
            with write_session(self.engine) as session:
                self._write(session, now, self._samples())
                if self.kind in CLOCKS:
                    session.execute(delete(Heartbeat).where(col(Heartbeat.beat_at) < now - SILENT))
        except SQLAlchemyError as exc:
            # The type only: a driver's message may name the database's host and user.
            log.warning("heartbeat not written: %s", type(exc).__name__)
            return False
        return True

    def maybe(self) -> bool:
        """Beat if the last beat is an interval old (or none was made): whether it beat."""
        if self._last is not None and time.monotonic() - self._last < self.every:
            return False
        return self.beat()

    def _write(self, session: Session, now: datetime, samples: Snapshot | None) -> None:
        """Update this process's row, or make it (the first beat, or after a long silence
        the clock dropped it)."""
        done = session.execute(
            update(Heartbeat)
            .where(col(Heartbeat.id) == self.id)
            .values(beat_at=now, samples=samples)
        )
        if getattr(done, "rowcount", 0) != 1:
            row = Heartbeat(id=self.id, kind=self.kind, host=self.host, pid=self.pid,
                            started_at=self.started_at, beat_at=now, samples=samples)  # fmt: skip
            session.add(row)

    def _samples(self) -> Snapshot | None:
        """This process's series, or None where they go to PROMETHEUS_MULTIPROC_DIR."""
        if os.environ.get(metrics.MULTIPROC_DIR):
            # The web workers of this host read that folder: published here as well, they
            # would count twice.
            if not self._warned:
                self._warned = True
                log.warning(
                    "%s is set for pbem %s: its series stay in that folder, for the web"
                    " workers of this host only; set it for the web process alone",
                    metrics.MULTIPROC_DIR,
                    self.kind,
                )
            return None
        return snapshot(metrics.REGISTRY)


def for_app(app: Any, kind: str) -> Beats:
    """The process's Beats, made on first use with `kind` (later kinds are ignored: a
    process is one thing, `pbem serve` a "serve" whatever it runs)."""
    beats: Beats | None = app.extensions.get("pbem.beats")
    if beats is None:
        engine, interval = app.extensions["pbem"]["engine"], settings_of(app).sweep_interval
        # dict.setdefault is atomic: two threads asking at once get one Beats.
        beats = app.extensions.setdefault(
            "pbem.beats", Beats(engine, kind, app.config["CLOCK"], interval)
        )
    return beats


def of_app(app: Any) -> Beats | None:
    """The process's Beats, if it beats (a web worker does not)."""
    beats: Beats | None = app.extensions.get("pbem.beats")
    return beats


@contextmanager
def beating(app: Any, kind: str) -> Iterator[Beats]:
    """Beat every interval from a thread of its own while the block runs."""
    beats = for_app(app, kind)
    stop = threading.Event()

    def run() -> None:
        while not stop.is_set():
            beats.beat()
            stop.wait(beats.every)

    thread = threading.Thread(target=run, name="pbem-heartbeat", daemon=True)
    thread.start()
    try:
        yield beats
    finally:
        stop.set()
        thread.join(10)


def newest_clock_beat(session: Session) -> datetime | None:
    """When a clock (or `pbem serve`) last beat, whichever it was."""
    query = select(func.max(Heartbeat.beat_at)).where(col(Heartbeat.kind).in_(CLOCKS))
    return session.exec(query).one()


def recent(session: Session, now: datetime, every: float) -> list[Heartbeat]:
    """The rows of processes that beat in the last FRESH_BEATS intervals, less those whose
    process was followed by another of its kind on its host (restarted): its successor's
    series start again from 0, and the two would otherwise be added up for a while."""
    since = now - timedelta(seconds=FRESH_BEATS * every)
    rows = list(session.exec(select(Heartbeat).where(col(Heartbeat.beat_at) >= since)))
    return [
        row
        for row in rows
        if not any(
            other.kind == row.kind and other.host == row.host and other.started_at > row.beat_at
            for other in rows
        )
    ]
