"""A mail reads back as it was written: subjects, names, addresses and bodies, any text."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.mailout.mailer import build_message, clean_header
from pbem.mailout.mime import UnsafeMessage, checked, compose
from pbem.models import Outbox

SUBJECTS = [
    "Fantasy Business #1 avec Léo, Zoé et Inès\u00a0: à vous de jouer (coup 1)",
    "Colour Bazaar #12 avec Ana et Léo\u00a0: à vous de jouer (2\u00a0jours restants) (urgent)",
    "Fantasy Business #3 avec Ana, Léo, Zoé, Inès, Théo, Noé et Maël\u00a0: manche 4, vos limites",
]


def _turn_mail(subject: str, **fields: Any) -> Outbox:
    """A rendered turn mail to Léo with this subject."""
    now = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    values: dict[str, Any] = {
        "event": "your_turn",
        "to_addr": "leo@example.org",
        "to_name": "Léo",
        "subject": subject,
        "body_text": "Bonjour Léo\u00a0: c'est à vous.\n",
        "body_html": "<p>Bonjour Léo\u00a0: c'est à vous.</p>",
        "message_id": "<m1@pbem.test>",
        "thread_id": "<game-1@pbem.test>",
        "created_at": now,
        "next_attempt_at": now,
    }
    return Outbox(**(values | fields))


def _read(data: bytes) -> EmailMessage:
    """The mail as a reader's program parses it."""
    return BytesParser(policy=policy.default).parsebytes(data)


def _body(msg: EmailMessage, kind: str) -> str:
    """A part's text, its line ends (CR LF, as sent) written as Python writes them."""
    part = msg.get_body((kind,))
    assert part is not None
    return str(part.get_content()).replace("\r\n", "\n")


@pytest.mark.parametrize("subject", SUBJECTS)
def test_a_long_french_subject_reaches_the_reader_as_written(subject: str) -> None:
    row = _turn_mail(subject)
    mail = build_message(row, "pbem@example.org", "pbem")
    back = _read(mail.data)
    assert back["Subject"] == subject
    assert _body(back, "plain") == row.body_text
    assert _body(back, "html") == row.body_html
    assert (mail.sender, mail.recipient) == ("pbem@example.org", "leo@example.org")
    assert mail.data.isascii()  # seven-bit: no SMTP extension needed on the way
    assert all(len(line) <= 998 for line in mail.data.split(b"\r\n"))


def test_the_same_row_is_the_same_bytes() -> None:
    """A resend (after a crash between sending and marking) is the very same mail."""
    row = _turn_mail(SUBJECTS[0])
    first = build_message(row, "pbem@example.org", "pbem")
    assert build_message(row, "pbem@example.org", "pbem") == first
    assert _read(first.data)["Message-ID"] == "<m1@pbem.test>"
    assert _read(first.data)["In-Reply-To"] == "<game-1@pbem.test>"


@pytest.mark.parametrize(
    "subject",
    ["=?utf-8?q?R=0D=0AReply-To:_x@evil.test?=", "=?utf-8?b?Ug0KUmVwbHktVG86IHhAZXZpbC50ZXN0?="],
)
def test_a_header_that_would_read_as_a_new_header_is_refused(subject: str) -> None:
    """The last guard: an encoded word that a mail program would decode to CR LF and a new
    header (CVE-2024-6923) is caught before sending, whatever let it past the cleaning."""
    fields: list[tuple[str, Any]] = [("To", ("Léo", "leo@example.org")), ("Subject", subject)]
    with pytest.raises(UnsafeMessage, match="Subject"):
        compose(fields, "text", "<p>html</p>")
    # The same subject through build_message is cleaned, and sent as plain text.
    mail = build_message(_turn_mail(subject), "pbem@example.org", "pbem")
    assert _read(mail.data)["Subject"] == subject.replace("=?", "= ?")
    assert _read(mail.data)["Reply-To"] is None


@pytest.mark.parametrize(
    ("value", "place"),
    [
        ("x\r\n", 0),  # ends the headers: the fields after it would be read as the body
        ("x\r\n", 2),  # ... even as the last field, before the MIME fields
        ("x\r\nBcc: eve@evil.test", 1),  # a new field
        ("x\r\nno colon here", 2),  # a line that is no field ends the headers too
    ],
)
def test_a_raw_line_break_in_a_value_is_refused_wherever_the_field_stands(
    value: str, place: int
) -> None:
    """Fields are checked one by one (and remembered): a field that would end the headers or
    start another is refused wherever it stands, and the same field is refused every time."""
    fields: list[tuple[str, Any]] = [("To", ("Léo", "leo@example.org")), ("Date", "today")]
    fields.insert(place, ("Subject", value))
    for _ in range(2):
        with pytest.raises(UnsafeMessage, match="Subject"):
            compose(fields, "text", "<p>html</p>")
    fields[place] = ("Subject", "x")
    assert _read(compose(fields, "text", "<p>html</p>"))["Subject"] == "x"


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("X-Game: 1 Reply-To", "not a header name"),
        ("Reply To", "not a header name"),
        ("", "not a header name"),
    ],
)
def test_a_header_name_that_is_not_one_is_refused(name: str, why: str) -> None:
    with pytest.raises(UnsafeMessage, match=why):
        compose([(name, "x@evil.test")], "text", "html")


