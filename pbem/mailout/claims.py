"""The outbox rows a sender claims: the due ones no other sender holds, one at a time, each
for a lease of a few SMTP timeouts, with the state of the address it goes to; and their
marks, sent or done unsent.

Safe in several clock processes at once: a sender claims the oldest due mail that no other
holds (FOR UPDATE SKIP LOCKED on PostgreSQL, so senders take different rows rather than
wait on one; BEGIN IMMEDIATE on SQLite). A mail to an address that bounces or complained
is not claimed to be sent unless its owner asked for it (pbem.bounces.state): it is marked
done, unsent, in the transaction that claims it.

The sender claims with one statement (claim_next: an UPDATE of the oldest due row that
returns it, with the state of its address), stores the mail it rendered with one more
(store, before sending it), and marks it sent with a third, run in the transaction of the
next claim: three statements in two transactions a mail.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy import Engine, bindparam, func, null, or_, select, update

from pbem.bounces.state import may_mail
from pbem.config import Settings
from pbem.mailout.render import Rendered, needs_key
from pbem.models import MailAddress, Outbox, Player
from pbem.site import new_key
from pbem.storage.db import write_transaction
from pbem.storage.rawsql import Runner, compiled, dialect_of, reader, run

log = logging.getLogger(__name__)
# The last_error of a mail done with but not sent: sent_at says when, this says why not.
SUPPRESSED = "not sent: the address bounces"


def lease_for(settings: Settings) -> timedelta:
    """How long a claimed mail is left to its sender: a few SMTP timeouts, not minutes.

    Only the mail being sent is claimed, so after a crash the others wait for nothing,
    and the one in flight waits this long (it may then go twice, with one Message-ID).
    """
    return timedelta(seconds=3 * settings.smtp_timeout)


LEASE = lease_for(Settings.model_construct())  # at the default PBEM_SMTP_TIMEOUT


# Statements built once (the sender runs them for every mail); run on the session's
# connection, as Core: the ORM's steps for an UPDATE cost more than the UPDATE.
_OUTBOX = Outbox.__table__  # type: ignore[attr-defined]
_MARKS = {
    "claimed_until": bindparam("w_claimed", type_=_OUTBOX.c.claimed_until.type),
    "sent_at": bindparam("w_sent", type_=_OUTBOX.c.sent_at.type),
    "last_error": bindparam("w_error", type_=_OUTBOX.c.last_error.type),
}
_SENT = (
    update(_OUTBOX)
    .where(_OUTBOX.c.id == bindparam("w_id"), _OUTBOX.c.sent_at.is_(None))
    .values(_MARKS)
)
_RETRY = (
    update(_OUTBOX)
    .where(_OUTBOX.c.id == bindparam("w_id"), _OUTBOX.c.sent_at.is_(None))
    .values(
        claimed_until=null(),
        attempts=_OUTBOX.c.attempts + 1,
        next_attempt_at=bindparam("w_next", type_=_OUTBOX.c.next_attempt_at.type),
        last_error=bindparam("w_error", type_=_OUTBOX.c.last_error.type),
    )
)
# A rendered mail stored in its row before it is sent: a bounce can come back before the
# sender has marked it sent, and is matched by the address stored (pbem.bounces.verp);
# a resend is then the same mail.
_STORE = (
    update(_OUTBOX)
    .where(_OUTBOX.c.id == bindparam("w_id"), _OUTBOX.c.rendered_at.is_(None))
    .values(
        {
            name: bindparam(f"w_{name}", type_=_OUTBOX.c[name].type)
            for name in ("rendered_at", *Rendered.__dataclass_fields__)
        }
    )
)


@dataclass(frozen=True)
class Mark:
    """What became of a claimed mail, to be written with the next claim (or on its own):
    sent at `sent_at`, or tried again at `retry_at` (with `error`)."""

    row_id: int
    sent_at: datetime | None = None
    retry_at: datetime | None = None
    error: str | None = None


# The oldest due row no sender holds, claimed and returned by one statement (claim_next):
# FOR UPDATE SKIP LOCKED in its subquery on PostgreSQL, so senders take different rows; the
# claim's own conditions again in the UPDATE, which PostgreSQL re-checks on a row another
# sender changed meanwhile (SQLite has no row locks and needs none: its BEGIN IMMEDIATE lets
# one claim run at a time). Returned with it: the state of the address it goes to, and the
# unsubscribe key of its player (empty: none yet).
_PLAYER = Player.__table__  # type: ignore[attr-defined]
_ADDRESS = MailAddress.__table__  # type: ignore[attr-defined]
_DUE_ROW = _OUTBOX.alias("due")
_PICK = (
    select(_DUE_ROW.c.id)
    .where(
        _DUE_ROW.c.sent_at.is_(None),
        _DUE_ROW.c.next_attempt_at <= bindparam("w_now", type_=_OUTBOX.c.next_attempt_at.type),
        or_(
            _DUE_ROW.c.claimed_until.is_(None),
            _DUE_ROW.c.claimed_until < bindparam("w_at", type_=_OUTBOX.c.claimed_until.type),
        ),
    )
    .order_by(_DUE_ROW.c.id)
    .limit(1)
    .with_for_update(skip_locked=True)
    .scalar_subquery()
)
_ITS_PLAYER = _PLAYER.c.id == _OUTBOX.c.player_id
# The address it was rendered for, else its player's: a rendered row has a to_addr, an
# unrendered one none. (Not "rendered_at IS NOT NULL": SQLite 3.40 answers that wrongly in
# a RETURNING clause.)
_ITS_ADDRESS = func.lower(
    func.coalesce(
        func.nullif(_OUTBOX.c.to_addr, ""),
        select(_PLAYER.c.email).where(_ITS_PLAYER).correlate(_OUTBOX).scalar_subquery(),
    )
)
_RETURNED = [
    *_OUTBOX.c,
    select(_ADDRESS.c.state)
    .where(_ADDRESS.c.address == _ITS_ADDRESS)
    .correlate(_OUTBOX)
    .scalar_subquery(),
    select(_PLAYER.c.unsubscribe_key).where(_ITS_PLAYER).correlate(_OUTBOX).scalar_subquery(),
]
_NEXT = (
    update(_OUTBOX)
    .where(
        _OUTBOX.c.id == _PICK,
        _OUTBOX.c.sent_at.is_(None),
        _OUTBOX.c.next_attempt_at <= bindparam("w_at"),
        or_(_OUTBOX.c.claimed_until.is_(None), _OUTBOX.c.claimed_until < bindparam("w_at")),
    )
    .values(claimed_until=bindparam("w_until", type_=_OUTBOX.c.claimed_until.type))
    .returning(*_RETURNED)
)
_KEY = (
    update(_PLAYER)
    .where(_PLAYER.c.id == bindparam("w_player"), _PLAYER.c.unsubscribe_key == "")
    .values(unsubscribe_key=bindparam("w_key", type_=_PLAYER.c.unsubscribe_key.type))
)


def _changed(session: Runner, name: str, statement: Any, values: dict[str, Any]) -> int:
    """Run one of the UPDATEs above on the driver's cursor (compiled once per database,
    pbem.storage.rawsql: the sender runs three a mail); the rows it changed."""
    done = compiled(dialect_of(session), ("sender", name), lambda: statement)
    return int(run(session, done, done.parameters(values)).rowcount)


def claim_next(
    engine: Engine, now: datetime, at: datetime, lease: timedelta, done: Mark | None = None
) -> Outbox | Literal[False] | None:
    """Claim the oldest mail due at `now` that no sender holds at `at`, until `at + lease`:
    the row (a model outside any session); False when it was claimed but its address
    bounces (then it is marked done, unsent, here); None when no mail is due. `done`, the
    mark of the mail sent just before, is written first in the same transaction, which
    commits it even when nothing is claimed.

    Two statements when the mail's player has an unsubscribe key (a third, once in a
    player's life, gives them one)."""
    with write_transaction(engine) as session:
        if done is not None:
            mark(session, done)
        dialect = dialect_of(session)
        statement = compiled(dialect, ("sender", "next"), lambda: _NEXT)
        params = {"w_now": now, "w_at": at, "w_until": at + lease}
        found = run(session, statement, statement.parameters(params)).fetchone()
        if found is None:
            return None
        convert = reader(dialect, ("sender", "next"), lambda: [c.type for c in _RETURNED])
        *columns, state, key = convert(found)
        row = Outbox.model_construct(**dict(zip(_OUTBOX.c.keys(), columns, strict=True)))
        if not may_mail(state or "ok", row.event):
            mark_done(session, row.id, now, SUPPRESSED)
            log.info("mail %s (%s) not sent: its address bounces", row.id, row.event)
            return False
        if key == "" and row.rendered_at is None and needs_key(row):
            # The first mail with an unsubscribe link that a player is sent: their key,
            # committed before the link is rendered with it.
            _changed(session, "key", _KEY, {"w_player": row.player_id, "w_key": new_key()})
        return row


