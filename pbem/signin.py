"""Sign in by mail, with no password: a link good once and for a while, and the session it opens.

A link names a SignIn row and carries its random nonce, signed; the row says whether it was
used and until when it holds, so a link opened twice or too late says which it is.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from sqlalchemy import update
from sqlmodel import Session, col

from pbem.links import BadLink, Site, make_token, new_key, read_token
from pbem.models import Player, SignIn
from pbem.store import id_of

ASKED_TTL = timedelta(hours=1)  # a link asked for on /signin
MAILED_TTL = timedelta(days=30)  # the settings link in a game's mail
SESSION_DAYS = 90  # how long a device stays signed in


class Used(Exception):
    """The link was already used to sign in."""


class Expired(Exception):
    """The link is past its time."""


def new_row(
    session: Session, player: Player, next_path: str, now: datetime, ttl: timedelta
) -> SignIn:
    """A new sign-in row for the player, good for `ttl`, leading to `next_path`."""
    row = SignIn(
        player_id=id_of(player),
        nonce=new_key(),
        next_path=next_path,
        created_at=now,
        expires_at=now + ttl,
    )
    session.add(row)
    session.flush()
    return row


def url_for_row(site: Site, row: SignIn) -> str:
    """The mailed address of a sign-in row."""
    token = make_token(site.secret, "signin", [row.id, row.nonce])
    return f"{site.base_url.rstrip('/')}/signin/{token}"


def check(session: Session, secret: str, token: str, now: datetime) -> SignIn:
    """The sign-in row of a link still good; BadLink, Used or Expired otherwise."""
    payload = read_token(secret, "signin", token)
    if len(payload) != 2 or not isinstance(payload[0], int) or not isinstance(payload[1], str):
        raise BadLink("payload")
    row = session.get(SignIn, payload[0])
    if row is None or not secrets.compare_digest(row.nonce, payload[1]):
        raise BadLink("no such sign-in")
    if row.used_at is not None:
        raise Used()
    if row.expires_at <= now:
        raise Expired()
    return row


def use(session: Session, secret: str, token: str, now: datetime) -> SignIn:
    """Spend the link: exactly one press signs in, even when two arrive at once."""
    row = check(session, secret, token, now)
    done = session.execute(
        update(SignIn)
        .where(col(SignIn.id) == row.id, col(SignIn.used_at).is_(None))
        .values(used_at=now)
    )
    if done.rowcount != 1:  # type: ignore[attr-defined]
        raise Used()
    return row
