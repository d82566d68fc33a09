"""The outbox rows a sender claims: the due ones no other sender holds, each for a lease of
a few SMTP timeouts, with the player the mail goes to and the state of the address; and
their marks, sent or done unsent.

Safe in several clock processes at once: a sender claims the oldest due mail that no other
holds (FOR UPDATE SKIP LOCKED on PostgreSQL, so senders take different rows rather than
wait on one; BEGIN IMMEDIATE on SQLite). A mail to an address that bounces or complained
is not claimed to be sent unless its owner asked for it (pbem.bounces.state): it is marked
done, unsent, in the transaction that claims it.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, Integer, bindparam, case, func, or_, update
from sqlmodel import select

from pbem.bounces.state import may_mail
from pbem.config import Settings
from pbem.mailout.render import ensure_unsubscribe_key, needs_key
from pbem.models import MailAddress, Outbox, Player
from pbem.storage.db import write_session
from pbem.storage.rawsql import compiled, dialect_of, run

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
_CLAIM = (
    update(_OUTBOX)
    .where(
        _OUTBOX.c.id == bindparam("w_id"),
        _OUTBOX.c.sent_at.is_(None),
        # Never before its time, whatever a sender read as due: a mail held while its
        # player looks at the page waits (pbem.players.presence), as a retry does.
        _OUTBOX.c.next_attempt_at <= bindparam("w_at"),
        or_(_OUTBOX.c.claimed_until.is_(None), _OUTBOX.c.claimed_until < bindparam("w_at")),
    )
    .values(claimed_until=bindparam("w_until", type_=_OUTBOX.c.claimed_until.type))
)
_SENT = (
    update(_OUTBOX)
    .where(_OUTBOX.c.id == bindparam("w_id"), _OUTBOX.c.sent_at.is_(None))
    .values(
        claimed_until=bindparam("w_claimed", type_=_OUTBOX.c.claimed_until.type),
        sent_at=bindparam("w_sent", type_=_OUTBOX.c.sent_at.type),
        last_error=bindparam("w_error", type_=_OUTBOX.c.last_error.type),
    )
)
# The due rows no sender holds, oldest first, locked as they are read and with the rows
# another sender is claiming at that moment skipped (FOR UPDATE SKIP LOCKED; SQLite has
# neither, and needs neither: its BEGIN IMMEDIATE lets one claim run at a time). So senders
# in several clock processes take different rows, and none renders a row it did not claim.
_DUE = (
    select(_OUTBOX.c.id)
    .where(
        _OUTBOX.c.sent_at.is_(None),
        _OUTBOX.c.next_attempt_at <= bindparam("w_now", type_=_OUTBOX.c.next_attempt_at.type),
        or_(
            _OUTBOX.c.claimed_until.is_(None),
            _OUTBOX.c.claimed_until < bindparam("w_at", type_=_OUTBOX.c.claimed_until.type),
        ),
    )
    .order_by(_OUTBOX.c.id)
    .limit(bindparam("w_batch", type_=Integer))
    .with_for_update(skip_locked=True)
)
# A claimed row with the player its mail goes to (player columns p_*) and the state of the
# address it goes to (the one it was rendered for, else the player's: a sign-in link asked
# for an address has neither yet, and goes whatever), read as Core: the ORM's read of the
# three cost more than it, for every mail.
_PLAYER = Player.__table__  # type: ignore[attr-defined]
_ADDRESS = MailAddress.__table__  # type: ignore[attr-defined]
_TO = func.lower(
    case((_OUTBOX.c.rendered_at.is_not(None), _OUTBOX.c.to_addr), else_=_PLAYER.c.email)
)
_ROW_COLUMNS = [
    *_OUTBOX.c,
    *(column.label(f"p_{column.name}") for column in _PLAYER.c),
    _ADDRESS.c.state.label("a_state"),
]
_ROW = (
    select(*_ROW_COLUMNS)
    .select_from(
        _OUTBOX.outerjoin(_PLAYER, _PLAYER.c.id == _OUTBOX.c.player_id).outerjoin(
            _ADDRESS, _ADDRESS.c.address == _TO
        )
    )
    .where(_OUTBOX.c.id == bindparam("w_id"))
)


def _changed(session: Any, name: str, statement: Any, values: dict[str, Any]) -> int:
    """Run one of the UPDATEs above on the driver's cursor (compiled once per database,
    pbem.storage.rawsql: the sender runs three a mail); the rows it changed."""
    done = compiled(dialect_of(session), ("sender", name), lambda: statement)
    return int(run(session, done, done.parameters(values)).rowcount)


def _claim_one(session: Any, row_id: int, at: datetime, lease: timedelta) -> bool:
    """Claim one row until `at + lease`, unless it is sent or another sender holds it."""
    params = {"w_id": row_id, "w_at": at, "w_until": at + lease}
    return _changed(session, "claim", _CLAIM, params) == 1


def _claimed(session: Any, row_id: int, now: datetime) -> tuple[Outbox, Player | None] | None:
    """A row just claimed and its player (models outside the session), the unsubscribe key
    its rendering needs given to the player in the claim's transaction if they have none;
    None when the address it goes to bounces and its owner did not ask for it: then it is
    marked done, unsent, in this transaction."""
    found = session.connection().execute(_ROW, {"w_id": row_id}).mappings().one()
    row = Outbox.model_construct(**{name: found[name] for name in _OUTBOX.c.keys()})
    if not may_mail(found["a_state"] or "ok", row.event):
        mark_done(session, row_id, now, SUPPRESSED)
        log.info("mail %s (%s) not sent: its address bounces", row_id, row.event)
        return None
    if found["p_id"] is None:
        return row, None
    if row.rendered_at is None and needs_key(row) and not found["p_unsubscribe_key"]:
        player = session.get(Player, found["p_id"])
        ensure_unsubscribe_key(session, player)
        return row, player
    fields = {name: found[f"p_{name}"] for name in _PLAYER.c.keys()}
    return row, Player.model_construct(**fields)


def claim_to_send(
    engine: Engine,
    row_id: int,
    at: datetime,
    lease: timedelta,
    sent: tuple[int, datetime] | None = None,
) -> Outbox | None:
    """Claim one given row until `at + lease`: the row, or None when it is sent, not yet due,
    or another sender holds it. `sent`: the mail sent just before (its id, when), marked
    sent first in the same transaction, which commits that mark even when nothing is claimed."""
    with write_session(engine) as session:
        if sent is not None:
            mark_sent(session, *sent)
        if not _claim_one(session, row_id, at, lease):
            return None
        claimed = _claimed(session, row_id, at)
        return claimed[0] if claimed is not None else None


def claim(engine: Engine, now: datetime, batch: int, lease: timedelta = LEASE) -> list[Outbox]:
    """Claim up to `batch` rows due at `now` that no sender holds, oldest first, each until
    `now + lease`; rows another sender holds or is claiming are skipped, never waited for."""
    return [claimed[0] for claimed in claim_due(engine, now, now, batch, lease) if claimed]


def claim_due(
    engine: Engine,
    now: datetime,
    at: datetime,
    batch: int,
    lease: timedelta,
    sent: tuple[int, datetime] | None = None,
) -> list[tuple[Outbox, Player | None] | None]:
    """Claim up to `batch` rows due at `now` that no sender holds at `at`, each until `at +
    lease`: the rows and their players, None for each row not to be sent (its address
    bounces: marked done). `sent` as for claim_to_send."""
    with write_session(engine) as session:
        if sent is not None:
            mark_sent(session, *sent)
        params = {"w_now": now, "w_at": at, "w_batch": batch}
        ids = list(session.connection().execute(_DUE, params).scalars())
        claimed = [row_id for row_id in ids if _claim_one(session, row_id, at, lease)]
        return [_claimed(session, row_id, now) for row_id in claimed]


def mark_sent(session: Any, row_id: int | None, sent_at: datetime) -> None:
    """Mark a row sent (a row another sender marked sent meanwhile stays as it is)."""
    params = {"w_id": row_id, "w_sent": sent_at, "w_claimed": None, "w_error": None}
    _changed(session, "sent", _SENT, params)


def mark_done(session: Any, row_id: int | None, now: datetime, why: str) -> bool:
    """Mark a row done with, unsent (its address bounces, or the relay refused it for good):
    sent_at says when, last_error why; retention and /readyz take it as done. False when
    another sender marked it meanwhile."""
    params = {"w_id": row_id, "w_sent": now, "w_claimed": None, "w_error": why}
    return _changed(session, "sent", _SENT, params) == 1
