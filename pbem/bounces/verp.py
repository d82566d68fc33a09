"""The bounce address each mail is sent from: `bounce+<outbox id>.<signature>@<reply domain>`.

It is the mail's envelope sender (SMTP's MAIL FROM, so the Return-Path the receiving
server writes), so every bounce and delivery report comes back to it. The address names
the outbox row, and its signature is an HMAC over that id and the address the mail went
to, keyed by itsdangerous's key derivation from the site secret with a salt of its own: a
report to it says which mail, for which address, without a word of its body being
trusted. Only the mail's own recipient sees it (in the Return-Path), and it names only
their address. Everything is lower case, so a mail system that folds case does no harm;
at most 7 + 12 + 1 + 16 = 36 characters before the @, well within the 64 SMTP allows.
Without a reply domain there is no address to come back to: the sender is PBEM_MAIL_FROM.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass

from itsdangerous import Signer
from sqlmodel import Session, select

from pbem.bounces.state import key
from pbem.models import Outbox

PREFIX = "bounce+"
SALT = "pbem.bounce"  # one salt per purpose: a reply address's signature is no bounce's
_LOCAL = re.compile(r"^bounce\+(\d{1,12})\.([a-z2-7]{16})$")


@dataclass(frozen=True)
class BounceAddress:
    """What a bounce address names: the outbox row of the mail, and its signature."""

    outbox_id: int
    signature: str


def _signature(secret: str, outbox_id: int, address: str) -> str:
    derived = Signer(secret, salt=SALT).derive_key()
    message = f"{outbox_id}.{key(address)}".encode()
    digest = hmac.new(derived, message, hashlib.sha256).digest()[:10]
    return base64.b32encode(digest).decode().lower()


def make_address(secret: str, domain: str, outbox_id: int, address: str) -> str:
    """The bounce address of the mail `outbox_id` to `address`."""
    signature = _signature(secret, outbox_id, address)
    return f"{PREFIX}{outbox_id}.{signature}@{domain.lower()}"


def envelope_sender(secret: str, reply_domain: str, row: Outbox, mail_from: str) -> str:
    """The envelope sender of the mail of `row`: its bounce address, or `mail_from` when the
    site has no reply domain."""
    if not reply_domain or row.id is None:
        return mail_from
    return make_address(secret, reply_domain, row.id, row.to_addr)


def parse_address(address: str, domain: str) -> BounceAddress | None:
    """The parts of a bounce address at `domain`, or None when it is not one (unchecked)."""
    local, at, host = address.strip().strip("<>").lower().rpartition("@")
    if not at or not domain or host != domain.lower():
        return None
    match = _LOCAL.match(local)
    return BounceAddress(int(match[1]), match[2]) if match else None


def is_bounce_address(address: str, domain: str) -> bool:
    """Whether `address` looks like a bounce address at `domain` (its local part's prefix)."""
    local, at, host = address.strip().strip("<>").lower().rpartition("@")
    return bool(at) and bool(domain) and host == domain.lower() and local.startswith(PREFIX)


def signature_ok(secret: str, bounce: BounceAddress, address: str) -> bool:
    """Whether the bounce address was signed by us for the mail to `address`."""
    return hmac.compare_digest(_signature(secret, bounce.outbox_id, address), bounce.signature)


@dataclass(frozen=True)
class Mailed:
    """The mail a bounce address names: its outbox row, the address it went to, its game
    and seat (none for a mail of no game)."""

    outbox_id: int
    address: str
    game_id: int | None
    seat: int | None


def mail_of(session: Session, secret: str, bounce: BounceAddress) -> Mailed | None:
    """The mail a bounce address names, if it is still kept and the signature matches the
    address it was sent to; None for a forged address, or one whose mail is gone (stale)."""
    # The few columns needed, not the row: its text is most of it, and RCPT asks this.
    found = session.exec(
        select(Outbox.to_addr, Outbox.game_id, Outbox.seat).where(Outbox.id == bounce.outbox_id)
    ).first()
    if found is None or not found[0] or not signature_ok(secret, bounce, found[0]):
        return None
    return Mailed(bounce.outbox_id, key(found[0]), found[1], found[2])


def described(address: str, domain: str) -> str:
    """What a log line may say of a bounce address: the mail it names, never its signature."""
    bounce = parse_address(address, domain)
    return f"outbox={bounce.outbox_id}" if bounce else "outbox=-"
