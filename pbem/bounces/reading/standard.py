"""The two standard reports, read field by field: delivery status notifications (RFC 3464)
and complaints (RFC 5965, ARF); and the status and reason found in a report's text."""

from __future__ import annotations

import re
from email.message import Message

from pbem.bounces.reading import mimeparts
from pbem.bounces.reading.mimeparts import Block, get
from pbem.bounces.reading.report import (
    COMPLAINT,
    HARD,
    MAX_RECIPIENTS,
    REASON_MAX,
    SOFT,
    Failure,
    Report,
    worst,
)

# abuse: marked as spam; fraud: as phishing. Not not-spam (the opposite), virus (a scanner's
# verdict), auth-failure (a DKIM/SPF report for the operator) nor other: none is the
# person asking for no more mail.
COMPLAINT_TYPES = frozenset({"abuse", "fraud"})
TEXT_LINES = 150  # lines of a report's text read for its reason
DIAGNOSTIC_MAX = 2000  # characters of a Diagnostic-Code read (Gmail's folded ones: ~300)

_STATUS = re.compile(r"(?<![\d.])([245])\.(\d{1,3})\.(\d{1,3})(?![\d.]*\d)")
_REPLY = re.compile(r"(?<![\d.])([45]\d\d)[ -]([245]\.\d{1,3}\.\d{1,3})(?![\d.]*\d)")
# A reply code without a status, where a reply starts ("554: delivery error" from Yahoo).
_BARE_REPLY = re.compile(r"(?:^|[:;(]|said:|<<<)\s*([45]\d\d)(?:[ -]|:\s)", re.IGNORECASE)
# Where a bounce's own text ends and the returned copy begins ("--- Below this line is a
# copy of the message.", "------ This is a copy of the message, ...", "----- Original ...").
_COPY_FOLLOWS = re.compile(
    r"^\s*-{2,}.*\b(copy|original|returned|below|undelivered)\b", re.IGNORECASE
)


def dsn(message: Message, blocks: list[Block]) -> Report | None:
    """The worst per-recipient verdict of a delivery status notification: hard when any
    recipient failed with a 5.x.x, soft when all failed with a 4.x.x; None when none failed
    (delivered, relayed, expanded, or only delayed: a warning is no report)."""
    human = mimeparts.human_text(message)
    failures: list[Failure] = []
    for block in blocks[:MAX_RECIPIENTS]:
        action = (get(block, "action").lower().split() or [""])[0]
        if action not in ("failed", "error"):  # opensmtpd writes "error"
            continue
        recipient = mimeparts.address(get(block, "original-recipient")) or mimeparts.address(
            get(block, "final-recipient")
        )
        diagnostic = get(block, "diagnostic-code").partition(";")[2][:DIAGNOSTIC_MAX]
        status = status_in(get(block, "status")) or status_in(diagnostic)
        if not status and (bare := _BARE_REPLY.search(diagnostic)):
            status = f"{bare[1][0]}.0.0"  # RFC 3463: the reply code's class, detail unknown
        reason = clean_reply(diagnostic) or text_reason(human, {recipient})[1]
        # A 4.x.x with Action: failed is a server giving up after its queue lifetime on a
        # condition that may clear (a full mailbox): soft, as the status says.
        kind = SOFT if status.startswith("4") else HARD
        failures.append(Failure(recipient, kind, status, reason))
    if not failures:
        return None
    recipients = frozenset(f.recipient for f in failures) - {""}
    return worst(failures, recipients, _returned_sender(message, blocks), "dsn")


def _returned_sender(message: Message, blocks: list[Block]) -> str:
    """The envelope sender of the reported mail: the returned copy's Return-Path, else the
    DSN's X-Postfix-Sender."""
    for part in mimeparts.parts(message):
        if part.get_content_type() in mimeparts.RETURNED:
            headers = mimeparts.returned_headers(part)
            path = str(headers.get("Return-Path", "")) if headers is not None else ""
            if found := mimeparts.address(path, lower=False):
                return found
    for block in blocks:
        if found := mimeparts.address(get(block, "x-postfix-sender"), lower=False):
            return found
    return ""


