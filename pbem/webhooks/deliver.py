"""The webhook sender, run by the clock: POST each due event, retry with backoff, give up.

A delivery keeps its event id and body across retries. A webhook that fails
MAX_FAILURES times in a row is disabled and its owner told by mail. A request has one
deadline for all of it (pbem.webhooks.request), follows no redirect to another host, and
goes only to public addresses (or to loopback when the test flag allows it). Nothing here
runs inside a web request.

Each webhook's events go on a worker of their own, oldest first, so a slow server holds up
only its own. An event is claimed by a conditional UPDATE just before it is posted, for a
lease from that claim that outlasts the request's deadline; a drain skips a webhook while
another holds or is claiming one of its events (its row locked with FOR UPDATE SKIP LOCKED
on PostgreSQL). So drains in several clock processes never post one event twice, and
share the webhooks out between them.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import Any, Literal
from urllib.parse import urlsplit

from sqlalchemy import Engine, func, or_, update
from sqlmodel import col, select

from pbem.config import Settings
from pbem.counters import metrics
from pbem.models import Player, Webhook, WebhookDelivery
from pbem.site import Site
from pbem.storage.db import read_session, write_session
from pbem.timing.retries import backoff
from pbem.webhooks.events import body_of
from pbem.webhooks.request import Answer, post

log = logging.getLogger(__name__)
MAX_FAILURES = 8  # failed deliveries in a row before the webhook is disabled
MAX_ATTEMPTS = 8  # attempts of one delivery before it is given up
MAX_RETRY_AFTER = timedelta(hours=2)
WORKERS = 4  # webhooks one drain posts to at once

# What became of one claimed event: posted and taken; refused by its server (an HTTP
# error: the webhook's next event may still go); no answer at all (the webhook's other
# events wait for the next drain); the webhook was disabled; or it was dropped unsent.
Outcome = Literal["sent", "failed", "silent", "disabled", "dropped"]


def lease_for(settings: Settings) -> timedelta:
    """How long a claimed event is left to its drain: three deadlines of its request, and
    half a minute for the database writes around it (only then may another drain post it)."""
    return timedelta(seconds=3 * settings.webhook_timeout + 30)


def budget_for(settings: Settings) -> float:
    """Seconds after which a drain takes no new event (the next drain takes them), so that a
    webhook answering slowly but in time does not hold up the next drain: two deadlines,
    and at least ten seconds."""
    return max(2 * settings.webhook_timeout, 10.0)


def signature(secret: str, body: bytes) -> str:
    """The X-Pbem-Signature of a generic delivery: sha256=<hex HMAC of the body>."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def _free(at: datetime) -> Any:
    """Rows no drain holds at `at`."""
    until = col(WebhookDelivery.claimed_until)
    return or_(until.is_(None), until < at)


def due_webhooks(engine: Engine, now: datetime, at: datetime, limit: int) -> list[int]:
    """Webhooks with an event due at `now` that no drain holds at `at`, oldest event first."""
    with read_session(engine) as session:
        rows = session.exec(
            select(WebhookDelivery.webhook_id, func.min(WebhookDelivery.id))
            .where(col(WebhookDelivery.sent_at).is_(None))
            .where(WebhookDelivery.next_attempt_at <= now)
            .where(_free(at))
            .group_by(col(WebhookDelivery.webhook_id))
            .order_by(func.min(WebhookDelivery.id))
            .limit(limit)
        ).all()
        return [hook_id for hook_id, _ in rows]


def claim_next(
    engine: Engine, hook_id: int, now: datetime, at: datetime, lease: timedelta, wait: bool
) -> tuple[WebhookDelivery, Webhook] | None:
    """Claim the webhook's oldest event due at `now` until `at + lease`: None when it has
    none, or another drain holds it (then this one leaves the webhook alone). `wait`: this
    drain posted the webhook's last event, so it waits out another drain's look at the
    webhook instead of skipping it."""
    with write_session(engine) as session:
        # The webhook's row, locked while its next event is claimed, or skipped when another
        # drain is claiming one of its events: that drain posts them, this one goes on with
        # other webhooks instead of waiting (its events go in order, by one drain at a time).
        # The drain already posting them waits instead: were both to skip (one looking while
        # the other claims its next), the rest would wait for the next drain.
        # (NO KEY UPDATE: a move adding an event for the webhook is not waited for, nor waits.)
        hook = session.exec(
            select(Webhook)
            .where(Webhook.id == hook_id)
            .with_for_update(skip_locked=not wait, key_share=True)
        ).first()
        if hook is None:
            return None
        row = session.exec(
            select(WebhookDelivery)
            .where(WebhookDelivery.webhook_id == hook_id)
            .where(col(WebhookDelivery.sent_at).is_(None))
            .where(WebhookDelivery.next_attempt_at <= now)
            .order_by(col(WebhookDelivery.id))
            .limit(1)
        ).first()
        if row is None:
            return None
        claimed = session.execute(
            update(WebhookDelivery)
            .where(col(WebhookDelivery.id) == row.id)
            .where(col(WebhookDelivery.sent_at).is_(None))
            .where(_free(at))
            .values(claimed_until=at + lease)
        )
        if claimed.rowcount != 1:  # type: ignore[attr-defined]
            return None
        row.claimed_until = at + lease
        return row, hook


