"""Bounce and complaint reports read from their bytes: every sample in samples/ (listed, with
where its shape comes from, in samples/README.md) gives the kind, status, recipients and
reason it should; nothing a sender writes makes the reader raise or read without bound."""

from __future__ import annotations

import re
from email import policy
from email.message import Message
from email.parser import BytesParser
from pathlib import Path

import pytest
from flufl.bounce import all_failures
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.bounces.reading import COMPLAINT, HARD, SOFT, Report, read_report
from pbem.bounces.reading.mimeparts import MAX_LEVELS, MAX_PARTS
from pbem.bounces.reading.nonstandard import VIEW_LINES, VIEW_WIDTH, view
from pbem.bounces.reading.report import MAX_RECIPIENTS, REASON_MAX

SAMPLES = Path(__file__).parent / "samples"
# sample: (kind, status, recipients, a key word of the reason, read by), or None: no report
TABLE: dict[str, tuple[str, str, set[str], str, str] | None] = {
    "postfix-unknown-user.eml": (
        HARD, "5.1.1", {"nobody-here@localhost.test"}, 'unknown user: "nobody-here"', "dsn"
    ),
    "postfix-mailbox-full.eml": (SOFT, "4.2.2", {"bea@example.net"}, "Mailbox full", "dsn"),
    "postfix-delayed.eml": None,
    "exim-unknown-user.eml": (HARD, "5.1.1", {"dan@example.org"}, "User unknown", "text"),
    "exim-retry-timeout.eml": (SOFT, "4.2.2", {"lea@example.net"}, "Mailbox is full", "text"),
    "sendmail-unknown-user.eml": (HARD, "5.1.1", {"erin@example.com"}, "User unknown", "dsn"),
    "sendmail-delayed.eml": None,
    "office365-recipient-not-found.eml": (
        HARD, "5.1.10", {"frank@example.com"}, "RESOLVER.ADR.RecipientNotFound", "dsn"
    ),
    "exchange-2003-no-diagnostic.eml": (
        HARD, "5.1.1", {"kay@example.com"}, "no mailbox by this name", "dsn"
    ),
    "gmail-no-such-user.eml": (
        HARD, "5.1.1", {"gail@example.org"},
        "The email account that you tried to reach does not exist. Please try double-checking",
        "dsn",
    ),
    "gmail-over-quota.eml": (SOFT, "4.2.2", {"hal@example.org"}, "is over quota", "dsn"),
    "qmail-no-mailbox.eml": (
        HARD, "5.1.1", {"ivan@example.net"}, "no longer accepts mail", "text"
    ),
    "yahoo-style.eml": (HARD, "5.0.0", {"mia@yahoo.example"}, "delivery error", "text"),
    "arf-abuse.eml": (COMPLAINT, "", {"jo@example.com"}, "abuse report", "arf"),
    "arf-abuse-no-rcpt-to.eml": (
        COMPLAINT, "", {"lu@example.net"}, "reported this message as spam", "arf"
    ),
    "arf-not-spam.eml": None,
    "out-of-office.eml": None,
    "person-writing.eml": None,
    "read-receipt.eml": None,
}  # fmt: skip


def sample(name: str) -> bytes:
    """A sample's bytes."""
    return (SAMPLES / name).read_bytes()


@pytest.mark.parametrize("name", sorted(TABLE))
def test_each_sample_reads_as_the_table_says(name: str) -> None:
    report = read_report(sample(name))
    expected = TABLE[name]
    if expected is None:
        assert report is None
        return
    kind, status, recipients, reason, read_as = expected
    assert report is not None
    assert (report.kind, report.status, set(report.recipients)) == (kind, status, recipients)
    assert reason in report.reason
    assert report.read_as == read_as
    assert report.original_sender.startswith("bounce+")  # the address the mail was sent from
    if kind != COMPLAINT:
        assert {f.recipient for f in report.failures} == recipients
        assert all(f.kind == kind for f in report.failures)


def test_every_sample_is_in_the_table_and_the_readme() -> None:
    files = {path.name for path in SAMPLES.glob("*.eml")}
    assert files == set(TABLE)
    readme = (SAMPLES / "README.md").read_text(encoding="utf-8")
    assert {name for name in files if f"| {name} |" not in readme} == set()


