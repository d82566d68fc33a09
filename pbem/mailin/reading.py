"""Reading a reply: is it an automatic mail, who sent it, and which lines may hold the move.

Nothing here touches the database; every function takes the parsed message.
"""

from __future__ import annotations

import re
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from html.parser import HTMLParser

from pbem.bounces.reading import mimeparts

MAX_LINES = 8  # the move must be within the first lines of the answer
# Lines where the quoted mail or the signature begins, in common clients, English and French.
_CUT = re.compile(
    r"^(--\s*|_{5,}|-{5,}.*|-+ ?original message ?-+|-+ ?message d'origine ?-+"
    r"|on .{0,200} wrote:?|le .{0,200} a écrit ?:?|.{0,80}<[^>]+@[^>]+> a écrit ?:?"
    r"|from: .*|de ?: .*|sent from my .*|envoyé de mon .*|envoyé depuis .*|get outlook for .*)$",
    re.IGNORECASE,
)
_AUTO_SUBJECT = re.compile(
    r"^(auto(matic)? ?(reply|response)|out of (the )?office|absence|réponse automatique"
    r"|absent|undeliverable|delivery status notification|mail delivery failed|non remis)\b",
    re.IGNORECASE,
)
_BOUNCE_SENDERS = re.compile(r"^(mailer-daemon|postmaster|noreply|no-reply)@", re.IGNORECASE)
_ANGLES = re.compile(r"<([^<>]*)>")


# Parse cost (issue 30): every mail is checked by pbem.bounces.reading.mimeparts.too_complex
# before it is parsed, replies as bounces: its MIME levels and parts, and the length of each
# Content-Type (the email package reads its parameters in time quadratic in its length).
too_complex = mimeparts.too_complex


class Malformed(ValueError):
    """A message that cannot be read as mail."""


def parse(raw: bytes) -> EmailMessage:
    """The message; Malformed when it has no headers worth the name."""
    try:
        msg = BytesParser(policy=policy.default).parsebytes(raw)
    except Exception as exc:  # the parser is lenient; anything it raises means garbage
        raise Malformed(str(exc)) from None
    if not msg.keys() or msg.get("From") is None:
        raise Malformed("no From header")
    return msg


def header(msg: EmailMessage, name: str) -> str:
    """A header's value as text ('' when absent or unreadable)."""
    try:
        value = msg.get(name)
    except Exception:  # a header so broken that its parser fails
        return ""
    return str(value or "").strip()


def sender(msg: EmailMessage) -> str | None:
    """The one From address, lower case; None when the From is malformed or ambiguous.

    `policy.default` reads `victim@x <mallory@y>` as victim, noting a defect nobody looked
    at (issue 30). So a From is read only when it is one field holding one mailbox, no group,
    with no defect, whose address is written out in it as read (not decoded from an encoded
    word), and whose angle brackets, if any, hold that same address and nothing else does.
    """
    fields = [str(value) for name, value in msg.raw_items() if name.lower() == "from"]
    if len(fields) != 1:
        return None
    try:
        # Header bytes are UTF-8 (RFC 6532): read a raw UTF-8 display name as text, not
        # as the undecodable bytes the parser would flag as a defect.
        text = "".join(fields[0].encode("utf-8", "surrogateescape").decode().splitlines())
        field = policy.default.header_factory("From", text)
        groups = field.groups
        defects = field.defects
    except Exception:  # undecodable bytes, or a value the header parser gives up on
        return None
    if defects or len(groups) != 1 or groups[0].display_name is not None:
        return None
    if len(groups[0].addresses) != 1:
        return None
    mailbox = groups[0].addresses[0]
    if not mailbox.username or not mailbox.domain:
        return None
    address = f"{mailbox.username}@{mailbox.domain}".lower()
    written = text.lower()
    angles = _ANGLES.findall(written)
    if len(angles) > 1 or written.count("<") != len(angles) or written.count(">") != len(angles):
        return None
    if angles and angles[0].strip() != address:
        return None
    if address not in written:
        return None
    return address


def automatic(msg: EmailMessage, envelope_from: str, own_domains: set[str]) -> str | None:
    """Why this mail was sent by a machine (never to be answered), or None for a person's mail.

    RFC 3834 (Auto-Submitted), the headers out-of-office programs add, bounces (empty
    return path, MAILER-DAEMON, multipart/report), mailing lists, and our own mail coming back.
    """
    auto = header(msg, "Auto-Submitted").lower()
    if auto and auto != "no":
        return "auto_submitted"
    for name in ("X-Autoreply", "X-Autorespond", "X-Auto-Response-Suppress", "X-Autoreply-From"):
        if header(msg, name):
            return "autoreply"
    if header(msg, "Precedence").lower() in ("bulk", "list", "junk", "auto_reply"):
        return "precedence"
    if envelope_from.strip("<> ") == "":
        return "bounce"
    from_addr = sender(msg) or ""
    if _BOUNCE_SENDERS.match(envelope_from.strip("<> ")) or _BOUNCE_SENDERS.match(from_addr):
        return "bounce"
    if msg.get_content_type() == "multipart/report":
        return "bounce"
    if header(msg, "List-Id") or header(msg, "List-Post"):
        return "list"
    message_id = header(msg, "Message-ID").strip("<>").lower()
    if message_id.rpartition("@")[2] in own_domains:
        return "loop"
    if from_addr.rpartition("@")[2] in own_domains:
        return "loop"
    if _AUTO_SUBJECT.match(header(msg, "Subject")):
        return "autoreply"
    return None


class _Text(HTMLParser):
    """The text of an HTML part, one line per block, quoted blocks left out."""

    BLOCKS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "table"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("blockquote", "style", "script", "head"):
            self.skip += 1
        if tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("blockquote", "style", "script", "head") and self.skip:
            self.skip -= 1
        if tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    """An HTML body as plain lines."""
    parser = _Text()
    try:
        parser.feed(html)
        parser.close()
    except Exception:  # broken markup: what was read so far is all there is
        pass
    return "".join(parser.parts)


def body_text(msg: EmailMessage) -> str:
    """The text the person wrote: the plain part, else the HTML part as text."""
    try:
        part = msg.get_body(preferencelist=("plain", "html"))
        if part is None:
            return ""
        content = part.get_content()
    except Exception:  # an unknown charset or a broken transfer encoding
        return ""
    if not isinstance(content, str):
        return ""
    if part.get_content_type() == "text/html":
        return html_to_text(content)
    return content


def move_lines(text: str) -> list[str]:
    """The first lines written above the quoted mail and the signature."""
    lines: list[str] = []
    for raw in text.replace("\r\n", "\n").split("\n"):
        line = raw.strip().replace("\u00a0", " ")
        if line.startswith(">"):
            break
        if _CUT.match(line):
            break
        if not line:
            continue
        lines.append(line[:300])
        if len(lines) >= MAX_LINES:
            break
    return lines
