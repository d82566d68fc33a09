"""What /metrics answers: this process's series, the other processes' from their heartbeats,
and gauges read from the database as it is asked.

This process's series are its gunicorn workers' together (every file of
PROMETHEUS_MULTIPROC_DIR), or its own memory when it runs alone (`pbem serve`, a test). The
clock, the computer workers and the inbound listener may run where no web process does: each
publishes its series with its heartbeat, and they are added here from the rows that beat
lately, but for this process's own row (`pbem serve`), already counted. Every series carries
`process` (web, serve, clock, computers, inbound) and `host`. The gauges describe the
database, so every web host answers the same values: scrape one host, or take the max.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from prometheus_client import generate_latest
from prometheus_client.multiprocess import MultiProcessCollector
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, func, select

from pbem.config import Settings
from pbem.counters import metrics
from pbem.counters.samples import Answer, snapshot
from pbem.games import GAMES
from pbem.models import Game, Heartbeat
from pbem.watch import beats
from pbem.watch.health import outbox_due


def own_series() -> dict[str, Any]:
    """This process's counters and histograms: its gunicorn workers' files added up in
    multiprocess mode, else its own memory."""
    folder = os.environ.get(metrics.MULTIPROC_DIR)
    if folder and os.path.isdir(folder):
        return snapshot(MultiProcessCollector(None, folder))  # type: ignore[no-untyped-call]
    return snapshot(metrics.REGISTRY)


def answer(engine: Any, settings: Settings, own: Any, now: datetime) -> bytes:
    """The /metrics text. `own`: this process's Beats when it beats (`pbem serve`)."""
    found = Answer()
    kind = own.kind if own is not None else "web"
    found.add(own_series(), {"process": kind, "host": beats.HOST})
    try:
        with Session(engine) as session:
            read = _read(session, now, settings.sweep_interval)
    except SQLAlchemyError:
        read = None  # this process's own series are still worth having
    up = "Whether the database answered this scrape."
    found.gauge("pbem_database_up", up, 0 if read is None else 1, {})
    if read is not None:
        _add_read(found, read, own)
    return generate_latest(found)


@dataclass
class _Read:
    """What a scrape reads from the database."""

    rows: list[Heartbeat]
    last_clock_beat: datetime | None
    due: int
    waited: float | None
    active: dict[str, int]
    now: datetime


def _read(session: Session, now: datetime, every: float) -> _Read:
    """The recent heartbeats, the clock's last beat, the outbox's due mail, the games
    being played by kind: four indexed reads in one session."""
    rows = beats.recent(session, now, every)
    last = beats.newest_clock_beat(session)
    due, waited = outbox_due(session, now)
    active = dict.fromkeys(GAMES, 0)
    query = (
        select(Game.slug, func.count()).where(col(Game.status) == "active").group_by(col(Game.slug))
    )
    for slug, count in session.exec(query):
        active[slug] = int(count)
    return _Read(rows, last, due, waited, active, now)


def _add_read(found: Answer, read: _Read, own: Any) -> None:
    """The other processes' series, and the gauges."""
    counts: dict[str, int] = dict.fromkeys(beats.KINDS, 0)
    for row in read.rows:
        counts[row.kind] = counts.get(row.kind, 0) + 1
        if row.samples and (own is None or row.id != own.id):
            found.add(row.samples, {"process": row.kind, "host": row.host})
    for kind, count in counts.items():
        found.gauge(
            "pbem_processes_beating",
            "Processes of each kind whose heartbeat is recent (web workers do not beat).",
            count,
            {"process": kind},
        )
    last = read.last_clock_beat
    age = (read.now - last).total_seconds() if last is not None else float("inf")
    found.gauge(
        "pbem_clock_beat_age_seconds",
        "Seconds since a clock (or pbem serve) last beat; +Inf when none ever has.",
        max(age, 0.0),
        {},
    )
    found.gauge("pbem_outbox_due_mails", "Mails due and not sent.", read.due, {})
    found.gauge(
        "pbem_outbox_oldest_due_seconds",
        "Seconds the mail due longest has waited past its time (0: none due).",
        read.waited or 0.0,
        {},
    )
    for slug, count in sorted(read.active.items()):
        found.gauge("pbem_games_active", "Games being played, by game.", count, {"game": slug})
