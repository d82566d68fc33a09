"""A mail's bytes, written directly, each header checked by rule before it is written.

Every mail pbem sends has one shape: a dozen headers, then a plain text part and an HTML
part, both UTF-8 in quoted-printable, so the whole is seven-bit and needs no SMTP
extension. Written here in one pass; the email package's way (each header an object,
parsed when set, folded and parsed back for the check, folded again to be written) was
most of the CPU a mail cost the sender. Reading each header back with the email package
was still a tenth of a mail: the rules it enforced are checked directly (checked).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass
from email.utils import formataddr
from functools import lru_cache

LINE_LIMIT = 998  # RFC 5322 2.1.1: no line longer, CR LF apart
WORD_BYTES = 45  # RFC 2047 2: an encoded word of at most 75 (10 + 60 + 2 characters)
ADDRESS_FIELDS = frozenset({"from", "to", "reply-to"})
_FIELD_NAME = re.compile(r"[!-9;-~]+")  # RFC 5322 3.6.8: printable ASCII but the colon
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")


class UnsafeMessage(ValueError):
    """A header of the message would not read back as the header it was built with."""


@dataclass(frozen=True)
class Mail:
    """A mail ready to send: the envelope's sender and recipient, its Message-ID, its bytes."""

    sender: str
    recipient: str
    message_id: str
    data: bytes


# A header's value: text, or a mailbox (display name, address) for the address fields.
Value = str | tuple[str, str]


def encoded_words(text: str) -> list[str]:
    """`text` as RFC 2047 encoded words (UTF-8, base64), cut between characters.

    A reader joins adjacent encoded words without the white space between them (RFC 2047
    6.2), so the text's own spaces travel inside the words, never between them."""
    raw = text.encode()
    words = []
    start = 0
    while start < len(raw):
        end = min(start + WORD_BYTES, len(raw))
        while end < len(raw) and raw[end] & 0xC0 == 0x80:  # not inside a character
            end -= 1
        words.append(_encoded(raw[start:end]))
        start = end
    return words


def _encoded(raw: bytes) -> str:
    """One RFC 2047 encoded word of UTF-8 bytes, in base64."""
    return f"=?utf-8?b?{base64.b64encode(raw).decode()}?="


def ascii_address(address: str) -> str:
    """The address as a header and the envelope carry it: a domain outside ASCII in its
    IDNA form (RFC 5890); a local part outside ASCII would need SMTPUTF8, and is refused."""
    local, at, domain = address.rpartition("@")
    if not at or not local.isascii():
        raise UnsafeMessage("the address cannot be written in ASCII")
    if not domain.isascii():
        try:
            domain = domain.encode("idna").decode("ascii")
        except UnicodeError as exc:
            raise UnsafeMessage("the address's domain has no IDNA form") from exc
    return f"{local}@{domain}"


def _mailbox(name: str, address: str) -> str:
    """`name <address>` (RFC 5322 3.4): the name quoted when it holds specials, in encoded
    words when it is not ASCII (phrase_words)."""
    if not name:
        return address
    if name.isascii():
        return formataddr((name, address))
    return f"{' '.join(phrase_words(name))} <{address}>"


def phrase_words(name: str) -> list[str]:
    """A display name in encoded words cut only after its own spaces, a word as long as it
    must be: Python's reader, unlike RFC 2047 6.2, puts a space between two encoded words
    of a name, and no cut must join or part what the name joins."""
    pieces: list[str] = []
    for piece in name.split(" "):
        if pieces and len((pieces[-1] + piece).encode()) + 2 <= WORD_BYTES:
            pieces[-1] += " " + piece
        else:
            if pieces:
                pieces[-1] += " "
            pieces.append(piece)
    return [_encoded(piece.encode()) for piece in pieces if piece]


def _text(value: str) -> str:
    """Unstructured text (RFC 5322 3.2.5) as written: itself if ASCII, else encoded words,
    one to a line."""
    return value if value.isascii() else "\r\n ".join(encoded_words(value))


def _field(name: str, value: Value) -> bytes:
    """One header field, CR LF ended; folded at spaces only past the line limit."""
    if not _FIELD_NAME.fullmatch(name):
        raise UnsafeMessage(f"not a header name: {name!r}")
    written = _mailbox(*value) if isinstance(value, tuple) else _text(value)
    line = f"{name}: {written}"
    if len(line) > LINE_LIMIT and "\r\n" not in line:
        line = _fold(line)
    return line.encode("ascii") + b"\r\n"