def mark(session: Runner, done: Mark) -> None:
    """Write what became of a claimed mail (sent, or to be tried again); a mail another
    sender marked sent meanwhile stays as it is."""
    if done.sent_at is not None:
        mark_sent(session, done.row_id, done.sent_at)
        return
    params = {"w_id": done.row_id, "w_next": done.retry_at, "w_error": done.error}
    _changed(session, "retry", _RETRY, params)


def store(session: Runner, row_id: int | None, mail: Rendered, now: datetime) -> None:
    """Store the mail rendered at `now` in its row, unless one is stored already."""
    params = {"w_id": row_id, "w_rendered_at": now}
    params |= {f"w_{name}": value for name, value in mail.__dict__.items()}
    _changed(session, "store", _STORE, params)


def mark_sent(session: Runner, row_id: int | None, sent_at: datetime) -> None:
    """Mark a row sent (a row another sender marked sent meanwhile stays as it is)."""
    params = {"w_id": row_id, "w_sent": sent_at, "w_claimed": None, "w_error": None}
    _changed(session, "sent", _SENT, params)


def mark_done(session: Runner, row_id: int | None, now: datetime, why: str) -> bool:
    """Mark a row done with, unsent (its address bounces, or the relay refused it for good):
    sent_at says when, last_error why; retention and /readyz take it as done. False when
    another sender marked it meanwhile."""
    params = {"w_id": row_id, "w_sent": now, "w_claimed": None, "w_error": why}
    return _changed(session, "sent", _SENT, params) == 1
