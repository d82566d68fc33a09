"""Reply addresses: `play+<game>.<seat>.<turn>.<signature>@<reply domain>`.

The signature is an HMAC keyed by itsdangerous's key derivation from the site secret
with its own salt, over the ids, the turn and the seat's current link key: a forged
or altered address fails, and rotating a seat's link key revokes its reply addresses
with its links. Everything is lower case, so a mail system that folds case does no harm.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass

from itsdangerous import Signer

PREFIX = "play+"
SALT = "pbem.reply"
_TURN = re.compile(r"[^a-z0-9-]+")
_LOCAL = re.compile(r"^play\+(\d{1,12})\.(\d{1,2})\.([a-z0-9-]{1,40})\.([a-z2-7]{16})$")


@dataclass(frozen=True)
class ReplyAddress:
    """What a reply address names: game, seat, turn and its signature."""

    game_id: int
    seat: int
    turn: str
    signature: str


def fold_turn(turn: str) -> str:
    """A turn token as it stands in an address."""
    return _TURN.sub("-", turn.lower())[:40] or "0"


def _signature(secret: str, game_id: int, seat: int, turn: str, link_key: str) -> str:
    key = Signer(secret, salt=SALT).derive_key()
    message = f"{game_id}.{seat}.{turn}.{link_key}".encode()
    digest = hmac.new(key, message, hashlib.sha256).digest()[:10]
    return base64.b32encode(digest).decode().lower()


def make_address(
    secret: str, domain: str, game_id: int, seat: int, turn: str, link_key: str
) -> str:
    """The reply address of one seat for one turn."""
    folded = fold_turn(turn)
    signature = _signature(secret, game_id, seat, folded, link_key)
    return f"{PREFIX}{game_id}.{seat}.{folded}.{signature}@{domain.lower()}"


def parse_address(address: str, domain: str) -> ReplyAddress | None:
    """The parts of a reply address at `domain`, or None when it is not one (unsigned yet)."""
    local, at, host = address.strip().strip("<>").lower().rpartition("@")
    if not at or host != domain.lower():
        return None
    match = _LOCAL.match(local)
    if match is None:
        return None
    return ReplyAddress(int(match[1]), int(match[2]), match[3], match[4])


def signature_ok(secret: str, reply: ReplyAddress, link_key: str) -> bool:
    """Whether the address was signed by us for this seat's current link key."""
    expected = _signature(secret, reply.game_id, reply.seat, reply.turn, link_key)
    return hmac.compare_digest(expected, reply.signature)


def described(address: str, domain: str) -> str:
    """What a log line may say of an address: the game and seat it names, never its signature."""
    reply = parse_address(address, domain) if domain else None
    return f"game={reply.game_id} seat={reply.seat}" if reply else "game=- seat=-"
