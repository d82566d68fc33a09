"""Table talk: one thread per game, to everyone or privately to one seat.

A message sends no mail of its own: it travels in the next mail each recipient
gets. A private message is hidden information like any other: only its author
and its recipient ever see it.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import or_
from sqlmodel import Session, col, select

from pbem.errors import PlayError
from pbem.models import Block, Game, Seat, Talk
from pbem.present.forms import TalkForm
from pbem.storage.store import lock_game
from pbem.storage.versions import table_changed


def post(session: Session, game_id: int, seat_no: int, form: TalkForm, now: datetime) -> Talk:
    """Add a message from `seat_no` to everyone or to one other seat (the form is checked)."""
    game = lock_game(session, game_id)
    if game.status == "cancelled":
        raise PlayError("talk.error.closed")
    text, to_seat = form.text, form.to
    seats = session.exec(select(Seat.seat).where(Seat.game_id == game_id)).all()
    if to_seat is not None and (to_seat not in seats or to_seat == seat_no):
        raise PlayError("talk.error.recipient")
    message = Talk(game_id=game_id, seat=seat_no, to_seat=to_seat, text=text, created_at=now)
    session.add(message)
    session.flush()
    game.last_talk = message.id or 0  # a page or mail with nothing newer skips the talk query
    session.add(game)
    table_changed(session, game_id)  # open pages show it (pbem.storage.versions)
    return message


def visible(session: Session, game: Game, viewer: int | None, after: int = 0) -> list[Talk]:
    """The messages `viewer` may read (None: an onlooker, who sees only public ones)."""
    if game.last_talk <= after:
        return []  # nothing was said since: no query
    query = select(Talk).where(Talk.game_id == game.id, col(Talk.id) > after)
    if viewer is None:
        query = query.where(col(Talk.to_seat).is_(None))
    else:
        query = query.where(
            or_(col(Talk.to_seat).is_(None), col(Talk.to_seat) == viewer, col(Talk.seat) == viewer)
        )
        # A private message from a seat whose player the viewer blocks is hidden from them
        # (issue 36); what they say to everyone stays, the game's talk being one thread.
        me = select(Seat.player_id).where(Seat.game_id == game.id, Seat.seat == viewer)
        blocked = select(Block.blocked_id).where(col(Block.player_id).in_(me))
        blocked_seats = select(Seat.seat).where(
            Seat.game_id == game.id, col(Seat.player_id).in_(blocked)
        )
        query = query.where(or_(col(Talk.to_seat).is_(None), col(Talk.seat).not_in(blocked_seats)))
    return list(session.exec(query.order_by(col(Talk.id))))
