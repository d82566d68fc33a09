"""What a bounce or complaint report says, once read: its kind, status, reason, recipients."""

from __future__ import annotations

from dataclasses import dataclass

HARD, SOFT, COMPLAINT = "hard", "soft", "complaint"
REASON_MAX = 300  # characters of reason kept
MAX_RECIPIENTS = 50  # a pbem mail has one recipient; a report naming more is cut here


@dataclass(frozen=True)
class Failure:
    """One recipient of a report: its address, hard or soft, the status and the reason."""

    recipient: str
    kind: str
    status: str = ""
    reason: str = ""


@dataclass(frozen=True)
class Report:
    """What a report says: hard, soft or complaint; the status (as 5.1.1, or empty) and the
    reason the reporting server gave, as short text, for the worst recipient; the recipients
    it names, each in `failures`; for a complaint its feedback type; the envelope sender of
    the mail reported on when the report shows it (one of our bounce addresses, as written:
    the caller may check its signature); and which reading found it."""

    kind: str
    status: str = ""
    reason: str = ""
    recipients: frozenset[str] = frozenset()
    failures: tuple[Failure, ...] = ()
    feedback_type: str = ""
    original_sender: str = ""
    read_as: str = ""  # "dsn", "arf" or "text" (flufl.bounce)


def worst(
    failures: list[Failure], recipients: frozenset[str], original_sender: str, read_as: str
) -> Report:
    """The report of some failed recipients (one at least): the first hard failure's kind,
    status and reason, else the first failure's."""
    first = next((f for f in failures if f.kind == HARD), failures[0])
    return Report(
        first.kind,
        first.status,
        first.reason,
        recipients,
        tuple(failures),
        original_sender=original_sender,
        read_as=read_as,
    )
