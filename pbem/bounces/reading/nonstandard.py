"""Bounces in the non-standard formats (Exim's plain text, qmail, old Exchange, Yahoo...),
read through flufl.bounce: it names the failed addresses, the text gives status and reason.

flufl.bounce reads a copy of the mail (`view`): its text parts cut to VIEW_LINES lines of
VIEW_WIDTH characters, the returned message left out. Some of its patterns take time that
grows with the cube of a line's length (its Netscape one: 8 ms on a hostile line of 200
characters, 0.5 s on one of 800; quadratic ones take 0.4 s on a line of 20,000), and none
of them should read our own mail's text.
"""

from __future__ import annotations

import logging
import re
from email.message import Message

from flufl.bounce import all_failures

from pbem.bounces.reading import mimeparts
from pbem.bounces.reading.report import HARD, SOFT, Failure, Report, worst
from pbem.bounces.reading.standard import text_reason

VIEW_LINES = 150  # lines of text flufl.bounce reads, in all parts together
VIEW_WIDTH = 100  # characters of each (a bounce names the address near a line's start)
VIEW_HEADERS = ("X-Failed-Recipients", "X-Mailer", "Content-Description")

_DAEMON = re.compile(
    r"^(mailer-daemon|mailer_daemon|mailerdaemon|mail-daemon|postmaster|microsoftexchange\w*)@",
    re.IGNORECASE,
)
_BOUNCE_SUBJECT = re.compile(
    r"undeliver|not (been )?delivered|delivery (status notification|failure|failed|has failed)"
    r"|mail delivery failed|returned mail|returning message|failure notice|non remis"
    r"|could not be delivered",
    re.IGNORECASE,
)
_RETURN_PATH = re.compile(r"^return-path:\s*<([^<>\s]*)>", re.IGNORECASE)

# flufl.bounce says "Running detector" at INFO for each of its 17 detectors: only warnings.
logging.getLogger("flufl.bounce").setLevel(logging.WARNING)


def looks_like_bounce(message: Message) -> bool:
    """Whether a mail comes from a mail server about a failure: an X-Failed-Recipients
    field, a MAILER-DAEMON or postmaster sender, an empty Return-Path, or a bounce's subject
    on an automatic mail. Only those go to flufl.bounce, whose looser patterns would find
    addresses in a person's mail ("my friend, oli@example.com, says...")."""
    if message.get("X-Failed-Recipients") is not None:
        return True
    if any(_DAEMON.match(a) for a in mimeparts.addresses([str(message.get("From", ""))])):
        return True
    if str(message.get("Return-Path", "")).strip() == "<>":
        return True
    automatic = str(message.get("Auto-Submitted", "no")).strip().lower() != "no"
    subject = str(message.get("Subject", ""))[: mimeparts.FIELD_MAX]
    return automatic and bool(_BOUNCE_SUBJECT.search(subject))


def text_bounce(message: Message) -> Report | None:
    """A bounce in a non-standard format: the addresses flufl.bounce says failed for good,
    hard or soft by the status in the text; None when it finds none, or only the addresses
    of a delay warning (its "temporary" ones: a warning is no report)."""
    try:
        _temporary, permanent = all_failures(view(message, [VIEW_LINES]))
    except Exception:  # a detector tripping on an odd mail: no report (flufl logs it)
        return None
    if not permanent:
        return None
    recipients = mimeparts.addresses([a.decode("ascii", "replace") for a in permanent])
    text = "\n".join(mimeparts.lines(_text(message), VIEW_LINES))
    failures = []
    for recipient in sorted(recipients):
        status, reason = text_reason(text, {recipient})
        kind = SOFT if status.startswith("4") else HARD  # as in a DSN: the status class decides
        failures.append(Failure(recipient, kind, status, reason))
    if not failures:
        return None
    return worst(failures, recipients, _copy_sender(text), "text")


def view(part: Message, budget: list[int]) -> Message:
    """The copy of a mail flufl.bounce reads: its text parts cut to the budget of lines (one
    budget for all parts, half of it at most for one), the returned message left out, the
    headers its detectors read kept as plain one-line text."""
    copy = Message()
    for name in VIEW_HEADERS:
        for value in (part.get_all(name) or [])[:4]:
            copy[name] = " ".join(str(value).split())[: mimeparts.FIELD_MAX]
    # The sender as a bare address, always one: flufl.bounce's Yale detector fails on a mail
    # without a From address (getaddresses gives no pair), and the detectors after it would
    # then never run. "nobody@invalid" (RFC 2606) matches none of its senders.
    sender = sorted(mimeparts.addresses([str(part.get("From", ""))]))
    copy["From"] = sender[0] if sender else "nobody@invalid"
    copy["Content-Type"] = part.get_content_type()
    payload = part.get_payload()
    if isinstance(payload, list):
        for sub in payload:
            if isinstance(sub, Message) and sub.get_content_type() not in mimeparts.RETURNED:
                copy.attach(view(sub, budget))
        if not copy.is_multipart():
            copy.set_payload("")
    elif part.get_content_maintype() == "text":
        lines = mimeparts.lines(
            mimeparts.decoded(part), min(budget[0], VIEW_LINES // 2), VIEW_WIDTH
        )
        budget[0] -= len(lines)
        copy.set_payload("".join(line + "\n" for line in lines))
    else:
        copy.set_payload("")
    return copy


def _text(message: Message) -> str:
    """The text of a non-standard bounce: its plain parts, else its HTML ones."""
    leaves = list(mimeparts.parts(message))
    plain = [mimeparts.decoded(p) for p in leaves if p.get_content_type() == "text/plain"]
    if plain:
        return "\n".join(plain)
    html = [p for p in leaves if p.get_content_type() == "text/html"]
    return "\n".join(mimeparts.html_text(mimeparts.decoded(p)) for p in html)


def _copy_sender(text: str) -> str:
    """The Return-Path of the copy a plain-text bounce returns below its own text."""
    for line in text.splitlines():
        if found := _RETURN_PATH.match(line):
            return mimeparts.address(found[1], lower=False)
    return ""
