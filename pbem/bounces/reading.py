"""A report that a mail did not arrive, read from the bytes received at a bounce address.

A delivery status notification (RFC 3464: multipart/report; report-type=delivery-status)
says per recipient what happened: `Action: failed` with a 5.x.x status is a hard bounce,
a 4.x.x one (or `Action: delayed`) a soft one. A complaint (RFC 5965, ARF:
report-type=feedback-report, Feedback-Type: abuse) says a person marked the mail as spam.
Anything else sent to a bounce address (an out-of-office reply, a person writing back)
is no report: None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email import policy
from email.message import Message
from email.parser import BytesParser

HARD, SOFT, COMPLAINT = "hard", "soft", "complaint"
_STATUS = re.compile(r"\b([245])\.\d{1,3}\.\d{1,3}\b")
REASON_MAX = 300


@dataclass(frozen=True)
class Report:
    """What a report says: hard, soft or complaint; the DSN status (as 5.1.1, or empty) and
    the reason the reporting server gave, as short text; the recipients it names."""

    kind: str
    status: str = ""
    reason: str = ""
    recipients: frozenset[str] = frozenset()


def read_report(raw: bytes) -> Report | None:
    """The report in a mail received at a bounce address, or None when it is none."""
    message = BytesParser(policy=policy.compat32).parsebytes(raw)
    if message.get_content_type() != "multipart/report":
        return None
    kind = message.get_param("report-type", "", header="content-type")
    if str(kind).lower() == "delivery-status":
        return _dsn(message)
    return None


def _dsn(message: Message) -> Report | None:
    """The worst per-recipient verdict of a delivery status notification."""
    for part in message.walk():
        if part.get_content_type() not in ("message/delivery-status", "text/delivery-status"):
            continue
        fields = _status_fields(part)
        failed = [f for f in fields if f.get("action", "").lower() in ("failed", "delayed")]
        if not failed:
            return None
        worst = min(failed, key=lambda f: f.get("status", "9")[:1])  # a 5 before a 4
        found = _STATUS.search(worst.get("status", ""))
        status = found[0] if found else ""
        hard = worst.get("action", "").lower() == "failed" and status.startswith("5")
        recipients = frozenset(_address(f.get("final-recipient", "")) for f in failed) - {""}
        reason = worst.get("diagnostic-code", "").partition(";")[2].strip()
        return Report(
            HARD if hard else SOFT,
            status,
            " ".join(reason.split())[:REASON_MAX],
            recipients,
        )
    return None


def _status_fields(part: Message) -> list[dict[str, str]]:
    """The per-recipient field groups of a delivery-status part (the first group is the
    message's own: it names no recipient)."""
    payload = part.get_payload()
    if isinstance(payload, list):  # the email package parses it into header blocks
        blocks = [
            {k.lower(): str(v) for k, v in block.items()}
            for block in payload
            if isinstance(block, Message)
        ]
    else:
        text = payload if isinstance(payload, str) else ""
        blocks = [_fields(chunk) for chunk in re.split(r"\r?\n\r?\n", text) if chunk.strip()]
    return [block for block in blocks if "final-recipient" in block or "action" in block]


def _fields(chunk: str) -> dict[str, str]:
    """Header-like lines (with folded continuations) as a dict of lower-cased names."""
    fields: dict[str, str] = {}
    name = ""
    for line in chunk.splitlines():
        if line[:1] in (" ", "\t") and name:
            fields[name] += " " + line.strip()
        elif ":" in line:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            fields[name] = value.strip()
    return fields


def _address(field: str) -> str:
    """The address of an `rfc822; a@b` field, lower-cased."""
    return field.partition(";")[2].strip().strip("<>").lower()
