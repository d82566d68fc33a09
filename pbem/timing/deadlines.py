"""Deadline arithmetic: reminder schedules, when a turn's clock starts, stops and shifts.

Pure: it knows the rows and the rules, never the database (the players' vacations and time
zones it is given are read by pbem.players.vacations); the sweeps that act on due rows live
in pbem/clock/sweeps.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from pbem.games import GAMES
from pbem.models import Game, Player, Seat, level_for
from pbem.timing.clocks import advance, allowance, bank_after, counted, retreat

DIGEST_HOUR = 8  # local time of the daily digest


@dataclass(frozen=True)
class Reminder:
    """One planned reminder: when, and whether it warns of the deadline."""

    at: datetime
    warning: bool  # a "%" item: gives the absolute deadline


def plan(game: Game, seat: Seat, tz: str = "UTC") -> list[Reminder]:
    """The reminders of the seat's current turn, in time order, all before the deadline
    (`tz`: the seat's player's time zone, where the game's days off fall)."""
    if seat.turn_started_at is None:
        return []
    # Reminders follow the time this turn allows, counted as the clock counts it.
    limit = allowance(game, seat)
    begin = retreat(game, tz, seat.deadline, limit) if limit and seat.deadline else None
    begin = begin or seat.turn_started_at
    found: dict[datetime, Reminder] = {}
    for item in game.reminders:
        number, unit = int(item[:-1]), item[-1]
        if unit == "h":
            at, warning = advance(game, tz, begin, timedelta(hours=number)), False
        elif limit is not None:
            at, warning = advance(game, tz, begin, limit * (number / 100)), True
        else:
            continue
        if seat.deadline is None or at < seat.deadline:
            found[at] = Reminder(at, warning or found.get(at, Reminder(at, False)).warning)
    return sorted(found.values(), key=lambda r: r.at)


def start_clock(
    game: Game,
    seat: Seat,
    now: datetime,
    away: Mapping[int, datetime],
    zones: Mapping[int, str] | None = None,
) -> None:
    """The seat is newly due to act: set its deadline and first reminder.

    `away`: when the players on vacation at `now` come back, by player id (away_at);
    `zones`: the players' time zones, by player id (zones_of), for a game with days off."""
    seat.turn_started_at = now
    seat.reminders_sent = 0
    seat.computer_due_at = None
    if level_for(game, seat):
        # A computer plays this seat (a computer seat, or an absent one taken over): the
        # computer sweep makes the move after its short delay; no deadline, no reminders.
        seat.computer_due_at = now
        seat.deadline = None
        seat.next_reminder_at = None
        return
    if seat.absent:
        # An absent seat's turns are played by timeout moves at once.
        seat.deadline = now
        seat.next_reminder_at = None
        return
    # The clock starts when the vacation ends (one vacation at a time: start_vacation).
    back = away.get(seat.player_id)
    begin = back if back is not None else now
    limit = allowance(game, seat)
    tz = zone_of(game, seat, zones)
    seat.deadline = None if limit is None else advance(game, tz, begin, limit)
    reminders = [r for r in plan(game, seat, tz) if r.at > now]
    seat.next_reminder_at = reminders[0].at if reminders else None


def stop_clock(seat: Seat) -> None:
    """The seat is no longer due to act."""
    seat.turn_started_at = None
    seat.deadline = None
    seat.next_reminder_at = None
    seat.reminders_sent = 0
    seat.computer_due_at = None


def update_clocks(
    game: Game,
    seats: list[Seat],
    before: set[int],
    now: datetime,
    away: Mapping[int, datetime],
    zones: Mapping[int, str] | None = None,
) -> None:
    """Start the clocks of seats newly due to act, stop those of seats no longer due
    (`away` and `zones` as for start_clock)."""
    acting: set[int] = set()
    if game.status == "active" and game.state is not None:
        acting = set(GAMES[game.slug].to_act(game.state))
    for seat in seats:
        if seat.seat in acting and (seat.seat not in before or seat.turn_started_at is None):
            start_clock(game, seat, now, away, zones)
        elif seat.seat not in acting and seat.turn_started_at is not None:
            bank_unused(game, seat, now, zone_of(game, seat, zones))
            stop_clock(seat)


def bank_unused(game: Game, seat: Seat, now: datetime, tz: str = "UTC") -> None:
    """The seat has moved: keep what its turn left unused, as the game's clock kind says
    (`tz`: the seat's player's time zone, for a game with days off)."""
    limit = allowance(game, seat)
    if game.clock == "move" or limit is None or seat.deadline is None or level_for(game, seat):
        return
    # Time given on top (a vacation taken during the turn, extra days) is not banked.
    left = min(counted(game, tz, now, seat.deadline), limit)
    seat.banked = bank_after(game, left)


def zone_of(game: Game, seat: Seat, zones: Mapping[int, str] | None) -> str:
    """The time zone the seat's clock counts days off in: its player's (UTC without days off)."""
    if not game.days_off or zones is None:
        return "UTC"
    return zones.get(seat.player_id, "UTC")


def next_digest(player: Player, now: datetime) -> datetime:
    """The next DIGEST_HOUR o'clock, in the player's time zone, after `now`."""
    zone = ZoneInfo(player.tz)
    local = now.astimezone(zone)
    moment = datetime.combine(local.date(), time(DIGEST_HOUR), tzinfo=zone)
    if moment <= local:
        moment = datetime.combine(local.date() + timedelta(days=1), time(DIGEST_HOUR), tzinfo=zone)
    return moment.astimezone(now.tzinfo)
