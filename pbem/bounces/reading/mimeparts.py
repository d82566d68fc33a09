"""The parts and fields of a report, read within fixed limits: its size and nesting checked
before parsing, its text parts decoded, its header-like fields and addresses taken out."""

from __future__ import annotations

import re
from collections.abc import Iterator
from email import policy
from email.message import Message
from email.parser import HeaderParser
from email.utils import collapse_rfc2231_value, getaddresses
from html import unescape
from itertools import islice

from pbem.bounces.reading.report import MAX_RECIPIENTS

# What any mail pbem inbound takes may hold before it is parsed, replies as reports (issue
# 30: the email package pays for every level and part; pbem.mailin.reading uses these).
MAX_LEVELS = 8
MAX_PARTS = 50
_CONTENT_TYPE = re.compile(rb"^content-type[ \t]*:(.*(?:\n[ \t].*)*)", re.IGNORECASE | re.MULTILINE)
_OPENS_LEVEL = re.compile(rb"(?:multipart|message)/|=\?", re.IGNORECASE)
_DELIMITER = re.compile(rb"^--", re.MULTILINE)
# The email package reads a Content-Type's parameters (the boundary, the charset, the
# report-type) in time quadratic in its length: 20 KB of ";" in quotes took 0.5 s, 256 KB
# would take over a minute. A server writes fewer than 200 characters.
CONTENT_TYPE_MAX = 1000

LINE_WIDTH = 400  # characters of a line of text read for a reason
FIELD_MAX = 1000  # characters of an address field parsed
HTML_MAX = 20000  # characters of an HTML part read (for its first lines)
HEADERS_MAX = 65536  # characters of a returned message's headers parsed
RETURNED = ("message/rfc822", "text/rfc822-headers")  # the mail reported on, returned

Block = list[tuple[str, str]]  # a group of header-like fields, names lower-cased


def too_complex(raw: bytes) -> bool:
    """Whether the mail has more MIME levels or parts than `pbem inbound` reads, or a
    Content-Type longer than CONTENT_TYPE_MAX, read before parsing."""
    text = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")  # the parser ends lines at either
    if sum(1 for _ in islice(_DELIMITER.finditer(text), MAX_PARTS + 1)) > MAX_PARTS:
        return True
    levels = 0
    for match in _CONTENT_TYPE.finditer(text):
        if len(match[1]) > CONTENT_TYPE_MAX:
            return True
        levels += bool(_OPENS_LEVEL.search(match[1]))
        if levels > MAX_LEVELS:
            return True
    return False


def parts(message: Message, depth: int = 0) -> Iterator[Message]:
    """The leaves of a mail and its message/* parts, not what is inside those."""
    payload = message.get_payload()
    if message.get_content_maintype() == "message" or not isinstance(payload, list):
        yield message
        return
    for sub in payload:
        if isinstance(sub, Message) and depth < MAX_LEVELS:
            yield from parts(sub, depth + 1)


def human_text(message: Message) -> str:
    """The report's human-readable part as text (the first plain part, else HTML)."""
    for wanted in ("text/plain", "text/html"):
        for part in parts(message):
            if part.get_content_type() == wanted:
                text = decoded(part)
                return html_text(text) if wanted == "text/html" else text
    return ""


def decoded(part: Message) -> str:
    """A leaf part's text, decoded by its transfer encoding and charset."""
    try:
        data = part.get_payload(decode=True)
    except Exception:  # a header so odd the email package fails on it
        return ""
    if not isinstance(data, bytes):
        return ""
    try:
        return data.decode(part.get_content_charset() or "utf-8", "replace")
    except (LookupError, ValueError):  # an unknown charset, or a codec that is no charset
        return data.decode("utf-8", "replace")


def lines(text: str, limit: int, width: int = LINE_WIDTH) -> list[str]:
    """The first `limit` lines of a text, each cut to `width` characters."""
    found: list[str] = []
    for line in text.splitlines():
        if len(found) >= limit:
            break
        found.append(line[:width])
    return found


