"""Sign in by mail, with no password: a link good once and for a while, and the session it opens.

A session is the player's id and their session generation, kept in the device's cookie;
it signs in only while the generation is still the player's, and signing out raises it.

A link names the mail that carried it and its reader, signed: a game mail's settings link,
and the link of a sign-in mail. Its SignIn row is made when it is first used, once (a
unique index on the mail), so sending a mail writes nothing for it; the row then says the
link was used and until when it held, so a link opened twice or too late says which.

An ask on /signin records only the address asked (pbem.mailout.notify.queue_signin): the sender
finds the player when it makes the mail, so the request does the same work whether or not
the address plays here, and the page cannot tell. (A link asked for before that named a
SignIn row written at the ask, with its random nonce: read until it expires.)
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import delete, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from pbem.models import Outbox, Player, Seat, SignIn, is_computer_email
from pbem.site import BadLink, Site, make_token, new_key, read_token
from pbem.storage.store import find_seat, id_of

ASKED_TTL = timedelta(hours=1)  # a link asked for on /signin
MAILED_TTL = timedelta(days=30)  # the settings link in a game's mail
SESSION_DAYS = 90  # how long a device stays signed in
# How long a row is kept past its expiry, so that a late press still says "expired"; after
# that the sweep drops it (a mailed link's row would be made again, expired: it still says so).
KEPT_AFTER_EXPIRY = timedelta(days=30)
MAILED = "mail"  # the first item of a mail's sign-in link


class Used(Exception):
    """The link was already used to sign in."""


class Expired(Exception):
    """The link is past its time."""


def settings_path(site: Site, seat: Seat) -> str:
    """Where a game mail's settings link leads once it has signed the player in."""
    return urlsplit(site.seat_url(seat)).path + "/settings"


def mailed_url(site: Site, outbox_id: int, player_id: int) -> str:
    """A mail's sign-in link: it names the mail and its reader, and signs them in on that
    device once (within MAILED_TTL of a game mail, ASKED_TTL of an ask); no row exists
    until it is used."""
    token = make_token(site.secret, "signin", [MAILED, outbox_id, player_id])
    return f"{site.base_url.rstrip('/')}/signin/{token}"


def asker(session: Session, address: str) -> Player | None:
    """The player a sign-in mail asked for `address` goes to, if any (a computer is refused
    after: render_row mails none, and check signs none in)."""
    return session.exec(select(Player).where(Player.email == address)).first()


def signs_in(player: Player | None) -> bool:
    """Whether a link or a session may sign this player in: a person, never a computer (its
    /me would hand out the seat links, and so the hands, of every computer of its level)."""
    return player is not None and not is_computer_email(player.email)


def asked_mail(site: Site, outbox_id: int, player: Player) -> dict[str, Any]:
    """What a sign-in mail says, made by the sender: its link, and for how many minutes."""
    return {
        "signin_link": mailed_url(site, outbox_id, id_of(player)),
        "minutes": ASKED_TTL // timedelta(minutes=1),
    }


def check(session: Session, site: Site, token: str, now: datetime) -> SignIn:
    """The sign-in row of a link still good (a mailed link's first use: a row not yet
    stored); BadLink, Used or Expired otherwise."""
    payload = read_token(site.secret, "signin", token)
    if len(payload) == 3 and payload[0] == MAILED and all(_an_id(x) for x in payload[1:]):
        row = _mailed(session, site, payload[1], payload[2])
    elif len(payload) == 2 and _an_id(payload[0]) and isinstance(payload[1], str):
        # A link asked for before asks were made into mails by the sender (an hour at most).
        found = session.get(SignIn, payload[0])
        if found is None or not secrets.compare_digest(found.nonce, payload[1]):
            raise BadLink("no such sign-in")
        row = found
    else:
        raise BadLink("payload")
    if not signs_in(session.get(Player, row.player_id)):
        raise BadLink("not a person")
    if row.used_at is not None:
        raise Used()
    if row.expires_at <= now:
        raise Expired()
    return row


