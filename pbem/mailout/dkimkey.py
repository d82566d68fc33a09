"""The DKIM key pbem signs its mail with: PBEM_DKIM_SELECTOR, PBEM_DKIM_KEY_FILE and
PBEM_DKIM_DOMAIN read and checked (pbem.app checks them at every process's start, so a bad
key stops it with the reason, never with the key's text)."""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from dkim.crypto import UnparsableKeyError, parse_private_key  # type: ignore[import-untyped]

from pbem.config import ConfigError, Settings

# RFC 6376 3.1: a selector, like the signing domain, is dot-separated DNS labels.
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_DNS_NAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")
_PEM = re.compile(rb"-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \1-----", re.S)
# RFC 8410 7: an ed25519 private key in PKCS#8 is these bytes, then the key's 32-byte seed.
_ED25519_PKCS8 = bytes.fromhex("302e020100300506032b657004220420")
RSA_LEAST_BITS = 1024  # RFC 8301 3.2: verifiers refuse a shorter RSA key
NEW_KEY = "openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out dkim.pem"


@dataclass(frozen=True)
class DkimKey:
    """What pbem signs its mail with: selector, signing domain, algorithm and private key."""

    selector: str
    domain: str
    algorithm: str  # rsa or ed25519, the record's k= tag
    bits: int
    # As dkimpy takes it: RSA in PEM, ed25519 its seed in base64. Never shown (repr=False).
    private: bytes = field(repr=False)


def dkim_key(settings: Settings) -> DkimKey | None:
    """The DKIM key the settings name, read and checked; None when pbem does not sign.

    ConfigError names the setting and what is wrong with it, never the key's text."""
    selector = settings.dkim_selector.strip()
    path = settings.dkim_key_file.strip()
    if not selector and not path:
        return None
    if not selector or not path:
        raise ConfigError(
            "Set both PBEM_DKIM_SELECTOR and PBEM_DKIM_KEY_FILE for pbem to sign its mail"
            " with DKIM, or neither."
        )
    if not _DNS_NAME.fullmatch(selector):
        raise ConfigError(
            "PBEM_DKIM_SELECTOR must be letters, digits and hyphens (as pbem2026), parts"
            f" separated by dots, not {selector!r}."
        )
    algorithm, bits, private = _read_key(path)
    return DkimKey(selector, dkim_domain(settings), algorithm, bits, private)


def dkim_domain(settings: Settings) -> str:
    """The DKIM signing domain (d=): PBEM_DKIM_DOMAIN, else PBEM_MAIL_FROM's domain."""
    raw = settings.dkim_domain.strip() or settings.mail_from.rpartition("@")[2]
    try:
        domain = raw.rstrip(".").encode("idna").decode("ascii").lower()
    except UnicodeError:
        domain = ""
    if "." not in domain or not _DNS_NAME.fullmatch(domain):
        raise ConfigError(
            f"PBEM_DKIM_DOMAIN (by default PBEM_MAIL_FROM's domain) must be a domain name, not"
            f" {raw!r}."
        )
    return domain


@lru_cache(maxsize=8)
def _read_key(path: str) -> tuple[str, int, bytes]:
    """(algorithm, bits, key as dkimpy takes it) of a PEM file. Read once a process: a new
    key takes a restart, and a running sender does not stop if the file goes."""
    where = f"PBEM_DKIM_KEY_FILE ({path})"
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError(f"{where} cannot be read: {exc.strerror}.") from None
    pem = _PEM.search(data)
    if pem is None:
        raise ConfigError(f"{where} holds no PEM private key; make one with: {NEW_KEY}")
    label = pem.group(1).decode()
    if label not in ("PRIVATE KEY", "RSA PRIVATE KEY"):
        raise ConfigError(f"{where} holds a {label}, not an unencrypted private key.")
    try:
        der = base64.b64decode(b"".join(pem.group(2).split()), validate=True)
    except binascii.Error:
        raise ConfigError(f"{where}: its PEM block is not base64.") from None
    if der.startswith(_ED25519_PKCS8) and len(der) == len(_ED25519_PKCS8) + 32:
        return "ed25519", 256, base64.b64encode(der[len(_ED25519_PKCS8) :])
    try:
        rsa = parse_private_key(der)
    except (UnparsableKeyError, ValueError, AssertionError, IndexError, TypeError):
        raise ConfigError(f"{where} is neither an RSA nor an ed25519 private key.") from None
    bits = rsa["modulus"].bit_length()
    if bits < RSA_LEAST_BITS:
        raise ConfigError(f"{where} is a {bits}-bit RSA key: receivers want 2048 bits.")
    p, q, e = rsa["prime1"], rsa["prime2"], rsa["publicExponent"]
    # dkimpy signs through the Chinese remainder theorem: each part must agree.
    if (
        p * q != rsa["modulus"]
        or e * rsa["exponent1"] % (p - 1) != 1
        or e * rsa["exponent2"] % (q - 1) != 1
        or rsa["coefficient"] * q % p != 1
    ):
        raise ConfigError(f"{where}: its numbers do not make an RSA key (a damaged file?).")
    body = base64.encodebytes(der)
    return "rsa", bits, b"-----BEGIN PRIVATE KEY-----\n" + body + b"-----END PRIVATE KEY-----\n"
