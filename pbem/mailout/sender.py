"""The outbox sender: claim due mail in batches, render it, deliver, mark sent or retry later.

Rendering happens here, after the transaction that queued the mail has committed:
a move holds the write lock only for its writes. A row is rendered once and the
result stored in it, so a resend is the same mail.

Safe to run in several clock processes at once, and faster for each: a sender claims one
due mail at a time that no other holds (pbem.mailout.claims), renders only what it claimed,
and holds it for a lease of a few SMTP timeouts from its claim. A sender killed mid-send
delays that one mail briefly, never loses it, and holds up no other. A resend carries the
row's stable Message-ID.

Bounces (issue 46): each mail goes out from its own bounce address (pbem.bounces.verp), so
that a report coming back names it; a mail to an address that bounces is not claimed to be
sent (pbem.mailout.claims). A mail the relay refuses for good (5xx to RCPT or DATA) is a
hard bounce at once: recorded in the transaction that marks it done, never tried again.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta
from typing import Literal

from sqlalchemy import Engine, delete
from sqlmodel import col

from pbem.bounces import verp
from pbem.bounces.record import REFUSED, record
from pbem.config import Settings
from pbem.counters import metrics
from pbem.mailout import claims
from pbem.mailout.mailer import Backend, Refused, build_message
from pbem.mailout.mime import UnsafeMessage
from pbem.mailout.render import (
    NoRecipient,
    Rendered,
    Unrenderable,
    render_row,
)
from pbem.models import Outbox
from pbem.site import Site
from pbem.storage.db import read_session, write_session, write_transaction
from pbem.timing.retries import backoff

log = logging.getLogger(__name__)
PARKED = timedelta(days=3650)  # a message refused as unsafe is never tried again
_COLUMNS = tuple(Outbox.__table__.c.keys())  # type: ignore[attr-defined]


def _with(row: Outbox, mail: Rendered, now: datetime) -> Outbox:
    """The row with its rendered mail, as stored at `now`."""
    kept = {name: getattr(row, name) for name in _COLUMNS}
    return Outbox.model_construct(**(kept | mail.__dict__ | {"rendered_at": now}))


# What became of the next due mail (_send_next): none was left that no other sender holds;
# it failed and is marked to retry later (or parked, or refused for good); it had nobody to
# go to and is gone, or its address bounces and it is done unsent; it was sent; or the
# server failed to take it.
Outcome = Literal["none", "failed", "dropped", "sent", "down"]


def _send_next(
    engine: Engine,
    site: Site,
    backend: Backend,
    settings: Settings,
    now: datetime,
    at: datetime,
    lease: timedelta,
    stats: dict[str, float],
    unmarked: list[claims.Mark],
    states: dict[object, object],
) -> Outcome:
    """Claim the oldest mail due at `now` that no sender holds, at `at`; render it if need
    be (and store the rendering before it goes: a bounce may come back at once), check it,
    send it and leave its mark in `unmarked`: written in the transaction that claims the
    next (or by drain).

    Only the mail claimed is rendered, after its claim: a sender never renders a mail that
    another sends. One mail a claim, so that a sender killed mid-send holds up only the
    mail it was sending (the others are not leased to it)."""
    clock = time.perf_counter()
    claimed = claims.claim_next(engine, now, at, lease, unmarked.pop() if unmarked else None)
    if claimed is None:
        return "none"
    if claimed is False:
        return "dropped"  # its address bounces: done, unsent
    row = claimed
    if row.rendered_at is None:
        try:
            with read_session(engine) as session:
                mail = render_row(session, site, row, states)
        except NoRecipient:
            # Not logged: the address is nobody's business.
            with write_session(engine) as session:
                session.execute(
                    delete(Outbox).where(col(Outbox.id) == row.id, col(Outbox.sent_at).is_(None))
                )
            return "dropped"
        except Unrenderable as exc:
            log.warning("mail %s cannot be rendered: %s", row.id, exc)
            _mark(engine, row, now, error="cannot be rendered: game or player missing")
            metrics.MAILS_RETRIED.inc()
            return "failed"
        with write_transaction(engine) as session:
            claims.store(session, row.id, mail, now)
        row = _with(row, mail, now)
        stats["rendered"] = stats.get("rendered", 0) + 1
    stats["render_s"] = stats.get("render_s", 0.0) + time.perf_counter() - clock
    clock = time.perf_counter()
    try:
        sender = settings.mail_from
        envelope = verp.envelope_sender(site.secret, site.reply_domain, row, sender)
        message = build_message(row, sender, settings.mail_from_name, envelope)
    except (UnsafeMessage, ValueError, TypeError) as exc:
        # Never send a mail whose headers would not arrive as built (header injection).
        log.error("mail %s to %s refused, not sent: %s", row.id, row.to_addr, exc)
        _mark(engine, row, now, error=f"refused: {exc}"[:500], wait=PARKED)
        metrics.MAILS_FAILED.inc()
        return "failed"
    try:
        backend.send(message)
    except Refused as exc:  # for good: a hard bounce, never tried again
        _refused(engine, row, now, exc.status, exc.reason)
        metrics.MAILS_FAILED.inc()
        return "failed"  # the server is up, and takes the next mail
    except Exception as exc:  # any failure to deliver means: try again later
        log.warning("mail %s to %s failed: %s", row.id, row.to_addr, exc)
        _mark(engine, row, now, error=f"{type(exc).__name__}: {exc}"[:500])
        metrics.MAILS_RETRIED.inc()
        return "down"
    metrics.MAILS_SENT.inc()  # the server took it: sent, whenever it is marked so
    unmarked.append(claims.Mark(row.id or 0, sent_at=now))
    stats["sent"] = stats.get("sent", 0) + 1
    stats["send_s"] = stats.get("send_s", 0.0) + time.perf_counter() - clock
    return "sent"


def drain(
    engine: Engine,
    site: Site,
    backend: Backend,
    settings: Settings,
    now: datetime,
    stats: dict[str, float] | None = None,
    keep: bool = False,
) -> dict[str, int]:
    """Render and send every mail due at `now` once; return how many were sent and failed.

    Each mail is claimed just before it is rendered (if it is not yet) and sent, for a few
    SMTP timeouts from its claim, and marked sent in the transaction that claims the next
    (the last one on its own); the time of a claim is `now` moved on by the time this drain
    has run. Drains in several processes share the due mail out between them. A mail queued
    during the drain is due after `now`: the next drain sends it. `stats`, when given, is
    added to: rows rendered and sent, seconds rendering and sending. `keep`: the backend's
    connection is left open for the next drain (closed once idle, Backend.rest), as the
    clock's drains keep it; else it is closed when the drain ends.
    """
    stats = stats if stats is not None else {}
    lease = claims.lease_for(settings)
    started = time.monotonic()
    done = {"sent": 0, "failed": 0}
    unmarked: list[claims.Mark] = []  # the mail just sent, marked with the next claim
    states: dict[object, object] = {}  # games' states at the rows' plies, for this drain
    try:
        while True:
            at = now + timedelta(seconds=time.monotonic() - started)
            outcome = _send_next(
                engine, site, backend, settings, now, at, lease, stats, unmarked, states
            )
            if outcome == "none":
                break
            if outcome == "dropped":
                continue  # neither sent nor failed: there was no mail
            done["sent" if outcome == "sent" else "failed"] += 1
            if outcome == "down":
                # The server is likely down or hanging: leave the rest for the next drain
                # rather than wait out a timeout for each.
                break
        for mark in unmarked:  # the last mail sent
            with write_transaction(engine) as session:
                claims.mark(session, mark)
        return done
    finally:
        if keep:
            backend.rest(now)
        else:
            backend.close()  # the SMTP connection the drain's mails went on


def _refused(engine: Engine, row: Outbox, now: datetime, status: str, reason: str) -> None:
    """The relay refused the mail for good: mark it done, unsent, with a hard bounce for its
    address recorded in the same transaction (scored by the clock's sweep)."""
    error = f"refused by the relay: {reason}"[:500]
    with write_session(engine) as session:
        if claims.mark_done(session, row.id, now, error):
            record(session, row.to_addr, row.id, row.game_id, REFUSED, status, reason, now)
    # Neither the address nor the server's words (which often repeat it) go to the log.
    log.warning("mail %s refused by the relay (%s): counted as a hard bounce", row.id, status)


def _mark(
    engine: Engine, row: Outbox, now: datetime, error: str, wait: timedelta | None = None
) -> None:
    """Not sent: tried again after a wait that grows with the attempts."""
    retry_at = now + (wait or backoff(row.attempts + 1))
    with write_transaction(engine) as session:
        claims.mark(session, claims.Mark(row.id or 0, retry_at=retry_at, error=error))
