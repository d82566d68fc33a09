"""A report that a mail did not arrive, read from the bytes received at a bounce address.

Who reads what:
- standard: a delivery status notification (RFC 3464: multipart/report;
  report-type=delivery-status), as Postfix, Sendmail, Exchange/Office 365, Gmail and most
  servers send today, is read field by field: per recipient its Action, Status and
  Diagnostic-Code. flufl.bounce reads these too, but gives only addresses (no status, no
  reason) and counts a 4.x.x failure as permanent: our own reading comes first. A complaint
  (RFC 5965, ARF: report-type=feedback-report) is read there too: flufl.bounce does not
  read feedback reports.
- text: anything else that comes from a mail server about a failure (Exim's plain-text
  bounces, qmail's, old Exchange, Yahoo...) goes to flufl.bounce, Mailman's reader, which
  knows years of odd formats and names the failed addresses; the status and the reason are
  then looked for in the text (an SMTP reply such as "550 5.1.1 ... User unknown", a
  "(#5.1.1)").

Decisions:
- The kind follows the status class: 5.x.x is hard, 4.x.x soft, even with `Action: failed`.
  A server that gives up after its queue lifetime (Postfix: 5 days) reports the 4.x.x of
  its last try (mailbox full, host down): the address exists and the condition may clear,
  so it scores as soft; if it goes on, the soft bounces reach the threshold all the same.
- A delay warning (`Action: delayed`: Postfix's "Delayed Mail (still being retried)",
  Sendmail's "Warning: could not send message for past 4 hours"; the warnings flufl.bounce
  calls temporary) is no report: the mail may still arrive, and if it does not, the failure
  that follows is the report; counting both would score one mail twice.
- Feedback types abuse and fraud are complaints (a person marked the mail as spam or as
  phishing); not-spam, virus, auth-failure and other are not.
- Anything else (an out-of-office reply, a person writing back, a read receipt, a mail
  bigger or more nested than `pbem inbound` takes, garbage) is no report: None, and never
  an exception.
"""

from __future__ import annotations

from email import policy
from email.parser import BytesParser

from pbem.bounces.reading import mimeparts, nonstandard, standard
from pbem.bounces.reading.report import COMPLAINT, HARD, SOFT, Failure, Report
from pbem.config import Settings

__all__ = ["COMPLAINT", "HARD", "SOFT", "Failure", "Report", "read_report"]

MAX_BYTES = int(Settings.model_fields["inbound_max_bytes"].default)


def read_report(raw: bytes, max_bytes: int = MAX_BYTES) -> Report | None:
    """The report in a mail received at a bounce address, or None when it is none."""
    if len(raw) > max_bytes or mimeparts.too_complex(raw):
        return None
    try:
        message = BytesParser(policy=policy.compat32).parsebytes(raw)
    except Exception:  # the parser is lenient; anything it raises means garbage
        return None
    if message.get_content_type() == "multipart/report":
        report_type = mimeparts.param(message, "report-type")
        if report_type == "feedback-report":
            return standard.arf(message)
        if report_type != "delivery-status":
            return None  # a read receipt (disposition-notification) or another kind
        blocks = [
            block for part in mimeparts.parts(message) for block in mimeparts.field_blocks(part)
        ]
        if blocks:
            return standard.dsn(message, blocks)
        # A report without per-recipient fields (old Netscape servers): read as text.
    if not nonstandard.looks_like_bounce(message):
        return None
    return nonstandard.text_bounce(message)
