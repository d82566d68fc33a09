"""The webhook sender, run by the clock: POST each due event, retry with backoff, give up.

A delivery keeps its event id and body across retries. A webhook that fails
MAX_FAILURES times in a row is disabled and its owner told by mail. Requests have a
timeout, follow no redirect to another host, and go only to public addresses (or to
loopback when the test flag allows it). Nothing here runs inside a web request.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import logging
import ssl
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urljoin, urlsplit

from sqlalchemy import Engine, or_, update
from sqlmodel import col, select

from pbem.db import write_session
from pbem.models import Player, Webhook, WebhookDelivery
from pbem.notify import queue_player_mail
from pbem.sender import backoff
from pbem.webhooks.events import body_of
from pbem.webhooks.urls import WebhookError, check_url, resolves_publicly

log = logging.getLogger(__name__)
LEASE = timedelta(minutes=5)
MAX_FAILURES = 8  # failed deliveries in a row before the webhook is disabled
MAX_ATTEMPTS = 8  # attempts of one delivery before it is given up
MAX_REDIRECTS = 3
MAX_RETRY_AFTER = timedelta(hours=2)


@dataclass(frozen=True)
class Answer:
    """What the webhook's server said: a status (0: no answer) and a Retry-After, if any."""

    status: int
    error: str = ""
    retry_after: float | None = None

    @property
    def ok(self) -> bool:
        """Whether the event was taken (any 2xx)."""
        return 200 <= self.status < 300


def signature(secret: str, body: bytes) -> str:
    """The X-Pbem-Signature of a generic delivery: sha256=<hex HMAC of the body>."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def post(
    url: str, body: bytes, headers: dict[str, str], timeout: float, allow_loopback: bool
) -> Answer:
    """POST once, following redirects only within the same scheme, host and port."""
    for _ in range(MAX_REDIRECTS + 1):
        try:
            check_url(url, allow_loopback)
        except WebhookError as exc:
            return Answer(0, f"refused URL: {exc.key}")
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
        if not resolves_publicly(host, port, allow_loopback):
            return Answer(0, "host resolves to a private address")
        if parts.scheme == "https":
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                host, port, timeout=timeout, context=ssl.create_default_context()
            )
        else:
            conn = http.client.HTTPConnection(host, port, timeout=timeout)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        try:
            conn.request("POST", path, body=body, headers=headers)
            response = conn.getresponse()
            response.read(65536)
            status, location = response.status, response.getheader("Location")
            retry = response.getheader("Retry-After")
        except (OSError, http.client.HTTPException) as exc:
            return Answer(0, f"{type(exc).__name__}: {exc}"[:300])
        finally:
            conn.close()
        if status in (301, 302, 303, 307, 308) and location:
            target = urljoin(url, location)
            new = urlsplit(target)
            if (new.scheme, new.hostname, new.port) != (parts.scheme, parts.hostname, parts.port):
                return Answer(status, "redirect to another host not followed")
            url = target
            continue
        retry_after = float(retry) if retry and retry.strip().isdecimal() else None
        return Answer(status, "" if 200 <= status < 300 else f"HTTP {status}", retry_after)
    return Answer(0, "too many redirects")


def claim(engine: Engine, now: datetime, batch: int) -> list[tuple[WebhookDelivery, Webhook]]:
    """Claim due deliveries (a claim lapses after a lease, so a killed sender loses nothing)."""
    with write_session(engine) as session:
        due = session.exec(
            select(WebhookDelivery.id)
            .where(WebhookDelivery.sent_at.is_(None))  # type: ignore[union-attr]
            .where(WebhookDelivery.next_attempt_at <= now)
            .where(
                or_(
                    col(WebhookDelivery.claimed_until).is_(None),
                    col(WebhookDelivery.claimed_until) < now,
                )
            )
            .order_by(WebhookDelivery.id)  # type: ignore[arg-type]
            .limit(batch)
        ).all()
        claimed = []
        for row_id in due:
            result = session.execute(
                update(WebhookDelivery)
                .where(WebhookDelivery.id == row_id)  # type: ignore[arg-type]
                .where(WebhookDelivery.sent_at.is_(None))  # type: ignore[union-attr]
                .where(
                    or_(
                        col(WebhookDelivery.claimed_until).is_(None),
                        col(WebhookDelivery.claimed_until) < now,
                    )
                )
                .values(claimed_until=now + LEASE)
            )
            if result.rowcount == 1:  # type: ignore[attr-defined]
                claimed.append(row_id)
        pairs = []
        for row_id in claimed:
            row = session.get(WebhookDelivery, row_id)
            hook = session.get(Webhook, row.webhook_id) if row else None
            if row is not None and hook is not None:
                pairs.append((row, hook))
        return pairs


def drain(engine: Engine, site: Any, config: dict[str, Any], now: datetime) -> dict[str, int]:
    """Send every due webhook event once; count the sent, failed and disabled."""
    counts = {"sent": 0, "failed": 0, "disabled": 0}
    timeout = float(config.get("WEBHOOK_TIMEOUT", 5.0))
    allow_loopback = bool(config.get("WEBHOOK_ALLOW_LOOPBACK"))
    while True:
        pairs = claim(engine, now, int(config.get("SENDER_BATCH", 50)))
        if not pairs:
            return counts
        for row, hook in pairs:
            if not hook.enabled:
                _finish(engine, row.id, now, None, given_up=True)
                continue
            body = _written(engine, row, hook).encode()
            headers = {
                "Content-Type": "application/json",
                "User-Agent": "pbem-webhook/1",
                "X-Pbem-Event": row.event,
                "X-Pbem-Delivery": row.event_id,
            }
            if hook.kind == "generic":
                headers["X-Pbem-Signature"] = signature(hook.secret, body)
            answer = post(hook.url, body, headers, timeout, allow_loopback)
            if answer.ok:
                counts["sent"] += 1
                _finish(engine, row.id, now, None, given_up=False)
                continue
            counts["failed"] += 1
            log.warning("webhook %s event %s failed: %s", hook.id, row.event_id, answer.error)
            if _failed(engine, site, row.id, now, answer):
                counts["disabled"] += 1


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


def _failed(engine: Engine, site: Any, row_id: int | None, now: datetime, answer: Answer) -> bool:
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
            wait = max(wait, min(timedelta(seconds=answer.retry_after), MAX_RETRY_AFTER))
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


def _disable(session: Any, site: Any, hook: Webhook, now: datetime, error: str) -> None:
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
        queue_player_mail(
            session,
            site,
            owner,
            "webhook_disabled",
            now,
            extra={"host": host, "failures": hook.failures, "error": error[:200]},
        )