def _an_id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _mailed(session: Session, site: Site, outbox_id: int, player_id: int) -> SignIn:
    """The row of a mail's sign-in link: the one made when it was used, or the one its first
    use will make (a game mail's: to the seat's settings, good for MAILED_TTL from the mail;
    a sign-in mail's: to /me, good for ASKED_TTL from the ask)."""
    made = session.exec(select(SignIn).where(col(SignIn.outbox_id) == outbox_id)).first()
    if made is not None:
        return made
    mail = session.get(Outbox, outbox_id)
    if mail is None:
        raise BadLink("no such mail")
    if mail.game_id is None:
        next_path, ttl = _asked(session, mail, player_id), ASKED_TTL
    else:
        next_path, ttl = _settings_of(session, site, mail, player_id), MAILED_TTL
    return SignIn(
        player_id=player_id,
        nonce=new_key(),
        next_path=next_path,
        created_at=mail.created_at,
        expires_at=mail.created_at + ttl,
        outbox_id=outbox_id,
    )


def _asked(session: Session, mail: Outbox, player_id: int) -> str:
    """Where a sign-in mail's link leads (/me), if it went to this player."""
    address = mail.extra.get("email") if mail.event == "signin" else None
    player = asker(session, address) if isinstance(address, str) else None
    if player is None or player.id != player_id:
        raise BadLink("no such sign-in mail")
    return "/me"


def _settings_of(session: Session, site: Site, mail: Outbox, player_id: int) -> str:
    """Where a game mail's settings link leads, if the mail went to this player's seat."""
    if mail.player_id != player_id or mail.game_id is None or mail.seat is None:
        raise BadLink("no such mail")
    seat = find_seat(session, mail.game_id, mail.seat)
    if seat is None or seat.player_id != player_id:
        raise BadLink("no such seat")
    return settings_path(site, seat)


def use(session: Session, site: Site, token: str, now: datetime) -> SignIn:
    """Spend the link: exactly one press signs in, even when two arrive at once."""
    row = check(session, site, token, now)
    if not spend(session, row, now):
        raise Used()
    return row


def spend(session: Session, row: SignIn, now: datetime) -> bool:
    """Mark the row used now; False if another press did first. A mailed link's row is
    written here (its first use), and a second at the same moment finds it there."""
    if row.id is None:
        table = SignIn.__table__  # type: ignore[attr-defined]
        values = row.model_dump(exclude={"id"}) | {"used_at": now}
        dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
        insert = (
            dialect.insert(table)
            .values(values)
            .on_conflict_do_nothing(index_elements=["outbox_id"])
        )
        # The new row's id comes back unless another press wrote it first.
        return session.connection().execute(insert.returning(table.c.id)).first() is not None
    done = session.execute(
        update(SignIn)
        .where(col(SignIn.id) == row.id, col(SignIn.used_at).is_(None))
        .values(used_at=now)
    )
    return bool(done.rowcount == 1)  # type: ignore[attr-defined]


def generation(session: Session, player_id: int) -> int | None:
    """The player's session generation now (None: no such player, or a computer): a device
    signed in now keeps it in its cookie."""
    player = session.get(Player, player_id)
    return player.session_generation if player is not None and signs_in(player) else None


def session_holds(session: Session, player_id: int, held: int) -> bool:
    """Whether a device's session (the player's id and the generation it was opened in)
    still signs it in: the player has not signed out anywhere since."""
    return generation(session, player_id) == held


def end_sessions(session: Session, player_id: int) -> None:
    """Sign the player out on every device: each holds an older generation from now on (one
    statement, so two sign-outs at once both count)."""
    session.execute(
        update(Player)
        .where(col(Player.id) == player_id)
        .values(session_generation=col(Player.session_generation) + 1)
    )


def forget_old(session: Session, now: datetime) -> None:
    """Drop sign-in rows expired more than KEPT_AFTER_EXPIRY ago (in the caller's write
    transaction)."""
    session.execute(delete(SignIn).where(col(SignIn.expires_at) < now - KEPT_AFTER_EXPIRY))
