"""Dates and durations in words, in a player's time zone and language."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from functools import cache
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from babel.dates import format_datetime, format_timedelta

from pbem.models import Player
from pbem.present.i18n import ptr, tr

# Under a day left, a mail's first line and a page's clock say so.
URGENT = timedelta(hours=24)


@cache
def zones() -> tuple[str, ...]:
    """Every IANA time zone name this machine knows, sorted."""
    return tuple(sorted(z for z in available_timezones() if "/" in z or z == "UTC"))


def valid_zone(name: str) -> bool:
    """Whether `name` is a time zone we can use."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return name in zones()


def zone_or_utc(tz: str) -> ZoneInfo:
    """The time zone named `tz`, or UTC when there is none by that name."""
    try:
        return ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def format_when(moment: datetime | None, tz: str, lang: str) -> str:
    """An absolute date and time in the zone, e.g. "Thursday 5 March 2026, 14:00 (Europe/Paris)".

    The pattern is a catalogue entry (CLDR date symbols), so each language orders the parts,
    names the days and months (Babel's CLDR data) and marks the first of the month its own way.
    """
    first = ptr(lang, "date on the first of the month", "EEEE d MMMM y, HH:mm")
    when = _in_zone(moment, tz, lang, tr(lang, "EEEE d MMMM y, HH:mm"), first)
    if not when:
        return ""
    return tr(lang, "%(when)s (%(zone)s)", when=when, zone=zone_or_utc(tz).key)


def format_day(moment: datetime | None, tz: str, lang: str) -> str:
    """A day in words in the zone, without the year or the time, e.g. "Tuesday 3 March"."""
    first = ptr(lang, "day on the first of the month", "EEEE d MMMM")
    return _in_zone(moment, tz, lang, tr(lang, "EEEE d MMMM"), first)


def format_short(moment: datetime | None, tz: str, lang: str) -> str:
    """A short date and time in the zone for a mail's first line, e.g. "Fri 4 Dec, 07:14"."""
    pattern = tr(lang, "EEE d MMM, HH:mm")
    return _in_zone(moment, tz, lang, pattern, pattern)


def _in_zone(moment: datetime | None, tz: str, lang: str, pattern: str, first: str) -> str:
    """`moment` in the zone by a CLDR pattern, `first` on the first of the month; "" for None.

    The callers look the patterns up with literal tr/ptr calls, for pybabel to find them."""
    if moment is None:
        return ""
    zone = zone_or_utc(tz)
    local = moment.astimezone(zone)
    return format_datetime(local, first if local.day == 1 else pattern, tzinfo=zone, locale=lang)


def format_left(delta: timedelta, lang: str) -> str:
    """A duration in round words (CLDR units): "2 days", "5 hours", "less than an hour".

    Rounded to the nearest hour, then (from 48 hours) to the nearest day: a turn of 3 days
    reads "3 days" in its mail and still on the page opened a minute later, where rounding
    down said "2 days" (issue 31). Under an hour nothing is rounded up.
    """
    seconds = delta.total_seconds()
    if seconds < 3600:
        return tr(lang, "less than an hour")
    hours = int(seconds // 3600) + (seconds % 3600 >= 1800)
    if hours >= 48:
        return _units(timedelta(days=hours // 24 + (hours % 24 >= 12)), "day", lang)
    return _units(timedelta(hours=hours), "hour", lang)


def deadline_words(deadline: datetime | None, now: datetime, tz: str, lang: str) -> dict[str, Any]:
    """A deadline as pages and mails alike show it: the moment in the zone and the time left.

    The one place the time left is worked out (issue 31: mail and page disagreed).
    """
    if deadline is None:
        return {"deadline": None, "deadline_text": "", "time_left": ""}
    return {
        "deadline": deadline,
        "deadline_text": format_when(deadline, tz, lang),
        "time_left": format_left(max(deadline - now, timedelta(0)), lang),
    }


def deadline_context(deadline: datetime | None, player: Player, now: datetime) -> dict[str, Any]:
    """The deadline in the player's zone, the time left, and whether it is urgent."""
    if deadline is None:
        return {
            "deadline": None,
            "deadline_text": "",
            "deadline_short": "",
            "time_left": "",
            "urgent": False,
        }
    left = max(deadline - now, timedelta(0))
    return {
        **deadline_words(deadline, now, player.tz, player.lang),
        "deadline_short": format_short(deadline, player.tz, player.lang),
        "urgent": left < URGENT,
    }


def _units(delta: timedelta, unit: Literal["day", "hour"], lang: str) -> str:
    # An infinite threshold keeps the unit chosen above: 14 days stay "14 days", not "2 weeks".
    return format_timedelta(delta, granularity=unit, threshold=math.inf, locale=lang)
