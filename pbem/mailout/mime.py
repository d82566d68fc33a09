"""A mail's bytes, written directly, and the check that they read back as they were meant.

Every mail pbem sends has one shape: a dozen headers, then a plain text part and an HTML
part, both UTF-8 in quoted-printable, so the whole is seven-bit and needs no SMTP
extension. Written here in one pass; the email package's way (each header an object,
parsed when set, folded and parsed back for the check, folded again to be written) was
most of the CPU a mail cost the sender. The check still reads the written headers back
with the email package, as a reader's mail program would, and refuses any difference.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass
from email import policy
from email.headerregistry import BaseHeader, HeaderRegistry
from email.parser import BytesHeaderParser
from email.utils import formataddr
from functools import lru_cache
from typing import Any

LINE_LIMIT = 998  # RFC 5322 2.1.1: no line longer, CR LF apart
WORD_BYTES = 45  # RFC 2047 2: an encoded word of at most 75 (10 + 60 + 2 characters)
ADDRESS_FIELDS = frozenset({"from", "to", "reply-to"})
_FIELD_NAME = re.compile(r"[!-9;-~]+")  # RFC 5322 3.6.8: printable ASCII but the colon
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")


class _Registry(HeaderRegistry):
    """The standard header classes, each made once: the standard registry makes a new class
    for every header it reads."""

    def __init__(self) -> None:
        super().__init__()
        self._made: dict[str, type[BaseHeader]] = {}

    def __getitem__(self, name: str) -> type[BaseHeader]:
        key = name.lower()
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = super().__getitem__(name)
        return made


# Read as policy.default reads a received mail, with the registry above.
_PARSER = BytesHeaderParser(policy=policy.default.clone(header_factory=_Registry()))


class UnsafeMessage(ValueError):
    """The message, once written, does not read back to the headers it was built with."""


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


def _words(value: Any) -> str:
    return " ".join(str(value).split())


# A field that must still be read as a field of its own after the one checked: the reader
# ends a field at the next line that starts with a name, and the headers at an empty line.
_NEXT = b"X-Next: 1\r\n"


@lru_cache(maxsize=2048)
def checked(name: str, value: Value) -> bytes:
    """One header field as written, refused (UnsafeMessage) if a reader's mail program
    would read it otherwise than intended.

    Read back as the email package reads a received mail, before one more field: the field
    must read as itself, with the same text (white space aside), an address field with the
    same name and address, and no control character once encoded words are decoded; the
    field after it must read as a field. A mail's fields are checked one by one, and the
    same field (a sender, a recipient, a subject) is read back once (cached): a field's
    lines end where the next field's name starts, so fields that each pass this check read
    back as themselves when written one after the other."""
    written = _field(name, value)
    back = _PARSER.parsebytes(written + _NEXT + b"\r\n").items()
    names = [field.lower() for field, _ in back]
    if names != [name.lower(), "x-next"]:
        raise UnsafeMessage(f"headers change when written: {name} reads as {names}")
    read = back[0][1]
    if _CONTROL.search(str(read)):
        raise UnsafeMessage(f"{name} holds a control character once read")
    if name.lower() in ADDRESS_FIELDS:
        mailbox = value if isinstance(value, tuple) else ("", str(value))
        got = [(_words(a.display_name), a.addr_spec) for a in read.addresses]
        if got != [(_words(mailbox[0]), mailbox[1])]:
            raise UnsafeMessage(f"{name} names another mailbox once read")
    elif _words(read) != _words(value):
        raise UnsafeMessage(f"{name} reads otherwise once written")
    return written
