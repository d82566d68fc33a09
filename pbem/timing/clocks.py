"""The clock kinds and playing days: how much time a turn allows, and which hours count.

A game's clock is "move" (days_per_move each move, as games always had), "fischer" (the
seat's clock starts with days_per_move, gains clock_add days after each move, never above
clock_cap days) or "bank" (days_per_move each move, and what a move leaves unused is kept
in a bank of at most clock_cap days for later moves). A game's days_off are weekdays on
which no clock runs, midnight to midnight in the zone of the seat's player: their hours
count neither towards a deadline nor reminders nor the bank.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from pbem.models import Game, Seat

KINDS = ("move", "fischer", "bank")
DAY = timedelta(days=1)
_MOST_DAYS = 4000  # a walk over days stops here: ten years of turns is no turn


def allowance(game: Game, seat: Seat) -> timedelta | None:
    """The time the seat's current turn allows (counted time), or None for no limit."""
    if not game.days_per_move:
        return None
    per_move = timedelta(days=game.days_per_move)
    if game.clock == "fischer":
        return per_move if seat.banked is None else timedelta(seconds=seat.banked)
    if game.clock == "bank":
        return per_move + timedelta(seconds=seat.banked or 0)
    return per_move


def bank_after(game: Game, left: timedelta) -> int | None:
    """What the seat keeps (seconds) after a move made with `left` counted time unused."""
    left = max(left, timedelta(0))
    if game.clock == "fischer":
        cap = timedelta(days=game.clock_cap or game.days_per_move or 0)
        return int(min(left + timedelta(days=game.clock_add or 0), cap).total_seconds())
    if game.clock == "bank":
        return int(min(left, timedelta(days=game.clock_cap or 0)).total_seconds())
    return None


def counted(game: Game, tz: str, start: datetime, end: datetime) -> timedelta:
    """The time from `start` to `end` that counts on a clock (none on days off)."""
    if end <= start:
        return timedelta(0)
    if not game.days_off:
        return end - start
    zone, total = ZoneInfo(tz), timedelta(0)
    moment = start.astimezone(UTC)
    end = end.astimezone(UTC)
    for _ in range(_MOST_DAYS):
        if moment >= end:
            break
        local = moment.astimezone(zone)
        midnight = _midnight(local.date() + DAY, zone)
        if local.weekday() not in game.days_off:
            total += min(midnight, end) - moment
        moment = midnight
    return total


def advance(game: Game, tz: str, start: datetime, amount: timedelta) -> datetime:
    """The moment when `amount` of counted time has run after `start`."""
    if not game.days_off:
        return start + amount
    zone, left = ZoneInfo(tz), amount
    moment = start.astimezone(UTC)
    for _ in range(_MOST_DAYS):
        local = moment.astimezone(zone)
        midnight = _midnight(local.date() + DAY, zone)
        if local.weekday() not in game.days_off:
            if left <= midnight - moment:
                return moment + left
            left -= midnight - moment
        moment = midnight
    return moment


def retreat(game: Game, tz: str, end: datetime, amount: timedelta) -> datetime:
    """The moment `amount` of counted time before `end`."""
    if not game.days_off:
        return end - amount
    zone, left = ZoneInfo(tz), amount
    moment = end.astimezone(UTC)
    for _ in range(_MOST_DAYS):
        # The local day holding the instant just before `moment`.
        local = (moment - timedelta(microseconds=1)).astimezone(zone)
        midnight = _midnight(local.date(), zone)
        if local.weekday() not in game.days_off:
            if left <= moment - midnight:
                return moment - left
            left -= moment - midnight
        moment = midnight
    return moment


def _midnight(day: date, zone: ZoneInfo) -> datetime:
    """The start of a local calendar day, in UTC."""
    return datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)
