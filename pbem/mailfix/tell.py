"""The table told when a player's address turns bouncing or complains (issue 46, part 4).

Per game the address holds a seat in (forming or active), once per turn of the address:
the game's creator gets one mail (mail/mail_bouncing), each of the game's table webhooks
one event ("mail_bouncing"). The seat pages, the API and the other seats' turn mails read
the state themselves (pbem.bounces.state), so nothing else is written.

Nobody gets the mail when the creator is the player whose mail fails (it would not reach
them) or has left the game, or when the creator's own mail does not go out either: the
other seats learn it from their page and their next turn mail, which say it already. No
clock changes: a bouncing seat's turn times out, goes on vacation and is taken over as
before.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, select

from pbem.bounces.state import BOUNCING, COMPLAINED, state_of, states
from pbem.mailout.notify import notice_id, queue_notice, telling
from pbem.models import Game, MailAddress, Outbox, Player, Seat
from pbem.present.mailstate import told_seat
from pbem.site import Site
from pbem.storage.store import player_by_id
from pbem.webhooks.events import queue_table_event

EVENT = "mail_bouncing"
PLAYING = ("forming", "active")


def occasion(row: MailAddress, seat: Seat) -> str:
    """What one telling is about: this seat, for this turn of its address (a later turn,
    after mail came back on, is told again)."""
    return f"mail.s{seat.seat}.{int(_since(row).timestamp())}"


def _since(row: MailAddress) -> datetime:
    """When the address turned (the sweep sets `since`; a row without one, its last change)."""
    return row.since or row.updated_at


def told_bouncing(session: Session, site: Site, row: MailAddress, now: datetime) -> None:
    """Tell the games of `row`'s address, in the caller's transaction, that its mail no longer
    arrives (it just turned bouncing or complained): each active game's creator gets one
    mail, each table webhook one event. The seat pages, the API and the other seats' turn
    mails read the state themselves (pbem.bounces.state). Called again for the same turn of
    the address, it tells nobody twice."""
    if row.state not in (BOUNCING, COMPLAINED):
        return
    player = session.exec(select(Player).where(Player.email == row.address)).first()
    if player is None:
        return
    found = session.exec(
        select(Seat, Game)
        .join(Game, col(Game.id) == col(Seat.game_id))
        .where(Seat.player_id == player.id, col(Game.status).in_(PLAYING))
        .order_by(col(Game.id))
    ).all()
    for seat, game in found:
        if told_seat(seat):
            _tell_game(session, site, game, seat, row, now)


def _tell_game(
    session: Session, site: Site, game: Game, seat: Seat, row: MailAddress, now: datetime
) -> None:
    """One game told of `seat`'s mail: its creator by mail, its table webhooks."""
    tell = telling(session, site, game, now)
    about = occasion(row, seat)
    creator = next((s for s in tell.seats if s.seat == game.creator_seat), None)
    if creator is not None and _mail_goes(session, creator, seat):
        already = session.exec(
            select(Outbox.id).where(Outbox.message_id == notice_id(site, game, about))
        ).first()
        if already is None:
            extra = {
                "who": seat.name,
                "who_seat": seat.seat,
                "state": row.state,
                "bounced_since": _since(row),
                "forming": game.status == "forming",
            }
            queue_notice(tell, creator, EVENT, about, extra)
    queue_table_event(session, tell.hooks, site, game, seat, EVENT, about, now)
    tell.carry_out(session)


def _mail_goes(session: Session, creator: Seat, seat: Seat) -> bool:
    """Whether the creator is someone to mail about `seat`: another person, still playing,
    whose own mail goes out."""
    if creator.player_id == seat.player_id or not told_seat(creator):
        return False
    player = player_by_id(session, creator.player_id)
    if player is None:
        return False
    return state_of(states(session, [player.email]).get(player.email)) not in (
        BOUNCING,
        COMPLAINED,
    )
