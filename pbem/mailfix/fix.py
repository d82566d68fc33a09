"""A player whose mail no longer goes out turns it back on (issue 46): a test mail to the
address they have, or a new address, confirmed by a link mailed to it.

The test mail is the owner's own ask (pbem.bounces.state.OWNER_ASKED): it goes whatever the
state, and asking for it turns the address back to "ok" with no score; if it bounces too,
the sweep scores it again. A new address is confirmed by a link that names the mail which
carried it (that row holds the address, so no address is in a link); opening the link
shows a button, and only pressing it changes Player.email. The old address keeps its row.
Both asks are counted per player, and the confirmation mails per address, so that neither
can be turned into a way of sending mail to anyone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, or_, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from pbem.bounces.state import OK, key
from pbem.errors import PlayError
from pbem.mailout.notify import queue_player_mail
from pbem.models import MailAddress, Outbox, Player, is_computer_email
from pbem.present.forms import EMAIL
from pbem.present.i18n import Moment
from pbem.site import ADDRESS_TTL, BadLink, Site, read_token
from pbem.storage.db import read_session, write_session
from pbem.storage.ratelimit import Limit, record

CONFIRM = "address_confirm"
TEST = "mail_test"
# Per player (keyed "player:<id>"): new addresses asked, and test mails, a day; per address:
# confirmation mails it is sent a day, whoever asks.
ASKS = Limit("mailaddress", 5, 86400)
TESTS = Limit("mailtest", 3, 86400)
TO_ADDRESS = Limit("mailconfirm", 3, 86400)


class Refused(PlayError):
    """An address that cannot be taken: malformed, or the one mail goes to already."""


class Taken(PlayError):
    """Another player has that address (who is not said)."""

    status = 409


class Expired(PlayError):
    """The confirmation link is past its time, or no longer fits the player's address."""

    status = 410


class TooMany(PlayError):
    """Asked too often today."""

    status = 429


@dataclass(frozen=True)
class Change:
    """A new address a confirmation link stands for: its player, the address, and whether
    the player has it already (the button was pressed before)."""

    player: Player
    email: str
    done: bool


def read_address(raw: str) -> str:
    """The address a form gives, in the form addresses are kept; Refused when it is none."""
    email = key(raw)
    if len(email) > 254 or not EMAIL.match(email) or is_computer_email(email):
        raise Refused("mailfix.error.invalid")
    return email


def _taken(session: Session, email: str, player_id: int | None) -> bool:
    """Whether another player has `email`."""
    other = session.exec(select(Player.id).where(Player.email == email)).first()
    return other is not None and other != player_id


def _counted(engine: Engine, limit: Limit, who: str, now: datetime, player_id: int) -> None:
    """Count one ask against `limit`; TooMany past it, saying when its window ends in the
    asking player's time zone."""
    if record(engine, limit, who, now) > limit.count:
        with read_session(engine) as session:
            player = session.get(Player, player_id)
            zone = player.tz if player is not None else "UTC"
        raise TooMany("mailfix.error.too_many", time=Moment(limit.ends(now), zone))


def ask_address(engine: Engine, site: Site, player_id: int, raw: str, now: datetime) -> str:
    """Mail a link confirming `raw` as the player's new address to that address; the address.
    Refused (400) malformed or the same, Taken (409), TooMany (429)."""
    email = read_address(raw)
    with read_session(engine) as session:
        player = session.get(Player, player_id)
        if player is None or is_computer_email(player.email):
            raise Refused("mailfix.error.invalid")
        if email == key(player.email):
            raise Refused("mailfix.error.same")
    # Counted before the other players' addresses are looked at: a few a day, so the
    # refusal below cannot be used to learn who plays here.
    _counted(engine, ASKS, f"player:{player_id}", now, player_id)
    with read_session(engine) as session:
        if _taken(session, email, player_id):
            raise Taken("mailfix.error.taken")
    _counted(engine, TO_ADDRESS, email, now, player_id)
    with write_session(engine) as session:
        player = session.get(Player, player_id)
        assert player is not None
        extra = {"email": email, "from": player.email}
        queue_player_mail(session, site, player, CONFIRM, now, extra)
    return email


def send_test(engine: Engine, site: Site, player_id: int, now: datetime) -> str:
    """Queue a test mail to the player's address and turn its mail back on (state ok, no
    score: a new bounce is scored afresh); the address. TooMany (429) past TESTS."""
    _counted(engine, TESTS, f"player:{player_id}", now, player_id)
    with write_session(engine) as session:
        player = session.get(Player, player_id)
        if player is None or is_computer_email(player.email):
            raise Refused("mailfix.error.invalid")
        queue_player_mail(session, site, player, TEST, now)
        mail_back_on(session, player.email, now)
        return player.email


def mail_back_on(session: Session, address: str, now: datetime) -> None:
    """Turn an address's mail back on, in the caller's transaction: its owner asked (a test
    mail) or showed it receives our mail (a confirmation link opened and pressed)."""
    session.execute(
        update(MailAddress)
        .where(
            col(MailAddress.address) == key(address),
            or_(col(MailAddress.state) != OK, col(MailAddress.score) != 0),
        )
        .values(state=OK, score=0, scored_day="", since=None, updated_at=now)
    )


def read_link(session: Session, site: Site, token: str, now: datetime) -> Change:
    """The change a confirmation link stands for; BadLink for a link we did not make (or
    whose mail or player is gone), Expired or Taken for one that no longer applies."""
    payload = read_token(site.secret, "address", token)
    if len(payload) != 2 or not all(_an_id(x) for x in payload):
        raise BadLink("payload")
    mail = session.get(Outbox, payload[0])
    if mail is None or mail.event != CONFIRM or mail.player_id != payload[1]:
        raise BadLink("no such mail")
    player = session.get(Player, payload[1])
    if player is None:
        raise BadLink("no such player")
    facts: dict[str, Any] = (mail.extra or {}).get("extra", {})
    email, before = str(facts.get("email", "")), str(facts.get("from", ""))
    if email and key(player.email) == email:
        return Change(player, email, done=True)
    # A mail kept past retention has lost its facts: said expired, as it is by then.
    if not email or mail.created_at + ADDRESS_TTL <= now:
        raise Expired("mailfix.error.expired", days=ADDRESS_TTL.days)
    if key(player.email) != key(before):
        raise Expired("mailfix.error.stale")
    if _taken(session, email, player.id):
        raise Taken("mailfix.error.taken")
    return Change(player, email, done=False)


def _an_id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def confirm(engine: Engine, site: Site, token: str, now: datetime) -> Change:
    """Make the link's address the player's (the button was pressed): the change. As
    read_link refuses; a second press finds it done."""
    try:
        with write_session(engine) as session:
            change = read_link(session, site, token, now)
            if change.done:
                return change
            player = change.player
            player.email = change.email
            session.add(player)
            session.flush()  # another player taking it meanwhile fails here
            # The link reached the address: if it bounced once, it no longer does.
            mail_back_on(session, change.email, now)
    except IntegrityError:
        raise Taken("mailfix.error.taken") from None
    return Change(player, change.email, done=False)
