"""A report that a mail did not arrive, written down as received: by `pbem inbound` (a DSN or
a complaint to a bounce address) or by the sender (the relay refusing the mail at SMTP time).

Nothing is scored here: the clock's sweep scores each report once (pbem.mailfix.score), so
that a report is written in the transaction that received it, however many arrive at once.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from pbem.bounces.state import key
from pbem.counters import metrics
from pbem.models import Bounce

HARD, SOFT, REFUSED, COMPLAINT = "hard", "soft", "refused", "complaint"
KINDS = (SOFT, HARD, REFUSED, COMPLAINT)
STATUS_MAX, REASON_MAX = 12, 300  # the columns' lengths


def record(
    session: Session,
    address: str,
    outbox_id: int | None,
    game_id: int | None,
    kind: str,
    status: str,
    reason: str,
    now: datetime,
) -> Bounce:
    """Add one report on the mail `outbox_id` to `address`, in the caller's transaction (it is
    counted in pbem_mails_bounced_total when that commits)."""
    if kind not in KINDS:
        raise ValueError(f"no such kind of bounce: {kind!r}")
    row = Bounce(
        address=key(address),
        outbox_id=outbox_id,
        game_id=game_id,
        kind=kind,
        status=status.strip()[:STATUS_MAX],
        reason=" ".join(reason.split())[:REASON_MAX],
        received_at=now,
    )
    session.add(row)
    metrics.bounce_recorded(session, kind)
    return row