def test_addresses_are_written_in_ascii_or_refused() -> None:
    """A domain outside ASCII goes in its IDNA form; a local part outside ASCII would need
    SMTPUTF8, which not every server takes: refused, never sent half right."""
    mail = build_message(_turn_mail("x", to_addr="zoe@exämple.org"), "pbem@example.org", "p")
    assert mail.recipient == "zoe@xn--exmple-cua.org"
    assert _read(mail.data)["To"].addresses[0].addr_spec == "zoe@xn--exmple-cua.org"
    with pytest.raises(UnsafeMessage, match="ASCII"):
        build_message(_turn_mail("x", to_addr="zoé@example.org"), "pbem@example.org", "p")


def test_a_header_longer_than_a_line_is_folded_at_spaces() -> None:
    subject = " ".join(["word"] * 400)  # 1,999 characters
    mail = build_message(_turn_mail(subject), "pbem@example.org", "pbem")
    assert all(len(line) <= 998 for line in mail.data.split(b"\r\n"))
    assert _read(mail.data)["Subject"] == subject
    with pytest.raises(UnsafeMessage, match="longer than a line"):
        build_message(_turn_mail("x" * 1200), "pbem@example.org", "pbem")


# Text a player or a template may produce: any character, spaces of all kinds included.
free_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=120)


@settings(max_examples=300, deadline=None)
@given(name=free_text, subject=free_text, text=free_text, html=free_text)
def test_whatever_a_name_or_subject_holds_it_reads_back_as_cleaned(
    name: str, subject: str, text: str, html: str
) -> None:
    """Every mail that is sent reads back with the cleaned name and subject, the one
    recipient, and the bodies as written (line ends as the reader writes them)."""
    row = _turn_mail(subject, to_name=name, body_text=text, body_html=html)
    mail = build_message(row, "pbem@example.org", "pbem")
    back = _read(mail.data)
    assert [k.lower() for k in back] == [
        "from", "to", "subject", "date", "message-id", "in-reply-to", "references",
        "auto-submitted", "mime-version", "content-type",
    ]  # fmt: skip
    (to,) = back["To"].addresses
    assert to.addr_spec == "leo@example.org"
    assert " ".join(to.display_name.split()) == " ".join(clean_header(name).split())
    assert " ".join(back["Subject"].split()) == " ".join(clean_header(subject).split())
    lines = text.replace("\r\n", "\n").replace("\r", "\n")
    assert _body(back, "plain") == lines
    assert _body(back, "html") == html.replace("\r\n", "\n").replace("\r", "\n")
    assert mail.data.isascii()
    assert all(len(line) <= 998 for line in mail.data.split(b"\r\n"))


# Header text as an attacker would write it: line breaks, NUL, encoded words, specials.
hostile_text = st.lists(
    st.one_of(
        st.characters(exclude_categories=["Cs"]),
        st.sampled_from(["\r\n", "\r", "\n", "\x00", "=?", "?=", "=?utf-8?b?", "<", ">", ",", '"']),
    ),
    max_size=40,
).map("".join)
hostile_address = st.one_of(
    st.emails(),
    st.builds(lambda a, b: f"{a}@{b}", hostile_text, hostile_text),
)


@settings(max_examples=400, deadline=None)
@given(
    field=st.sampled_from(["Subject", "X-Game", "To", "Reply-To"]),
    text=hostile_text,
    address=hostile_address,
)
def test_a_header_the_rules_let_through_reads_back_as_itself(
    field: str, text: str, address: str
) -> None:
    """The headers are checked by rule, not read back: whatever passes the rules reads back,
    as a reader's mail program parses it, as one field with the text or mailbox it was given,
    and the field after it as a field."""
    value: Any = (text, address) if field in ("To", "Reply-To") else text
    try:
        written = checked(field, value)
    except UnsafeMessage:
        return
    back = _read(written + b"X-Next: 1\r\n\r\nbody")
    assert [k.lower() for k in back] == [field.lower(), "x-next"]
    read = back[field]
    assert not re.search(r"[\x00-\x1f\x7f\u2028\u2029]", str(read))
    if isinstance(value, tuple):
        (mailbox,) = read.addresses
        assert (" ".join(mailbox.display_name.split()), mailbox.addr_spec) == (
            " ".join(text.split()),
            address,
        )
    else:
        assert " ".join(str(read).split()) == " ".join(text.split())