def test_the_bounce_address_keeps_its_case() -> None:
    """Its signature is case-sensitive: the address comes back as it was written."""
    report = read_report(sample("postfix-mailbox-full.eml"))
    assert report is not None and report.original_sender == "bounce+q3v8a1.Jx0TfQ@pbem.test"
    complaint = read_report(sample("arf-abuse.eml"))
    assert complaint is not None and complaint.original_sender == "bounce+Jo9r4F.Wt1mKc@pbem.test"


def _dsn(*blocks: str) -> bytes:
    """A Postfix-shaped DSN with these per-recipient blocks."""
    raw = sample("postfix-mailbox-full.eml").decode()
    head, _, rest = raw.partition("Final-Recipient:")
    _, _, tail = rest.partition("\n\n--9B7E1A0310")
    return (head + "\n\n".join(blocks) + "\n\n--9B7E1A0310" + tail).encode()


def _block(address: str, action: str, status: str, diagnostic: str = "") -> str:
    lines = [f"Final-Recipient: rfc822; {address}", f"Action: {action}"]
    lines += [f"Status: {status}"] if status else []
    lines += [f"Diagnostic-Code: smtp; {diagnostic}"] if diagnostic else []
    return "\n".join(lines)


def test_several_recipients_the_worst_is_the_kind_and_each_is_named() -> None:
    raw = _dsn(
        _block("ana@example.net", "failed", "4.2.2", "452 4.2.2 Mailbox full"),
        _block("leo@example.net", "failed", "5.1.1", "550 5.1.1 No such user"),
        _block("zoe@example.net", "delivered", "2.0.0", "250 2.0.0 Ok"),
        _block("ines@example.net", "delayed", "4.4.1", "connection timed out"),
    )
    report = read_report(raw)
    assert report is not None
    assert (report.kind, report.status, report.reason) == (HARD, "5.1.1", "No such user")
    assert report.recipients == {"ana@example.net", "leo@example.net"}
    assert [(f.recipient, f.kind, f.status) for f in report.failures] == [
        ("ana@example.net", SOFT, "4.2.2"),
        ("leo@example.net", HARD, "5.1.1"),
    ]


def test_only_soft_failures_make_a_soft_report() -> None:
    raw = _dsn(
        _block("ana@example.net", "failed", "4.2.2", "452 4.2.2 Mailbox full"),
        _block("leo@example.net", "failed", "4.4.7", "timed out"),
    )
    report = read_report(raw)
    assert report is not None and report.kind == SOFT
    assert report.recipients == {"ana@example.net", "leo@example.net"}


def test_without_a_status_the_reply_code_gives_the_class() -> None:
    report = read_report(_dsn(_block("ana@example.net", "failed", "", "450 mailbox busy")))
    assert report is not None
    assert (report.kind, report.status, report.reason) == (SOFT, "4.0.0", "mailbox busy")
    report = read_report(_dsn(_block("ana@example.net", "failed", "")))
    assert report is not None and (report.kind, report.status) == (HARD, "")


def test_a_report_of_delays_and_deliveries_only_is_none() -> None:
    raw = _dsn(
        _block("ana@example.net", "delayed", "4.4.1"),
        _block("leo@example.net", "relayed", "2.0.0"),
    )
    assert read_report(raw) is None


@pytest.mark.parametrize(
    "feedback_type, complaint",
    [
        ("abuse", True),
        ("fraud", True),
        ("Abuse", True),
        ("not-spam", False),
        ("virus", False),
        ("auth-failure", False),
        ("other", False),
        ("", False),
    ],
)
def test_which_feedback_types_are_complaints(feedback_type: str, complaint: bool) -> None:
    raw = sample("arf-abuse.eml").replace(
        b"Feedback-Type: abuse", f"Feedback-Type: {feedback_type}".encode()
    )
    report = read_report(raw)
    assert (report is not None) is complaint
    if report is not None:
        assert (report.kind, report.feedback_type) == (COMPLAINT, feedback_type.lower())


def test_a_text_bounce_names_each_recipient_with_its_own_status() -> None:
    raw = (
        sample("exim-unknown-user.eml")
        .replace(
            b"X-Failed-Recipients: dan@example.org",
            b"X-Failed-Recipients: dan@example.org,\n lea@example.net",
        )
        .replace(
            b"\n\n------ This is a copy",
            b"\n\n  lea@example.net\n    452 4.2.2 <lea@example.net>: Mailbox is full\n"
            b"    retry timeout exceeded\n\n------ This is a copy",
        )
    )
    report = read_report(raw)
    assert report is not None
    assert (report.kind, report.status) == (HARD, "5.1.1")
    assert [(f.recipient, f.kind, f.status) for f in report.failures] == [
        ("dan@example.org", HARD, "5.1.1"),
        ("lea@example.net", SOFT, "4.2.2"),
    ]