def _fold(line: str) -> str:
    """An over-long line of ASCII folded before spaces (RFC 5322 2.2.3); each line after the
    first starts with the space it was folded at."""
    room = LINE_LIMIT - 1  # the folded space leads every line but the first
    lines, current = [], ""
    for word in line.split(" "):
        if current and len(current) + 1 + len(word) > room:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    lines.append(current)
    if any(len(part) > room for part in lines):
        raise UnsafeMessage("a header has a word longer than a line may be")
    return "\r\n ".join(lines)


def _part(subtype: str, content: str) -> bytes:
    """One text part in UTF-8, quoted-printable (RFC 2045 6.7), CR LF line ends."""
    lines = content.replace("\r\n", "\n").replace("\r", "\n").encode()
    body = binascii.b2a_qp(lines, istext=True).replace(b"\n", b"\r\n")
    return (
        f'Content-Type: text/{subtype}; charset="utf-8"\r\n'
        "Content-Transfer-Encoding: quoted-printable\r\n\r\n"
    ).encode() + body


def compose(fields: list[tuple[str, Value]], text: str, html: str) -> bytes:
    """The bytes of a multipart/alternative mail with these headers, each checked (checked).

    The boundary comes from the headers (a resend is the same bytes); it holds "==",
    which quoted-printable text can never hold, so no part can end the message early."""
    seed = hashlib.sha256(repr(fields).encode()).hexdigest()[:24]
    boundary = f"=={seed}=="
    mime: list[tuple[str, Value]] = [
        ("MIME-Version", "1.0"),
        ("Content-Type", f'multipart/alternative; boundary="{boundary}"'),
    ]
    # Each field checked as written (checked); the two MIME fields are ours alone.
    head = b"".join(checked(name, value) for name, value in fields)
    head += b"".join(_field(name, value) for name, value in mime)
    delimiter = f"\r\n--{boundary}\r\n".encode()
    return b"".join(
        (
            head,
            b"\r\n",
            delimiter[2:],
            _part("plain", text),
            delimiter,
            _part("html", html),
            f"\r\n--{boundary}--\r\n".encode(),
        )
    )


# RFC 5322 3.2.3 and 3.4.1: an address as a dot-atom on each side of the @, which a reader
# reads back as written; quoted local parts and domain literals are refused, never sent.
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_ADDRESS = re.compile(rf"{_ATOM}(?:\.{_ATOM})*@{_ATOM}(?:\.{_ATOM})*")
_ENCODED_START = "=?"  # RFC 2047 2: where a reader starts decoding an encoded word


def _plain(name: str, text: str) -> None:
    """Refuse text that a reader would not read as written: a control character (a raw CR
    or LF would end the field or the headers), or, in ASCII text, the start of an encoded
    word (a reader would decode it, to CR LF and a new header as well: CVE-2024-6923). Text
    outside ASCII is written as encoded words whole, and is read back as it is."""
    if _CONTROL.search(text):
        raise UnsafeMessage(f"{name} holds a control character")
    if text.isascii() and _ENCODED_START in text:
        raise UnsafeMessage(f"{name} would read as an encoded word")


@lru_cache(maxsize=2048)
def checked(name: str, value: Value) -> bytes:
    """One header field as written, refused (UnsafeMessage) if a reader's mail program
    could read it otherwise than intended.

    Checked by rule, not by reading it back: a field name of printable ASCII but the colon;
    no control character in the value (so no line of it ends the field, starts another or
    ends the headers); no encoded word a reader would decode in ASCII text; in an address
    field, one mailbox whose address is a dot-atom on each side of its @; no line longer
    than RFC 5322 allows (_field folds at spaces, and refuses a longer word). A mail's
    fields are checked one by one, and the same field (a sender, a recipient) once (cached):
    a field whose every line but the first starts with a space ends where the next starts."""
    if not _FIELD_NAME.fullmatch(name):
        raise UnsafeMessage(f"not a header name: {name!r}")
    if isinstance(value, tuple) or name.lower() in ADDRESS_FIELDS:
        if name.lower() not in ADDRESS_FIELDS:
            raise UnsafeMessage(f"{name} is not an address field")
        display, address = value if isinstance(value, tuple) else ("", value)
        _plain(name, display)
        if not _ADDRESS.fullmatch(address) or _ENCODED_START in address:
            raise UnsafeMessage(f"{name} names no single mailbox")
    else:
        _plain(name, value)
    return _field(name, value)
