"""The Site (signing key, public URL, mail templates, domains) and its signed links: one salt
per purpose, nothing secret inside, revocable per seat.

A token carries only ids and the seat's current link key; rotating that key
(a new random value in the Seat row) makes every older link of the seat fail.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, Protocol

from itsdangerous import BadSignature, URLSafeSerializer
from jinja2 import Environment
from sqlmodel import Session

from pbem.models import Game, Outbox, Player, Seat

PURPOSES = ("seat", "watch", "unsubscribe", "created", "signin", "league", "address", "report")
# How long the link that confirms a new address works (pbem.mailfix.fix).
ADDRESS_TTL = timedelta(days=3)


class BadLink(Exception):
    """The link is tampered, truncated, for another purpose, or revoked."""


def new_key() -> str:
    """A fresh random key for a seat or a game's spectator link."""
    return secrets.token_urlsafe(12)


@lru_cache(maxsize=64)
def _serializer(secret: str, purpose: str) -> URLSafeSerializer:
    # Built once per (secret, purpose): itsdangerous derives its key on construction.
    if purpose not in PURPOSES:
        raise ValueError(f"unknown link purpose {purpose}")
    return URLSafeSerializer(secret, salt=f"pbem.{purpose}")


def make_token(secret: str, purpose: str, payload: list[Any]) -> str:
    """Sign `payload` (a short list of ids and a key) for `purpose`."""
    if _plain(payload):
        return _signed(secret, purpose, tuple(payload))
    return _serializer(secret, purpose).dumps(payload)


def _plain(payload: Any) -> bool:
    """Whether `payload` is a list of ints and strings only (no bool: True == 1), so that
    equal tuples of it always sign alike."""
    return isinstance(payload, list) and all(type(x) in (int, str) for x in payload)


@lru_cache(maxsize=8192)
def _signed(secret: str, purpose: str, payload: tuple[int | str, ...]) -> str:
    # The signature has no timestamp: the same payload always gives the same token, and a
    # page, a mail or a link check signs the same seat's payload again and again.
    return _serializer(secret, purpose).dumps(list(payload))


def read_token(secret: str, purpose: str, token: str) -> list[Any]:
    """The payload of a token signed for `purpose`; BadLink otherwise.

    Only the spelling we issue is accepted: base64 ignores the unused low bits of a last
    character, so other spellings would verify too and one link would have several names.
    """
    return list(_read(secret, purpose, token))


@lru_cache(maxsize=8192)
def _read(secret: str, purpose: str, token: str) -> tuple[Any, ...]:
    # Kept per token once verified (a refused one raises, and is not kept): a player's
    # link is read on every page, move and poll of theirs.
    serializer = _serializer(secret, purpose)
    try:
        payload = serializer.loads(token)
    except (BadSignature, UnicodeError, ValueError) as exc:
        raise BadLink(str(exc)) from None
    if not isinstance(payload, list) or not payload:
        raise BadLink("payload is not a list")
    canonical = make_token(secret, purpose, payload)
    if not hmac.compare_digest(canonical.encode(), token.encode()):
        raise BadLink("not the canonical spelling of the token")
    return tuple(payload)


def seat_claim(secret: str, token: str) -> tuple[int, int, str]:
    """(game id, seat number, link key) of a well-signed seat link; BadLink otherwise. The
    key is still to be checked against the seat's (a rotated key revokes older links)."""
    payload = read_token(secret, "seat", token)
    if len(payload) != 3 or not all(isinstance(x, int) for x in payload[:2]):
        raise BadLink("not a seat's payload")
    if not isinstance(payload[2], str):
        raise BadLink("not a seat's payload")
    return payload[0], payload[1], payload[2]


def watch_claim(secret: str, token: str) -> tuple[int, str]:
    """(game id, watch key) of a well-signed spectator link; BadLink otherwise."""
    payload = read_token(secret, "watch", token)
    if len(payload) != 2 or not isinstance(payload[0], int) or not isinstance(payload[1], str):
        raise BadLink("not a spectator's payload")
    return payload[0], payload[1]


@dataclass(frozen=True)
class MailTemplates:
    """The mail/ templates twice over: text parts as written, HTML parts escaped.

    Escaping follows the output, not the file name: an HTML part escapes what it takes
    from a .txt template it includes (the headline), which a player's name can reach.
    """

    text: Environment
    html: Environment


class Mailing(Protocol):
    """The mail asked for below mailout/ (players/, webhooks/): an outbox row written in the
    caller's session, so it commits with what caused it. pbem.mailout.notify.OutboxMail is
    the one kind; a Site carries it so that players/ and webhooks/ need not import mailout/."""

    def player_mail(
        self,
        session: Session,
        site: Site,
        player: Player,
        event: str,
        now: datetime,
        extra: dict[str, Any] | None = None,
    ) -> Outbox | None:
        """A mail about the player rather than one game; none to a computer."""

    def operator_mail(
        self, session: Session, site: Site, event: str, now: datetime, extra: dict[str, Any]
    ) -> Outbox:
        """A mail to the operator (PBEM_OPERATOR_EMAIL), no player's."""


@dataclass
class Site:
    """What play needs to know of the site: the key that signs links and the public URL."""

    secret: str
    base_url: str
    mail_templates: MailTemplates  # mail/, text and HTML
    mail: Mailing  # the mail players/ and webhooks/ queue (pbem.mailout.notify.OutboxMail)
    domain: str = "pbem.local"  # of Message-IDs and new games' threads (PBEM_THREAD_DOMAIN)
    reply_domain: str = ""  # where replies to turn mails go (pbem inbound); empty: none
    # How long a "your move" mail waits while the player looks at the page (TURN_MAIL_DELAY).
    turn_mail_delay: timedelta = timedelta(minutes=5)
    operator_email: str = ""  # where reports go (PBEM_OPERATOR_EMAIL); empty: none taken

    def seat_url(self, seat: Seat) -> str:
        """The seat's own link."""
        token = make_token(self.secret, "seat", [seat.game_id, seat.seat, seat.link_key])
        return f"{self.base_url.rstrip('/')}/p/{token}"

    def watch_url(self, game: Game) -> str:
        """The game's spectator link."""
        token = make_token(self.secret, "watch", [game.id, game.watch_key])
        return f"{self.base_url.rstrip('/')}/w/{token}"

    def rules_url(self, slug: str) -> str:
        """The public page with a game's rules."""
        return f"{self.base_url.rstrip('/')}/rules/{slug}"

    def unsubscribe_url(self, player: Player) -> str:
        """The player's one-click unsubscribe link (RFC 8058)."""
        token = make_token(self.secret, "unsubscribe", [player.id, player.unsubscribe_key])
        return f"{self.base_url.rstrip('/')}/u/{token}"

    def address_url(self, outbox_id: int, player_id: int) -> str:
        """The link that confirms a new address: it names the mail that carried it (which
        holds the address) and its player, and works for ADDRESS_TTL."""
        token = make_token(self.secret, "address", [outbox_id, player_id])
        return f"{self.base_url.rstrip('/')}/address/{token}"

    def report_url(self, report_id: int) -> str:
        """The operator's link to a report and its context (the page or talk it names)."""
        token = make_token(self.secret, "report", [report_id])
        return f"{self.base_url.rstrip('/')}/reports/{token}"
