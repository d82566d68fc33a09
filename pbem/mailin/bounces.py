"""Mail received at a bounce address (pbem.bounces.verp): a report that a mail did not arrive
written down once, anything else ignored. Nothing received here is ever answered.

The address, not the report's body, says which mail and which address the report is on: a
report is recorded for the address the signed bounce address was made for, whatever
recipients its body names (a forwarding address, a typo the server corrected, or a forger's
choice), and a forged or stale bounce address is refused at RCPT, as a bad reply address is.
Its row in `inboundmail` (unique Message-ID) is written in the transaction that records the
report, so a second copy of a report changes nothing. A report on the mail of a game over
counts all the same: it is the address that bounces, and its owner's next games need to know.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import datetime

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from pbem.bounces import verp
from pbem.bounces.reading import read_report
from pbem.bounces.record import KINDS, record
from pbem.mailin import reading
from pbem.mailin.receive import ACCEPTED, TOO_MANY, Arrival, Verdict, counted, message_id_of
from pbem.models import InboundMail
from pbem.site import Site
from pbem.storage.db import read_session, write_session
from pbem.storage.ratelimit import Limit
from pbem.storage.ratelimit import record as count_hit

# A flood of reports costs a counter each and no more. Behind an MTA the client is the MTA,
# so BY_CLIENT caps the whole site's reports (more wait for the MTA's next try); an address
# is scored at most once a UTC day (pbem.mailfix.score), so reports past BY_ADDRESS in a UTC
# day (a fixed window) add nothing that counts, and are ignored unwritten.
BY_CLIENT = Limit("bounce-client", 600, 3600)
BY_ADDRESS = Limit("bounce-addr", 10, 86400)
NO_SUCH = "550 5.1.1 No such mailbox here"


def bounce_ok(engine: Engine, site: Site, address: str) -> bool:
    """Whether `address` is a bounce address we signed for a mail still kept (at RCPT)."""
    bounce = verp.parse_address(address, site.reply_domain)
    if bounce is None:
        return False
    with read_session(engine) as session:
        return verp.mail_of(session, site.secret, bounce) is not None


@counted
def receive_bounce(engine: Engine, site: Site, mail: Arrival) -> Verdict:
    """Handle one mail to one bounce address; never raises for anything the sender controls."""
    raw, now = mail.raw, mail.now
    bounce = verp.parse_address(mail.rcpt, site.reply_domain)
    if bounce is None:
        return Verdict("rejected", "not_bounce_address", NO_SUCH)
    if len(raw) > mail.max_bytes:
        return Verdict("rejected", "too_big", "552 5.3.4 Message too big")
    if reading.too_complex(raw):
        return Verdict("rejected", "too_complex", "552 5.3.4 Too many MIME parts")
    if count_hit(engine, BY_CLIENT, mail.client or "?", now) > BY_CLIENT.count:
        return Verdict("deferred", "rate_client", TOO_MANY)
    with read_session(engine) as session:
        mailed = verp.mail_of(session, site.secret, bounce)
    if mailed is None:
        return Verdict("rejected", "bad_token", NO_SUCH)
    found = replace(
        _judge(engine, mailed, raw, now, bounce.signature),
        game_id=mailed.game_id,
        seat=mailed.seat,
    )
    return found


def _judge(
    engine: Engine, mailed: verp.Mailed, raw: bytes, now: datetime, signature: str
) -> Verdict:
    """The verdict on a mail to a correctly signed bounce address: a report recorded once,
    or nothing done."""
    try:
        msg = reading.parse(raw)
    except reading.Malformed:
        return Verdict("rejected", "malformed", "550 5.6.0 Malformed message")
    message_id = message_id_of(msg, raw)
    # A Message-ID is the sender's to write: it may not carry the signature into the log.
    shown = message_id.replace(signature, "(signature)")
    report = read_report(raw)
    if report is None or report.kind not in KINDS:
        # An out-of-office reply, a person writing to the Return-Path: nothing to act on.
        return Verdict("ignored", "not_report", ACCEPTED, message_id=shown)
    hashed = hashlib.sha256(mailed.address.encode()).hexdigest()[:32]
    if count_hit(engine, BY_ADDRESS, hashed, now) > BY_ADDRESS.count:
        return Verdict("ignored", "rate_address", ACCEPTED, message_id=shown)
    try:
        with write_session(engine) as session:
            seen = session.exec(
                select(InboundMail.id).where(InboundMail.message_id == message_id)
            ).first()
            if seen is not None:
                return Verdict("ignored", "duplicate", ACCEPTED, message_id=shown)
            session.add(
                InboundMail(
                    message_id=message_id,
                    sender=(reading.sender(msg) or "")[:254],
                    status="recorded",
                    reason=report.kind,
                    created_at=now,
                )
            )
            record(
                session,
                mailed.address,
                mailed.outbox_id,
                mailed.game_id,
                report.kind,
                report.status,
                report.reason,
                now,
            )
    except IntegrityError:
        # A twin of this report (same Message-ID) was written meanwhile.
        return Verdict("ignored", "duplicate", ACCEPTED, message_id=shown)
    return Verdict("recorded", report.kind, ACCEPTED, message_id=shown)
