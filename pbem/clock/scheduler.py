"""The clock: APScheduler jobs that scan our own tables for due work.

Only the clock process (or the single local `serve` process) starts a
scheduler; gunicorn workers never do. Jobs are safe to run twice, in one process or in
several clock processes at once; within a process one outbox drain runs at a time.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.blocking import BlockingScheduler
from flask import Flask

from pbem.clock.computer_play import sweep_computers
from pbem.clock.league_sweeps import sweep_leagues
from pbem.clock.reviews import sweep_reviews
from pbem.clock.sweeps import sweep
from pbem.config import settings_of
from pbem.counters import metrics
from pbem.mailout.mailer import Backend, FileBackend, SmtpBackend, make_backend
from pbem.mailout.sender import drain
from pbem.storage.retention import CATCH_UP, prune
from pbem.watch import beats
from pbem.webhooks.deliver import drain as drain_hooks

log = logging.getLogger(__name__)


@dataclass
class _Drains:
    """This process's outbox drain: the lock held while one runs, and a flag raised by each
    caller, so that a drain asked for while one runs is run by that one when it ends; and
    the backend its drains send through, kept from one to the next (its SMTP connection
    stays open while mail goes, pbem.mailout.mailer.SmtpBackend.rest)."""

    running: threading.Lock = field(default_factory=threading.Lock)
    wanted: threading.Event = field(default_factory=threading.Event)
    backend: Backend | None = None


def drain_outbox(app: Flask) -> dict[str, int]:
    """Send the mail that is due now: in this drain, or, when one is running in this process,
    in that one, which goes round again for it (then this returns nothing sent).

    The sender job, each sweep and each computer move ran drains of their own, up to three
    at once, racing for the same rows; one at a time sends as much, with one connection."""
    # dict.setdefault is atomic: every thread gets the same _Drains.
    drains: _Drains = app.extensions.setdefault("pbem.drains", _Drains())
    drains.wanted.set()
    result = {"sent": 0, "failed": 0}
    # Re-checked after the lock is let go: a caller that came just before sees it held.
    while drains.wanted.is_set() and drains.running.acquire(blocking=False):
        try:
            while drains.wanted.is_set():
                drains.wanted.clear()
                done = _drain_once(app, drains)
                result = {key: result[key] + done[key] for key in result}
        finally:
            drains.running.release()
    if result["sent"] or result["failed"]:
        log.info("outbox: %(sent)d sent, %(failed)d failed", result)
    return result


def _drain_once(app: Flask, drains: _Drains) -> dict[str, int]:
    """One drain of the outbox at the clock's time now, on the kept backend (made by the
    first, or anew when the settings now name another kind)."""
    engine = app.extensions["pbem"]["engine"]
    site = app.extensions["pbem"]["site"]
    with metrics.JOB_SECONDS.labels("outbox").time():
        settings = settings_of(app)
        wanted = SmtpBackend if settings.mail_backend == "smtp" else FileBackend
        if not isinstance(drains.backend, wanted):
            if drains.backend is not None:
                drains.backend.close()
            drains.backend = make_backend(settings)
        now = app.config["CLOCK"]()
        return drain(engine, site, drains.backend, settings, now, keep=True)


def drain_webhooks(app: Flask) -> dict[str, int]:
    """Post the webhook events that are due now."""
    ext = app.extensions["pbem"]
    with metrics.JOB_SECONDS.labels("webhooks").time():
        result = drain_hooks(ext["engine"], ext["site"], ext["settings"], app.config["CLOCK"]())
    if any(result.values()):
        log.info("webhooks: %(sent)d sent, %(failed)d failed, %(disabled)d disabled", result)
    return result


def sweep_due(app: Flask) -> dict[str, int]:
    """Timeouts, reminders, digests, vacation ends, unstarted games and bounce reports that are
    due, then the mail they made."""
    engine = app.extensions["pbem"]["engine"]
    site, settings = app.extensions["pbem"]["site"], settings_of(app)
    days, threshold = settings.forming_days, settings.bounce_threshold
    with metrics.JOB_SECONDS.labels("sweep").time():  # its drain below is timed as one
        now = app.config["CLOCK"]()
        result = sweep(engine, site, now, forming_days=days, bounce_threshold=threshold)
        result.update(sweep_leagues(engine, site, app.config["CLOCK"]()))
    if any(result.values()):
        log.info("sweep: %s", result)
    drain_outbox(app)
    return result


def computer_moves(app: Flask) -> int:
    """Make the computer moves due for the delay, then work out a review asked for (and queue
    the reviews' mails), then send the mail they made: how many moves, reviews and mails."""
    engine, settings = app.extensions["pbem"]["engine"], settings_of(app)
    with metrics.JOB_SECONDS.labels("computers").time():
        made = sweep_computers(
            engine,
            app.extensions["pbem"]["site"],
            app.config["CLOCK"](),
            timedelta(seconds=settings.computer_delay),
            settings.computer_batch,
            timedelta(seconds=settings.computer_lease),
        )
        # Then the reviews asked of finished games, one a run: the same workers, after moves.
        reviewed = sweep_reviews(
            engine,
            app.extensions["pbem"]["site"],
            app.config["CLOCK"](),
            settings.review_simulations,
            timedelta(seconds=settings.review_lease),
        )
    if made:
        log.info("computer moves: %d", made)
    if reviewed:
        log.info("reviews and their mails: %d", reviewed)
    if made or reviewed:
        drain_outbox(app)
    return made + reviewed


def prune_old(app: Flask, since: timedelta | None = CATCH_UP) -> dict[str, int]:
    """Delete the mail, webhook and received rows past PBEM_KEEP_DAYS that nothing reads
    (`since`: only those that passed it, or whose game ended, in that stretch; None: the
    whole history)."""
    ext = app.extensions["pbem"]
    now = app.config["CLOCK"]()
    with metrics.JOB_SECONDS.labels("prune").time():
        result = prune(ext["engine"], now, ext["settings"].keep_days, since=since)
    if any(result.values()):
        log.info(
            "prune: deleted %(mails)d mails, %(webhooks)d webhooks, %(received)d received;"
            " emptied %(emptied)d mails",
            result,
        )
    return result


def beat(app: Flask) -> bool:
    """Write this clock's heartbeat (pbem.watch.beats): /readyz asks when a clock last beat."""
    found = beats.of_app(app)
    return found.beat() if found is not None else False


def _every(scheduler: Any, app: Flask, job: Any, seconds: float, grace: int, **more: Any) -> None:
    """Run `job(app)` every `seconds`: one run at a time; runs missed while busy or down
    collapse into one, which is enough because each run handles everything due; a run
    late by less than `grace` seconds still runs."""
    scheduler.add_job(
        job,
        "interval",
        seconds=seconds,
        args=[app],
        id=more.pop("id", job.__name__),
        max_instances=1,
        coalesce=True,
        misfire_grace_time=grace,
        **more,
    )


def make_scheduler(app: Flask, blocking: bool) -> Any:
    """A scheduler holding the clock's jobs, not yet started."""
    scheduler = BlockingScheduler() if blocking else BackgroundScheduler(daemon=True)
    # `pbem clock` blocks on its scheduler; `pbem serve` runs it beside the web pages.
    beats.for_app(app, "clock" if blocking else "serve")
    settings = settings_of(app)
    every = settings.sweep_interval
    # A job of its own, not a step of the sweep: a beat says the scheduler runs jobs, and a
    # sweep catching up after downtime does not make the clock look dead.
    _every(scheduler, app, beat, every, int(every) + 1, next_run_time=datetime.now(UTC))
    interval = settings.sender_interval
    # A first run at once, then every interval. (None here would mean "paused" to
    # APScheduler 3: the clock would then send mail only after each sweep.)
    _every(scheduler, app, drain_outbox, interval, 60, next_run_time=datetime.now(UTC))
    # Computer players move a few seconds after their turn comes, by this job or by
    # `pbem computers` workers (never in a web request); each seat claimed, each move in
    # its own transaction. PBEM_CLOCK_COMPUTERS=0 leaves them to the workers.
    if settings.clock_computers:
        _every(scheduler, app, computer_moves, settings.computer_interval, 60)
    # Webhooks have their own outbox and sender, so a slow chat server never delays mail.
    _every(scheduler, app, drain_webhooks, interval, 60)
    # The sweep finds due rows by indexed queries; a late or doubled run is harmless, and
    # after downtime the first run handles everything that fell due.
    _every(scheduler, app, sweep_due, settings.sweep_interval, 300, id="sweep")
    # Retention once a day, and some minutes after a start (a clock restarted every day
    # would otherwise never reach its first run), after the catching up that a start does.
    first = datetime.now(UTC) + timedelta(minutes=10)
    _every(scheduler, app, prune_old, 86400.0, 3600, next_run_time=first)
    return scheduler
