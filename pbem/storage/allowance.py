"""Per-player allowances over a sliding window (issue 48): how many open tables, seats taken,
invitations sent and invitations received a player may have in the last 24 hours.

Each act is a CountedAct row. The count and the new row are made in one write transaction
under the counted player's lock, so parallel requests cannot both pass the last free place:
SQLite's BEGIN IMMEDIATE already lets one writer in at a time; on PostgreSQL a transaction
advisory lock per (allowance, player) does, released at commit or rollback (which a
transaction pooler keeps). The window slides: an act counts for exactly its window after
it, whatever the calendar day, so a refusal says when the next act fits (free_at).

The per-address counters of pbem.storage.ratelimit stay for what has no player yet (sign-in
requests, new games by address, wrong links).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func, select
from sqlmodel import Session, col

from pbem.errors import PlayError
from pbem.models import CountedAct, Player
from pbem.present.i18n import Moment

DAY = timedelta(hours=24)


@dataclass(frozen=True)
class Allowance:
    """At most `count` acts of `kind` by (or to) one player in any `window`."""

    kind: str
    count: int
    window: timedelta = DAY


OPEN_POSTS = Allowance("openpost", 10)  # open tables and seeks posted: each may mail others
OPEN_JOINS = Allowance("openjoin", 30)  # open seats taken, refused tries included
LEAGUE_JOINS = Allowance("leaguejoin", 30, timedelta(hours=1))  # joins and answers
INVITES_SENT = Allowance("invitesent", 40)  # invitations one player sends (leagues, games)
INVITES_RECEIVED = Allowance("invitedto", 3)  # invitations one address gets, all senders
LONGEST = max(OPEN_POSTS.window, OPEN_JOINS.window, LEAGUE_JOINS.window, INVITES_SENT.window)


class OverLimit(PlayError):
    """The player has used up an allowance: a 429 that says which, how many it allows and,
    as `time` (a Moment), when to try again."""

    status = 429

    def __init__(self, kind: str, count: int, **params: object) -> None:
        super().__init__(f"limit.{kind}", count=count, **params)
        self.kind = kind
        self.count = count


def free_at(
    session: Session, allowance: Allowance, who: int, now: datetime, needed: int = 1
) -> datetime:
    """When `needed` more acts fit in the allowance of `who`: the moment enough of the acts
    counted now have left the window (`now` if they fit already). More than the allowance
    holds never fit: then, when it is all free (no caller asks so many)."""
    needed = min(needed, allowance.count)
    leaving = used(session, allowance, who, now) + needed - allowance.count
    if leaving <= 0:
        return now
    query = (
        select(col(CountedAct.at))
        .where(
            col(CountedAct.kind) == allowance.kind,
            col(CountedAct.who) == who,
            col(CountedAct.at) > now - allowance.window,
        )
        .order_by(col(CountedAct.at))
        .offset(leaving - 1)
        .limit(1)
    )
    oldest: datetime = session.execute(query).scalar_one()
    return oldest + allowance.window


def until(session: Session, who: int, moment: datetime) -> Moment:
    """`moment` in the time zone of player `who` (UTC for an anonymous bucket), as a
    refusal names it."""
    player = session.get(Player, who) if who > 0 else None
    return Moment(moment, player.tz if player is not None else "UTC")


def over_limit(
    session: Session, allowance: Allowance, who: int, now: datetime, needed: int = 1, kind: str = ""
) -> OverLimit:
    """The refusal of `needed` more acts of the allowance of `who`, saying when they fit."""
    moment = until(session, who, free_at(session, allowance, who, now, needed))
    return OverLimit(kind or allowance.kind, allowance.count, time=moment)


def hold(session: Session, allowance: Allowance, players: Iterable[int]) -> None:
    """Take the players' counting locks for this allowance, in id order (no deadlock between
    two transactions taking several). SQLite: the write lock taken at BEGIN is enough."""
    bind = session.get_bind()
    if bind.dialect.name != "postgresql":
        return
    space = zlib.crc32(allowance.kind.encode()) & 0x7FFFFFFF
    for player_id in sorted(set(players)):
        session.execute(select(func.pg_advisory_xact_lock(space, player_id)))


def used(session: Session, allowance: Allowance, player_id: int, now: datetime) -> int:
    """How many acts of the allowance's kind count for the player at `now`."""
    query = select(func.count()).where(
        col(CountedAct.kind) == allowance.kind,
        col(CountedAct.who) == player_id,
        col(CountedAct.at) > now - allowance.window,
    )
    return int(session.execute(query).scalar_one())


def count_act(session: Session, allowance: Allowance, player_id: int, now: datetime) -> None:
    """Count one act for the player, or OverLimit if the allowance is used up; call under
    hold() in the transaction that does the act."""
    if used(session, allowance, player_id, now) >= allowance.count:
        raise over_limit(session, allowance, player_id, now)
    session.add(CountedAct(kind=allowance.kind, who=player_id, at=now))
    session.flush()


def take(session: Session, allowance: Allowance, player_id: int, now: datetime) -> None:
    """Lock and count one act of the player's (OverLimit once the allowance is used up)."""
    hold(session, allowance, [player_id])
    count_act(session, allowance, player_id, now)


def forget_old(session: Session, now: datetime) -> None:
    """Drop acts older than every window (in the caller's write transaction)."""
    session.execute(delete(CountedAct).where(col(CountedAct.at) < now - LONGEST))
