"""Dates and durations in words, in a player's time zone and language."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from pbem.i18n import t


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


def format_when(moment: datetime | None, tz: str, lang: str) -> str:
    """An absolute date and time in the zone, e.g. "Thursday 5 March 2026, 14:00 (Europe/Paris)"."""
    if moment is None:
        return ""
    try:
        zone = ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        zone, tz = ZoneInfo("UTC"), "UTC"
    local = moment.astimezone(zone)
    return t(
        lang,
        "time.when",
        weekday=t(lang, f"time.weekday.{local.weekday()}"),
        day=t(lang, "time.first_day") if local.day == 1 else local.day,
        month=t(lang, f"time.month.{local.month}"),
        year=local.year,
        time=f"{local.hour:02d}:{local.minute:02d}",
        zone=tz,
    )


def format_left(delta: timedelta, lang: str) -> str:
    """A duration in round words: "2 days", "5 hours", "less than an hour"."""
    hours = int(delta.total_seconds() // 3600)
    if hours >= 48:
        return t(lang, "time.days", count=hours // 24)
    if hours >= 2:
        return t(lang, "time.hours", count=hours)
    if hours == 1:
        return t(lang, "time.one_hour")
    return t(lang, "time.under_an_hour")
