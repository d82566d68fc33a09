"""DKIM: pbem signs the mail it hands to SMTP when PBEM_DKIM_SELECTOR and PBEM_DKIM_KEY_FILE
are set (the key is read and checked by pbem.mailout.dkimkey), and says which DNS record
publishes the key.

Relaxed canonicalization for headers and body (RFC 6376 3.4): a relay may refold a header
or change trailing white space without breaking the signature."""

from __future__ import annotations

import base64
import os
from collections.abc import Callable

import dkim  # type: ignore[import-untyped]
from dkim.crypto import parse_private_key  # type: ignore[import-untyped]
from nacl.signing import SigningKey

from pbem.config import ConfigError, Settings
from pbem.mailout.dkimkey import DkimKey, dkim_key

# The headers pbem writes that a reader relies on, signed when present (RFC 6376 5.4.1);
# List-Unsubscribe and List-Unsubscribe-Post must be signed for one-click (RFC 8058 4).
SIGNED = (
    "from",
    "to",
    "subject",
    "date",
    "message-id",
    "in-reply-to",
    "references",
    "reply-to",
    "list-unsubscribe",
    "list-unsubscribe-post",
    "auto-submitted",
    "mime-version",
    "content-type",
    "content-transfer-encoding",
)
# Signed once more than they appear (RFC 6376 8.15): a second From, Subject or Reply-To
# added on the way, which some readers would show, breaks the signature.
ONCE_MORE = ("from", "to", "subject", "date", "message-id", "reply-to", "in-reply-to")
ALGORITHMS = {"rsa": b"rsa-sha256", "ed25519": b"ed25519-sha256"}
TXT_STRING = 255  # RFC 1035 3.3: the longest character-string of a TXT record
# An RSA public key as DNS publishes it (RFC 6376 3.6.1): SubjectPublicKeyInfo, rsaEncryption.
_RSA_OID = bytes.fromhex("06092a864886f70d010101")


def sign(data: bytes, key: DkimKey) -> bytes:
    """The mail `data` with a DKIM-Signature header in front, over the headers of SIGNED
    present in it (and ONCE_MORE once again) and the whole body."""
    message = dkim.DKIM(data, signature_algorithm=ALGORITHMS[key.algorithm])
    present = {name.lower() for name, _ in message.headers}
    headers = [name for name in SIGNED if name.encode() in present] + list(ONCE_MORE)
    signature: bytes = message.sign(
        key.selector.encode(),
        key.domain.encode(),
        key.private,
        canonicalize=(b"relaxed", b"relaxed"),
        include_headers=[name.encode() for name in headers],
    )
    return signature + data


def public_key(key: DkimKey) -> str:
    """The p= value of the key's DNS record: the public key in base64."""
    if key.algorithm == "ed25519":
        seed = base64.b64decode(key.private)
        return base64.b64encode(_ed25519_public(seed)).decode()
    rsa = parse_private_key(base64.b64decode(b"".join(key.private.splitlines()[1:-1])))
    numbers = _der(0x02, _whole(rsa["modulus"])) + _der(0x02, _whole(rsa["publicExponent"]))
    algorithm = _der(0x30, _RSA_OID + bytes.fromhex("0500"))
    info = _der(0x30, algorithm + _der(0x03, b"\0" + _der(0x30, numbers)))
    return base64.b64encode(info).decode()


def _ed25519_public(seed: bytes) -> bytes:
    """The ed25519 public key of a seed, by PyNaCl, as dkimpy signs with it."""
    return bytes(SigningKey(seed).verify_key)


def _whole(number: int) -> bytes:
    """A non-negative whole number as DER's INTEGER content: big-endian, a leading 0 bit."""
    return number.to_bytes(number.bit_length() // 8 + 1, "big")


def _der(tag: int, content: bytes) -> bytes:
    """One DER element: its tag, its length (short or long form), its content."""
    size = len(content)
    if size < 0x80:
        return bytes((tag, size)) + content
    length = size.to_bytes((size.bit_length() + 7) // 8, "big")
    return bytes((tag, 0x80 | len(length))) + length + content


def record_name(key: DkimKey) -> str:
    """Where the key's TXT record lives: selector._domainkey.domain."""
    return f"{key.selector}._domainkey.{key.domain}"


def record_value(key: DkimKey) -> str:
    """The TXT record's text, as a DNS provider's form takes it."""
    return f"v=DKIM1; k={key.algorithm}; p={public_key(key)}"


def zone_line(key: DkimKey) -> str:
    """The record as a zone file line: the text cut into strings of at most 255 characters,
    which a resolver joins again (RFC 6376 3.6.2.2)."""
    text = record_value(key)
    strings = " ".join(f'"{text[i : i + TXT_STRING]}"' for i in range(0, len(text), TXT_STRING))
    return f"{record_name(key)}. IN TXT ( {strings} )"


def dkim_problems(
    settings: Settings, lookup: Callable[[str], str | None] | None = None
) -> list[str]:
    """What is wrong with pbem's DKIM signing as configured, one sentence each (none when it
    does not sign or all is well); with `lookup` (a name -> its TXT text, or None), the
    record published is compared with the key."""
    try:
        key = dkim_key(settings)
    except ConfigError as exc:
        return [str(exc)]
    if key is None:
        return []
    problems = []
    sender_domain = settings.mail_from.rpartition("@")[2].lower()
    if sender_domain != key.domain and not sender_domain.endswith("." + key.domain):
        # DMARC (RFC 7489 3.1.1) counts a signature whose domain is the From's or a parent.
        problems.append(
            f"PBEM_DKIM_DOMAIN {key.domain} is neither PBEM_MAIL_FROM's domain nor a parent"
            f" of it ({sender_domain}): DMARC will not count the signature."
        )
    if key.algorithm == "rsa" and key.bits < 2048:
        problems.append(f"The DKIM key has {key.bits} bits: make a 2048-bit one.")
    try:
        mode = os.stat(settings.dkim_key_file.strip()).st_mode
    except OSError:
        mode = 0  # read before (the key is read once a process), gone since
    if mode & 0o077:
        problems.append(
            f"PBEM_DKIM_KEY_FILE is readable by others (mode {mode & 0o777:o}): chmod 600 it."
        )
    if lookup is not None:
        published = lookup(record_name(key))
        if published is None:
            problems.append(f"No TXT record at {record_name(key)}: publish `pbem dkim-record`.")
        elif _tags(published).get("p") != public_key(key):
            problems.append(
                f"The TXT record at {record_name(key)} holds another key: publish"
                " `pbem dkim-record`."
            )
    return problems


def _tags(text: str) -> dict[str, str]:
    """A DKIM record's tags (RFC 6376 3.2), white space removed."""
    tags = {}
    for part in text.split(";"):
        name, _, value = part.partition("=")
        tags[name.strip()] = "".join(value.split())
    return tags


def txt_lookup(name: str) -> str | None:
    """The TXT text at `name` by DNS (dkimpy's resolver), or None when there is none."""
    found = dkim.dnsplug.get_txt(name.encode() + b".")
    return found.decode("ascii", "replace") if found else None
