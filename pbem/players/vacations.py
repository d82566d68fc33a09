"""Vacations and time zones as the turn clocks read them, and deadlines moved by a vacation.

The arithmetic is pbem.timing.deadlines; these read and write the rows it is given.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from pbem.models import Player, Seat, Vacation
from pbem.storage.versions import tables_changed


def vacation_covering(session: Session, player_id: int, moment: datetime) -> Vacation | None:
    """The player's vacation under way at `moment`, if any."""
    return session.exec(
        select(Vacation).where(
            Vacation.player_id == player_id,
            Vacation.starts_at <= moment,
            Vacation.ends_at > moment,
        )
    ).first()


def away_at(session: Session, seats: list[Seat], now: datetime) -> dict[int, datetime]:
    """When the seats' players on vacation at `now` come back, by player id."""
    away = {}
    for seat in seats:
        vacation = vacation_covering(session, seat.player_id, now)
        if vacation is not None:
            away[seat.player_id] = vacation.ends_at
    return away


def zones_of(session: Session, seats: list[Seat]) -> dict[int, str]:
    """The time zones of the seats' players, by player id."""
    ids = {seat.player_id for seat in seats}
    players = session.exec(select(Player).where(col(Player.id).in_(ids))).all()
    return {player.id: player.tz for player in players if player.id is not None}


def shift_player_clocks(
    session: Session, player_id: int, start: datetime, delta: timedelta, now: datetime
) -> None:
    """Move the deadlines and reminders after `start` of all the player's seats by `delta`."""
    seats = session.exec(
        select(Seat).where(Seat.player_id == player_id, col(Seat.deadline).is_not(None))
    ).all()
    moved: set[int] = set()
    for seat in seats:
        if seat.absent or seat.deadline is None or seat.deadline <= start:
            continue
        seat.deadline = max(seat.deadline + delta, now + timedelta(hours=1))
        if seat.next_reminder_at is not None and seat.next_reminder_at > start:
            seat.next_reminder_at = max(seat.next_reminder_at + delta, now)
        session.add(seat)
        moved.add(seat.game_id)
    tables_changed(session, moved)  # their open pages show the new deadlines
