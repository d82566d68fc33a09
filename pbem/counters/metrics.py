"""The server's counters and histograms (prometheus_client), and moves counted once committed.

Each process counts its own work: a gunicorn worker into the files of
PROMETHEUS_MULTIPROC_DIR (prometheus_client's multiprocess mode, chosen when it is imported),
any other process in memory, published with its heartbeat (pbem.watch.beats). Only counters
and histograms live in processes; what describes the database (the mail backlog, games
active, the clock's last beat) is read when /metrics is asked (pbem.watch.scrape), so no
process holds a gauge that another would have to agree with. A label is one of a few fixed
words (a source, an outcome, a game's kind): never a game id, a token or an address.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram
from sqlalchemy import event
from sqlalchemy.orm import Session, SessionTransaction

MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"
if os.environ.get(MULTIPROC_DIR):
    # prometheus_client opens this process's file there with the first metric below: a
    # missing folder would stop the import with a bare FileNotFoundError.
    os.makedirs(os.environ[MULTIPROC_DIR], exist_ok=True)

# pbem's series only (no process or platform collectors: they mean nothing summed over
# gunicorn's workers, and multiprocess mode cannot merge them).
REGISTRY = CollectorRegistry(auto_describe=True)


def _by(name: str, doc: str, label: str, values: Iterable[str]) -> tuple[Counter, dict[str, Any]]:
    """A counter by one label, and its child for each value, made now: an increment is then
    one locked add, and every value shows from the first scrape, at 0, for rate() to work on."""
    counter = Counter(name, doc, [label], registry=REGISTRY)
    return counter, {value: counter.labels(value) for value in values}


SOURCES = ("page", "api", "mail", "computer", "plan", "timeout")
MOVES, _MOVES = _by(
    "pbem_moves",
    "Moves written, counted when their transaction commits, by the way they came.",
    "source",
    (*SOURCES, "other"),
)
# The move log's source of a move, as the counter names it. A player's own move is "web" in
# the log whether it came from the page or the API: write_move is told which (`via`).
_SOURCE_OF = {
    "mail": "mail",
    "timeout": "timeout",
    "computer": "computer",
    "left": "computer",  # a computer playing for a player who left
    "ahead": "plan",  # a plan ahead's answer
    "standing": "plan",  # standing orders
}
_VIA = ("page", "api")

MAILS_SENT = Counter("pbem_mails_sent", "Mails the SMTP server accepted.", registry=REGISTRY)
MAILS_RETRIED = Counter(
    "pbem_mails_retried",
    "Tries to send a mail that failed and are to be made again after a wait (the server"
    " down or refusing, the mail not renderable).",
    registry=REGISTRY,
)
MAILS_FAILED = Counter(
    "pbem_mails_failed",
    "Mails given up: refused as unsafe to send (headers that would not arrive as built).",
    registry=REGISTRY,
)
BOUNCE_KINDS = ("soft", "hard", "refused", "complaint")
MAILS_BOUNCED, _BOUNCED = _by(
    "pbem_mails_bounced",
    "Reports that a mail did not arrive, counted when written, by kind: soft (a 4.x.x"
    " status), hard (5.x.x), refused (by the relay at SMTP time), complaint (marked as spam).",
    "kind",
    BOUNCE_KINDS,
)
WEBHOOK_OUTCOMES = ("sent", "failed", "silent", "disabled", "dropped")
WEBHOOKS, _WEBHOOKS = _by(
    "pbem_webhook_deliveries",
    "Webhook events posted, by outcome: sent, failed (an HTTP error), silent (no answer),"
    " disabled (the failure that disabled its webhook), dropped (its webhook was off).",
    "outcome",
    WEBHOOK_OUTCOMES,
)
INBOUND = Counter(
    "pbem_inbound_mails",
    "Mails received at reply and bounce addresses, by verdict (applied, refused, ignored,"
    " rejected, deferred; recorded: a bounce report written) and reason.",
    ["verdict", "reason"],
    registry=REGISTRY,
)
DECISIONS = Histogram(
    "pbem_computer_decision_seconds",
    "Seconds a computer player took to choose a move, by game and level.",
    ["game", "level"],
    buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0),
    registry=REGISTRY,
)
JOBS = ("sweep", "outbox", "webhooks", "computers", "prune")
JOB_SECONDS = Histogram(
    "pbem_clock_job_seconds",
    "Seconds one run of a clock job took: sweep, outbox (a drain), webhooks, computers, prune.",
    ["job"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0),
    registry=REGISTRY,
)


def webhook_delivered(outcome: str) -> None:
    """Count one webhook event's outcome."""
    _WEBHOOKS[outcome].inc()


def inbound_verdict(verdict: str, reason: str) -> None:
    """Count one received mail's verdict."""
    INBOUND.labels(verdict, reason or "none").inc()


# --- moves and bounce reports, counted once committed --------------------------------

_PENDING = "pbem:moves to count"


def moves_committed(sources: Iterable[str], via: str = "page") -> None:
    """Count moves whose transaction has committed (as moves_written notes them)."""
    for source in sources:
        _MOVES[_counted_as(source, via)].inc()


def moves_written(session: Session, sources: Iterable[str], via: str = "page") -> None:
    """Note moves written in the session's transaction (their log sources; `via`: page or api
    for a player's own): counted when the transaction commits, not at all if it rolls back."""
    _pending(session, [_MOVES[_counted_as(source, via)] for source in sources])


def bounce_recorded(session: Session, kind: str) -> None:
    """Note a bounce report of `kind` written in the session's transaction: counted when the
    transaction commits, not at all if it rolls back."""
    _pending(session, [_BOUNCED[kind]])


def _pending(session: Session, counters: list[Any]) -> None:
    """Counters to add one to each when the session's current transaction commits."""
    # The innermost transaction: a savepoint rolled back takes its counts with it.
    current = session.get_nested_transaction() or session.get_transaction()
    session.info.setdefault(_PENDING, []).append((current, counters))


def _counted_as(source: str, via: str) -> str:
    """The counter's source of a move logged as `source`."""
    if source == "web":
        return via if via in _VIA else "other"
    return _SOURCE_OF.get(source, "other")


@event.listens_for(Session, "after_commit")
def _count_committed(session: Session) -> None:
    """The outermost transaction committed: its moves and reports are written for good."""
    if session.in_nested_transaction():
        return  # a savepoint released: the outer transaction may still roll back
    pending = session.info.pop(_PENDING, None)
    for _, counters in pending or ():
        for counter in counters:
            counter.inc()


@event.listens_for(Session, "after_soft_rollback")
def _forget_rolled_back(session: Session, previous: SessionTransaction) -> None:
    """Moves and reports written in a transaction rolled back (or in a savepoint inside it)
    never were."""
    pending: list[Any] | None = session.info.get(_PENDING)
    if pending:
        pending[:] = [entry for entry in pending if not _within(entry[0], previous)]


def _within(transaction: SessionTransaction | None, outer: SessionTransaction) -> bool:
    """Whether `transaction` is `outer` or nested in it."""
    while transaction is not None:
        if transaction is outer:
            return True
        transaction = transaction.parent
    return False