def _post_one(
    engine: Engine,
    site: Site,
    settings: Settings,
    row: WebhookDelivery,
    hook: Webhook,
    now: datetime,
) -> Outcome:
    """Post one claimed event and record what came of it."""
    if not hook.enabled:
        _finish(engine, row.id, now, None, given_up=True)
        return "dropped"
    body = _written(engine, row, hook).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "pbem-webhook/1",
        "X-Pbem-Event": row.event,
        "X-Pbem-Delivery": row.event_id,
    }
    if hook.kind == "generic":
        headers["X-Pbem-Signature"] = signature(hook.secret, body)
    timeout, loopback = settings.webhook_timeout, settings.webhook_allow_loopback
    answer = post(hook.url, body, headers, timeout, loopback)
    if answer.ok:
        _finish(engine, row.id, now, None, given_up=False)
        return "sent"
    log.warning("webhook %s event %s failed: %s", hook.id, row.event_id, answer.error)
    if _failed(engine, site, row.id, now, answer):
        return "disabled"
    return "failed" if answer.status else "silent"


def _post_all(
    engine: Engine,
    site: Site,
    settings: Settings,
    hook_id: int,
    now: datetime,
    at: Callable[[], datetime],
    stop: float,
) -> dict[str, int]:
    """Post one webhook's due events in order, each claimed just before it goes, until none
    is left, the server does not answer, or the drain's time is up (time.monotonic() > stop)."""
    counts = {"sent": 0, "failed": 0, "disabled": 0}
    lease = lease_for(settings)
    posting = False
    while time.monotonic() < stop:
        claimed = claim_next(engine, hook_id, now, at(), lease, wait=posting)
        if claimed is None:
            break
        posting = True
        outcome = _post_one(engine, site, settings, *claimed, now)
        metrics.webhook_delivered(outcome)
        if outcome == "dropped":
            continue
        counts["sent" if outcome == "sent" else "failed"] += 1
        counts["disabled"] += outcome == "disabled"
        if outcome in ("silent", "disabled"):
            break  # a silent server costs one deadline a drain, not one an event
    return counts


def drain(engine: Engine, site: Site, settings: Settings, now: datetime) -> dict[str, int]:
    """Send every due webhook event once; count the sent, failed and disabled.

    The time of a claim is `now` moved on by the time this drain has run (so a lease starts
    when its event is claimed); backoffs count from `now`."""
    started = time.monotonic()

    def at() -> datetime:
        return now + timedelta(seconds=time.monotonic() - started)

    counts = {"sent": 0, "failed": 0, "disabled": 0}
    hooks = due_webhooks(engine, now, at(), settings.sender_batch)
    if not hooks:
        return counts
    stop = started + budget_for(settings)
    with ThreadPoolExecutor(min(WORKERS, len(hooks)), thread_name_prefix="webhook") as pool:
        jobs = [pool.submit(_post_all, engine, site, settings, h, now, at, stop) for h in hooks]
        for job in jobs:
            for key, value in job.result().items():
                counts[key] += value
    return counts


def _written(engine: Engine, row: WebhookDelivery, hook: Webhook) -> str:
    """The row's body, written from its facts (after the move's commit) on first need."""
    if row.body:
        return row.body
    with write_session(engine) as session:
        fresh = session.get(WebhookDelivery, row.id)
        row.body = body_of(session, fresh, hook) if fresh is not None else ""
    return row.body


def _finish(
    engine: Engine, row_id: int | None, now: datetime, error: str | None, given_up: bool
) -> None:
    with write_session(engine) as session:
        row = session.get(WebhookDelivery, row_id)
        if row is None or row.sent_at is not None:
            return
        row.sent_at = now
        row.claimed_until = None
        row.given_up = given_up
        row.last_error = error
        session.add(row)
        if not given_up:
            hook = session.get(Webhook, row.webhook_id)
            if hook is not None and hook.failures:
                hook.failures = 0
                session.add(hook)


def _failed(engine: Engine, site: Site, row_id: int | None, now: datetime, answer: Answer) -> bool:
    """Record a failed attempt; True when the webhook has just been disabled."""
    with write_session(engine) as session:
        row = session.get(WebhookDelivery, row_id)
        if row is None or row.sent_at is not None:
            return False
        hook = session.get(Webhook, row.webhook_id)
        assert hook is not None
        row.attempts += 1
        row.claimed_until = None
        row.last_error = answer.error[:500]
        wait = backoff(row.attempts)
        if answer.retry_after is not None:
            # Capped before it becomes a timedelta: a huge one would overflow it.
            asked = min(answer.retry_after, MAX_RETRY_AFTER.total_seconds())
            wait = max(wait, timedelta(seconds=asked))
        row.next_attempt_at = now + wait
        if row.attempts >= MAX_ATTEMPTS:
            row.sent_at, row.given_up = now, True
        session.add(row)
        hook.failures += 1
        session.add(hook)
        if hook.enabled and hook.failures >= MAX_FAILURES:
            _disable(session, site, hook, now, answer.error)
            return True
        return False


def _disable(session: Any, site: Site, hook: Webhook, now: datetime, error: str) -> None:
    """Stop posting to a webhook that keeps failing, drop its queue, and tell its owner."""
    hook.enabled = False
    hook.disabled_at = now
    session.add(hook)
    session.execute(
        update(WebhookDelivery)
        .where(WebhookDelivery.webhook_id == hook.id)  # type: ignore[arg-type]
        .where(WebhookDelivery.sent_at.is_(None))  # type: ignore[union-attr]
        .values(sent_at=now, given_up=True, claimed_until=None)
    )
    owner = session.get(Player, hook.player_id)
    if owner is not None:
        host = urlsplit(hook.url).hostname or ""
        site.mail.player_mail(
            session,
            site,
            owner,
            "webhook_disabled",
            now,
            extra={"host": host, "failures": hook.failures, "error": error[:200]},
        )
