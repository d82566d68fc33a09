"""Bounces as they come back: Postfix's DSN sample readdressed to a real bounce address, and
the rows they leave."""

from __future__ import annotations

from datetime import datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from sqlmodel import col, select

from pbem.bounces.record import record
from pbem.config import settings_of
from pbem.mailfix.score import sweep_bounces
from pbem.models import Bounce, MailAddress, Outbox
from pbem.storage.db import read_session, write_session
from tests.mailin.helpers import addr

REPLY_DOMAIN = "in.pbem.test"
MAIL_FROM = "pbem@pbem.test"

SAMPLES = Path(__file__).parent / "samples"
# What the Postfix sample names: its envelope sender, the recipient it could not reach, the
# DSN's own Message-Id.
SAMPLE_SENDER = "bounce+abc@reply.test"
SAMPLE_RECIPIENT = "nobody-here@localhost.test"
SAMPLE_ID = "<20261205014131.81E2A20E4B4@localhost.test>"


def dsn(bounce_address: str, message_id: str = SAMPLE_ID) -> bytes:
    """Postfix's DSN for an unknown user, sent back to `bounce_address`. The recipient it
    names stays the sample's: a report counts for the address its bounce address names."""
    raw = (SAMPLES / "postfix-unknown-user.eml").read_bytes()
    raw = raw.replace(SAMPLE_SENDER.encode(), bounce_address.encode())
    return raw.replace(f"Message-Id: {SAMPLE_ID}".encode(), f"Message-Id: {message_id}".encode())


def engine_of(app: Any) -> Any:
    return app.extensions["pbem"]["engine"]


def sent_to(smtpd: Any, address: str) -> list[tuple[EmailMessage, str]]:
    """The mails delivered to `address` and the envelope sender of each, oldest first."""
    return [
        (mail, sender)
        for mail, sender in zip(smtpd.messages, smtpd.senders, strict=True)
        if addr(mail["To"]) == address
    ]


def reports(app: Any) -> list[Bounce]:
    """Every report recorded, oldest first."""
    with read_session(engine_of(app)) as session:
        return list(session.exec(select(Bounce).order_by(col(Bounce.id))))


def address_row(app: Any, address: str) -> MailAddress | None:
    """What is known of `address`'s mail (None: it never bounced)."""
    with read_session(engine_of(app)) as session:
        return session.get(MailAddress, address)


def outbox(app: Any) -> list[Outbox]:
    """Every mail queued, oldest first."""
    with read_session(engine_of(app)) as session:
        return list(session.exec(select(Outbox).order_by(col(Outbox.id))))


def add_report(
    app: Any, address: str, kind: str, now: datetime, status: str = "", reason: str = ""
) -> None:
    """Record a report on `address` as `pbem inbound` or the sender would."""
    with write_session(engine_of(app)) as session:
        record(session, address, None, None, kind, status, reason, now)


def score_all(app: Any, threshold: int | None = None) -> int:
    """One scoring sweep at the app's clock's time."""
    ext = app.extensions["pbem"]
    limit = threshold or int(settings_of(app).bounce_threshold)
    return sweep_bounces(ext["engine"], ext["site"], app.config["CLOCK"](), limit, 5000)
