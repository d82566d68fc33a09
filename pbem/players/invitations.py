"""Who may be sent an invitation (issue 48): a league's or a game's invitations are counted for
their sender and for each recipient over the last 24 hours, in the write that makes them.

A sender has INVITES_SENT a day in all; a recipient gets at most INVITES_RECEIVED a day
from all leagues and games together (those from players they have played with aside), none
from a player whose invitation they declined, and none once they have turned their mail
off (unsubscribed). An invitation that would break a
rule refuses the whole league or game, and says which addresses could not be invited: the
sender changes the list, nobody is mailed half a league.

A game made from the lobby signed out names its creator by a typed address, which proves
nothing: its invitations count against the requesting address's bucket (anonymous_sender),
not the typed player's allowance, and earn no "played together" pass.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import and_
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from pbem.models import League, LeagueMember, Player, Seat
from pbem.storage.allowance import (
    INVITES_RECEIVED,
    INVITES_SENT,
    OverLimit,
    count_act,
    hold,
    over_limit,
    used,
)


class NotInvitable(OverLimit):
    """Some addresses cannot be invited just now: named in the message."""

    def __init__(self, addresses: list[str]) -> None:
        super().__init__("invitedto", INVITES_RECEIVED.count, who=", ".join(addresses))


def anonymous_sender(address: str) -> int:
    """The allowance id of invitations sent signed out from `address` (the client's, as the
    rate limits key it): negative, so never a player's id."""
    return -1 - (zlib.crc32(address.encode()) & 0x7FFFFFFF)


def said_no(session: Session, sender: int, recipients: list[int]) -> set[int]:
    """The recipients who declined an invitation of the sender's before: to a league they
    organised, or to a game they created."""
    if not recipients:
        return set()
    leagues = (
        select(LeagueMember.player_id)
        .join(League, col(League.id) == col(LeagueMember.league_id))
        .where(
            League.organiser_id == sender,
            LeagueMember.status == "declined",
            col(LeagueMember.player_id).in_(recipients),
        )
    )
    creator = aliased(Seat)
    games = (
        select(Seat.player_id)
        .join(creator, and_(col(creator.game_id) == col(Seat.game_id), col(creator.seat) == 0))
        .where(
            creator.player_id == sender,
            Seat.status == "declined",
            col(Seat.player_id).in_(recipients),
        )
    )
    return set(session.exec(leagues)) | set(session.exec(games))


def played_with(session: Session, sender: int, recipients: list[int]) -> set[int]:
    """The recipients who have sat at a game with the sender, both having joined it, or
    played in a league with them: people who know each other, not outside addresses."""
    if not recipients:
        return set()
    games = _sharing(session, sender, recipients, Seat, "game_id", _seat_joined)
    leagues = _sharing(session, sender, recipients, LeagueMember, "league_id", _member_joined)
    return games | leagues


def _seat_joined(seat: Any) -> Any:
    return col(seat.status) == "joined"


def _member_joined(member: Any) -> Any:
    return col(member.joined_at).is_not(None)


def _sharing(
    session: Session,
    sender: int,
    recipients: list[int],
    table: type[Seat | LeagueMember],
    group: str,
    joined: Callable[[Any], Any],
) -> set[int]:
    """The recipients who share a `group` (a game, a league) with the sender, both rows
    `joined`."""
    theirs, mine = aliased(table), aliased(table)
    query = (
        select(theirs.player_id)
        .join(mine, col(getattr(mine, group)) == col(getattr(theirs, group)))
        .where(
            col(mine.player_id) == sender,
            joined(mine),
            joined(theirs),
            col(theirs.player_id).in_(recipients),
        )
    )
    return set(session.exec(query))


def count_invitations(
    session: Session,
    sender: Player,
    recipients: list[Player],
    now: datetime,
    sent_by: int | None = None,
) -> None:
    """Count the sender's invitations to `recipients` (people, not computers) against both
    allowances, under their locks: OverLimit when the sender has used theirs up, NotInvitable
    naming the addresses that cannot be invited now.

    `sent_by`: whose allowance pays when it is not the named sender's own (the signed-in
    player, or anonymous_sender for a form sent signed out): typing an address into the
    lobby must not spend that person's invitations."""
    sender_id = sender.id or 0
    payer = sender_id if sent_by is None else sent_by
    ids = [player.id or 0 for player in recipients if player.id != sender_id]
    if not ids:
        return
    hold(session, INVITES_SENT, [payer])
    if used(session, INVITES_SENT, payer, now) + len(ids) > INVITES_SENT.count:
        kind = INVITES_SENT.kind if payer > 0 else "inviteanon"
        raise over_limit(session, INVITES_SENT, payer, now, len(ids), kind)
    hold(session, INVITES_RECEIVED, ids)
    declined = said_no(session, sender_id, ids)
    # The day's cap on an address is for strangers: those who played with the sender are
    # not counted (a friend's third rematch elsewhere, or a stranger's flood, eats no one's).
    # Only a sender who is the one signed in earns that pass: a typed address proves nothing.
    known = played_with(session, sender_id, ids) if payer == sender_id else set()
    refused = [
        player.email
        for player in recipients
        if player.id in declined
        or player.notify == "none"
        or (
            player.id not in known
            and used(session, INVITES_RECEIVED, player.id or 0, now) >= INVITES_RECEIVED.count
        )
    ]
    if refused:
        raise NotInvitable(refused)
    for player_id in ids:
        count_act(session, INVITES_SENT, payer, now)
        if player_id not in known:
            count_act(session, INVITES_RECEIVED, player_id, now)