_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]{0,9})?[^<>]*>")
_HIDDEN = ("style", "script", "head", "title")
_BLOCKS = ("p", "div", "br", "li", "tr", "table", "h1", "h2", "h3")


def html_text(html: str) -> str:
    """An HTML part as plain lines (its first HTML_MAX characters), styles and scripts
    left out. A scan in one pass: html.parser takes quadratic time on some markup
    ("<a<a<a..."), and this text comes from anyone."""
    html = html[:HTML_MAX]
    lowered = html.lower()
    out: list[str] = []
    pos = 0
    while (tag := _TAG.search(html, pos)) is not None:
        out.append(html[pos : tag.start()])
        name = (tag[2] or "").lower()
        pos = tag.end()
        if name in _HIDDEN and not tag[1]:
            end = lowered.find(f"</{name}", pos)
            pos = len(html) if end < 0 else end
        elif name in _BLOCKS:
            out.append("\n")
    out.append(html[pos:])
    return unescape("".join(out))


def returned_headers(part: Message) -> Message | None:
    """The headers of the returned message (message/rfc822 or text/rfc822-headers)."""
    payload = part.get_payload()
    if isinstance(payload, list) and payload and isinstance(payload[0], Message):
        return payload[0]
    if isinstance(payload, str):
        parser = HeaderParser(policy=policy.compat32)
        return parser.parsestr(payload[:HEADERS_MAX], headersonly=True)
    return None


def field_blocks(part: Message) -> list[Block]:
    """The field groups of a message/delivery-status or message/feedback-report part that
    name a recipient or a feedback type. The email package parses a delivery-status into
    header blocks and a feedback-report into one message; a text/* one is split here."""
    if part.get_content_type() not in (
        "message/delivery-status",
        "text/delivery-status",
        "message/feedback-report",
    ):
        return []
    payload = part.get_payload()
    if isinstance(payload, list):
        blocks = [
            [(k.lower(), str(v)) for k, v in block.items()]
            for block in payload
            if isinstance(block, Message)
        ]
    elif isinstance(payload, str):
        blocks = [_fields(chunk) for chunk in re.split(r"\r?\n[ \t]*\r?\n", payload)]
    else:
        blocks = []
    keys = ("final-recipient", "original-recipient", "action", "feedback-type")
    return [block for block in blocks if any(get(block, key) for key in keys)]


def _fields(chunk: str) -> Block:
    """Header-like lines (with folded continuations) as (lower-cased name, value) pairs."""
    fields: Block = []
    for line in chunk.splitlines():
        if line[:1] in (" ", "\t") and fields:
            name, value = fields[-1]
            fields[-1] = (name, value + " " + line.strip())
        elif ":" in line:
            name, _, value = line.partition(":")
            fields.append((name.strip().lower(), value.strip()))
    return fields


def get(block: Block, name: str) -> str:
    """The first value of a field ('' when absent)."""
    return next((value for key, value in block if key == name), "")


def get_all(block: Block, name: str) -> list[str]:
    """Every value of a field."""
    return [value for key, value in block if key == name]


def param(message: Message, name: str) -> str:
    """A Content-Type parameter, lower-cased ('' when absent)."""
    value = message.get_param(name, "", header="content-type")
    return str(collapse_rfc2231_value(value)).strip().lower()


def address(field: str, lower: bool = True) -> str:
    """The address of an `rfc822; a@b` field or a `<a@b>` path, lower-cased unless told not
    to (a bounce address's signature is case-sensitive); '' when there is none."""
    value = field.partition(";")[2] if ";" in field else field
    value = " ".join(value.split()).strip("<> ")
    if "@" not in value or " " in value or len(value) > 254:
        return ""
    return value.lower() if lower else value


def addresses(fields: list[str]) -> frozenset[str]:
    """The addresses of address fields (From, To, Original-Rcpt-To), lower-cased."""
    found: set[str] = set()
    for field in fields[:MAX_RECIPIENTS]:
        for _name, value in getaddresses([field[:FIELD_MAX]]):
            if "@" in value and len(found) < MAX_RECIPIENTS:
                found.add(value.lower())
    return frozenset(found)