def arf(message: Message) -> Report | None:
    """A complaint from a feedback report, when its type says a person complained: the
    complaining address from Original-Rcpt-To, else the returned message's To."""
    fields: Block = []
    returned: Message | None = None
    for part in mimeparts.parts(message):
        if part.get_content_type() == "message/feedback-report":
            fields = [pair for block in mimeparts.field_blocks(part) for pair in block]
        elif part.get_content_type() in mimeparts.RETURNED:
            returned = mimeparts.returned_headers(part)
    feedback_type = (get(fields, "feedback-type").lower().split() or [""])[0]
    if feedback_type not in COMPLAINT_TYPES:
        return None
    recipients = mimeparts.addresses(mimeparts.get_all(fields, "original-rcpt-to"))
    if not recipients and returned is not None:
        recipients = mimeparts.addresses([str(v) for v in returned.get_all("To", [])])
    sender = mimeparts.address(get(fields, "original-mail-from"), lower=False)
    if not sender and returned is not None:
        sender = mimeparts.address(str(returned.get("Return-Path", "")), lower=False)
    first = [
        line.strip() for line in mimeparts.lines(mimeparts.human_text(message), 20) if line.strip()
    ]
    reason = " ".join(" ".join(first[:2]).split())[:REASON_MAX] or f"{feedback_type} report"
    return Report(
        COMPLAINT,
        reason=reason,
        recipients=recipients,
        feedback_type=feedback_type,
        original_sender=sender,
        read_as="arf",
    )


def status_in(text: str) -> str:
    """The first enhanced status code (RFC 3463) in a text, as 5.1.1, or ''."""
    found = _STATUS.search(text)
    return ".".join(found.groups()) if found else ""


def clean_reply(text: str) -> str:
    """An SMTP reply as one short line: unfolded, its reply code and status left out
    (Gmail writes "550-5.1.1" before each of its lines)."""
    text = " ".join(text.split())
    found = _REPLY.search(text) or _BARE_REPLY.search(text)
    if found:
        code = re.escape(found[1])
        text = re.sub(rf"(?<![\d.]){code}(?:[ -]|:\s)(?:[245]\.\d{{1,3}}\.\d{{1,3}}\b)?", " ", text)
    text = " ".join(text.split()).strip(" :;")
    if text.endswith(")") and text.count(")") > text.count("("):
        text = text[:-1]  # the end of Sendmail's "(reason: ...)"
    return text[:REASON_MAX]


def text_reason(text: str, recipients: set[str] | frozenset[str]) -> tuple[str, str]:
    """The status and reason a bounce's text gives: the SMTP reply in, or else the lines
    of, the paragraph naming the first recipient; else the text's first lines. Only the
    text above the returned copy is read."""
    above: list[str] = []
    for line in mimeparts.lines(text, TEXT_LINES):
        if _COPY_FOLLOWS.match(line):
            break
        above.append(line)
    wanted = {r for r in recipients if r}
    start = next((i for i, line in enumerate(above) if _names(line, wanted)), None)
    paragraph: list[str] = []
    for line in above[start : start + 8] if start is not None else []:
        if not line.strip():
            break
        paragraph.append(line.strip())
    whole = " ".join(" ".join(paragraph).split())
    reply = _REPLY.search(whole) or _BARE_REPLY.search(whole)
    if reply:
        reason = clean_reply(whole[reply.start(1) :])
    elif whole:
        reason = whole[:REASON_MAX]
    else:
        first = [line.strip() for line in above if line.strip()][:2]
        reason = " ".join(" ".join(first).split())[:REASON_MAX]
    status = status_in(whole) or status_in("\n".join(above))
    if not status and reply:
        status = f"{reply[1][0]}.0.0"
    return status, reason


def _names(line: str, addresses: set[str]) -> bool:
    """Whether a line names one of the addresses."""
    lowered = line.lower()
    return any(address in lowered for address in addresses)