def test_exim_without_its_failed_recipients_field_is_read_from_its_text() -> None:
    raw = sample("exim-unknown-user.eml").replace(b"X-Failed-Recipients: dan@example.org\n", b"")
    report = read_report(raw)
    assert report is not None
    assert (report.kind, report.status, report.recipients) == (HARD, "5.1.1", {"dan@example.org"})


def test_a_bounce_without_a_from_address_is_still_read() -> None:
    """flufl.bounce's Yale detector fails on a mail with no From address, and stopped the
    detectors after it (qmail's among them) from running."""
    raw = sample("qmail-no-mailbox.eml").replace(b"From: MAILER-DAEMON@mail.example.net\n", b"")
    report = read_report(raw)
    assert report is not None
    assert (report.kind, report.recipients) == (HARD, {"ivan@example.net"})


def test_a_person_writing_a_bounce_subject_is_not_read_as_a_bounce() -> None:
    """flufl.bounce would find "my friend, oli@example.com," in it: only a mail server's
    mail goes to it."""
    raw = sample("person-writing.eml").replace(
        b"Subject: Re: Colour Bazaar #24: your move", b"Subject: Mail delivery failed"
    )
    assert read_report(raw) is None


def test_a_plain_text_delay_warning_is_none() -> None:
    """flufl.bounce reports a warning's addresses as temporary failures: no report."""
    raw = (
        b"From: Mail Delivery Subsystem <mailer-daemon@example.net>\n"
        b"To: bounce+x@pbem.test\nSubject: Delivery Status Notification (Delay)\n"
        b"Content-Type: text/plain\n\n"
        b"Delivery to the following recipient has been delayed:\n\n"
        b"     ana@example.net\n\nMessage will be retried for 2 more day(s)\n"
    )
    assert read_report(raw) is None


def test_a_mail_bigger_than_pbem_inbound_takes_is_none() -> None:
    raw = sample("postfix-unknown-user.eml").replace(b"hello", b"hello\r\n" * 50_000)
    assert len(raw) > 262_144
    assert read_report(raw) is None
    report = read_report(raw, max_bytes=len(raw))
    assert report is not None and report.kind == HARD


def test_a_deeply_nested_or_many_parted_mail_is_none() -> None:
    raw = sample("postfix-unknown-user.eml")
    head, _, body = raw.partition(b"\n\n")
    nested = body
    for level in range(MAX_LEVELS + 1):
        nested = (
            f"--n{level}\nContent-Type: multipart/mixed; boundary=n{level + 1}\n\n".encode()
            + nested
            + f"\n--n{level}--\n".encode()
        )
    assert read_report(head + b"\n\n" + nested) is None
    parts = b"".join(b"--x\nContent-Type: text/plain\n\nhi\n" for _ in range(MAX_PARTS))
    assert read_report(b"From: mailer-daemon@example.net\n\n" + parts) is None


def test_a_content_type_longer_than_any_server_writes_is_none() -> None:
    """The email package reads its parameters in quadratic time: it is never parsed."""
    raw = sample("postfix-unknown-user.eml").replace(
        b"report-type=delivery-status;", b'report-type=delivery-status; x="' + b";" * 20_000 + b'";'
    )
    assert read_report(raw) is None


def test_flufl_bounce_reads_a_bounded_copy() -> None:
    """A line of 200,000 characters and 100,000 lines: flufl.bounce sees VIEW_LINES lines
    of VIEW_WIDTH characters at most, and never the returned message."""
    raw = sample("exim-unknown-user.eml").replace(
        b"  dan@example.org\n", b"  dan@example.org\n" + b"<" * 200_000 + b"\n" + b"x\n" * 100_000
    )
    copy = view(BytesParser(policy=policy.compat32).parsebytes(raw), [VIEW_LINES])
    assert _lines_of(copy) <= VIEW_LINES
    report = read_report(raw, max_bytes=len(raw))
    assert report is not None and report.recipients == {"dan@example.org"}


def _lines_of(copy: Message) -> int:
    """The lines flufl.bounce may read in a copy, checked to be no wider than VIEW_WIDTH."""
    count = 0
    for part in copy.walk():
        payload = part.get_payload()
        if isinstance(payload, str):
            lines = payload.splitlines()
            assert all(len(line) <= VIEW_WIDTH for line in lines)
            count += len(lines)
        assert part.get_content_type() not in ("message/rfc822", "text/rfc822-headers")
    return count


# Fuzzing: random bytes, the samples mutated, and mails built of report-like lines.
PIECES = [
    b"Content-Type: multipart/report; report-type=delivery-status; boundary=b",
    b"Content-Type: multipart/report; report-type=feedback-report; boundary=b",
    b"Content-Type: multipart/mixed; boundary=b",
    b"Content-Type: message/delivery-status",
    b"Content-Type: message/feedback-report",
    b"Content-Type: message/rfc822",
    b"Content-Type: text/rfc822-headers",
    b"Content-Type: text/html; charset=utf-8",
    b"Content-Type: text/plain; charset=x-unknown",
    b"Content-Transfer-Encoding: base64",
    b"Content-Transfer-Encoding: quoted-printable",
    b"--b",
    b"--b--",
    b"",
    b"From: MAILER-DAEMON@example.net",
    b"From: =?utf-8?b?w6k=?= <\xc3\xa9@example.net>",
    b"X-Failed-Recipients: ana@example.net, <leo@",
    b"Subject: Undelivered Mail Returned to Sender",
    b"Final-Recipient: rfc822; ana@example.net",
    b"Original-Recipient: rfc822;",
    b"Action: failed",
    b"Action: delayed",
    b"Status: 5.1.1",
    b"Status: 4.2.2.2.2",
    b"Diagnostic-Code: smtp; 550-5.1.1 no such user",
    b" 550 5.1.1 folded",
    b"Feedback-Type: abuse",
    b"Original-Rcpt-To: <jo@example.com>",
    b"Return-Path: <bounce+Ab.Cd@pbem.test>",
    b"<ana@example.net>:",
    b"Hi. This is the qmail-send program at example.net.",
    b"This Message was undeliverable due to the following reason:",
    b"This message was created automatically by mail delivery software.",
    b"A message that you sent could not be delivered",
    b"<html><p>550 5.1.1 <b>gone</b></p><style>",
    b"=?utf-8?q?=C3=A9?=",
    b"\xff\xfe\x00",
]
MUTATIONS = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=10_000),
        st.sampled_from(["insert", "delete", "replace", "repeat"]),
        st.binary(max_size=40) | st.sampled_from(PIECES),
    ),
    max_size=8,
)
FUZZ = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _mutated(raw: bytes, mutations: list[tuple[int, str, bytes]]) -> bytes:
    for position, how, data in mutations:
        at = position % (len(raw) + 1)
        if how == "insert":
            raw = raw[:at] + data + raw[at:]
        elif how == "delete":
            raw = raw[:at] + raw[at + len(data) + 1 :]
        elif how == "replace":
            raw = raw[:at] + data + raw[at + len(data) :]
        else:
            raw = raw[:at] + raw[at : at + 200] * 3 + raw[at:]
    return raw


def _sound(report: Report | None) -> None:
    """A report, when there is one, within the shape and sizes the caller relies on."""
    if report is None:
        return
    assert report.kind in (HARD, SOFT, COMPLAINT)
    assert report.status == "" or re.fullmatch(r"[245]\.\d{1,3}\.\d{1,3}", report.status)
    assert len(report.reason) <= REASON_MAX
    assert len(report.recipients) <= MAX_RECIPIENTS
    assert all("@" in address for address in report.recipients)


@FUZZ
@given(raw=st.binary(max_size=3000))
def test_random_bytes_never_raise(raw: bytes) -> None:
    _sound(read_report(raw))


@FUZZ
@given(name=st.sampled_from(sorted(TABLE)), mutations=MUTATIONS)
def test_mutated_samples_never_raise_and_flufl_reads_a_bounded_copy(
    name: str, mutations: list[tuple[int, str, bytes]]
) -> None:
    raw = _mutated(sample(name), mutations)
    _sound(read_report(raw))
    copy = view(BytesParser(policy=policy.compat32).parsebytes(raw), [VIEW_LINES])
    assert _lines_of(copy) <= VIEW_LINES
    all_failures(copy)  # no detector fails on the copy (one that did stopped those after it)


@FUZZ
@given(lines=st.lists(st.sampled_from(PIECES) | st.binary(max_size=30), max_size=60))
def test_mails_of_report_like_lines_never_raise(lines: list[bytes]) -> None:
    _sound(read_report(b"\n".join(lines)))
    _sound(read_report(b"\r\n".join(lines)))
