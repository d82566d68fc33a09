"""Turn clocks: deadlines, reminders, timeouts, absences, digests and vacations.

Everything due is a row with an indexed due time (Seat.deadline,
Seat.next_reminder_at, Player.next_digest_at, Vacation.ends_at). A sweep finds
due rows with one indexed query per kind and handles each row in its own short
transaction that first claims it with a conditional UPDATE, so a sweep can run
twice, in two clock processes at once, or be killed halfway: every due thing
is done exactly once, by whichever sweep claims it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, update
from sqlmodel import Session, select

from pbem.db import read_session, write_session
from pbem.games import GAMES
from pbem.models import Game, Player, Seat, Vacation
from pbem.store import lock_game, seat_of

log = logging.getLogger(__name__)
_ITEM = re.compile(r"^\s*(\d{1,3})\s*(h|%)\s*$")
DIGEST_HOUR = 8  # local time of the daily digest
MAX_ROUNDS = 50  # a sweep stops after this many batches even if more keeps falling due


class ScheduleError(ValueError):
    """A reminder schedule that cannot be read."""


def parse_schedule(text: str | list[str]) -> list[str]:
    """Normalise a reminder schedule such as "24h, 80%"; ScheduleError if it is not one."""
    items = text if isinstance(text, list) else [p for p in re.split(r"[,\s]+", text) if p]
    result = []
    for item in items:
        match = _ITEM.match(str(item))
        if not match:
            raise ScheduleError(str(item))
        number, unit = int(match[1]), match[2]
        if (unit == "h" and not 1 <= number <= 336) or (unit == "%" and not 1 <= number <= 99):
            raise ScheduleError(str(item))
        result.append(f"{number}{unit}")
    if len(result) > 6:
        raise ScheduleError("too many")
    return sorted(set(result), key=result.index)


@dataclass(frozen=True)
class Reminder:
    """One planned reminder: when, and whether it warns of the deadline."""

    at: datetime
    warning: bool  # a "%" item: gives the absolute deadline


def plan(game: Game, seat: Seat) -> list[Reminder]:
    """The reminders of the seat's current turn, in time order, all before the deadline."""
    if seat.turn_started_at is None:
        return []
    limit = timedelta(days=game.days_per_move) if game.days_per_move else None
    begin = seat.deadline - limit if (limit and seat.deadline) else seat.turn_started_at
    found: dict[datetime, Reminder] = {}
    for item in game.reminders:
        number, unit = int(item[:-1]), item[-1]
        if unit == "h":
            at, warning = begin + timedelta(hours=number), False
        elif limit is not None:
            at, warning = begin + limit * (number / 100), True
        else:
            continue
        if seat.deadline is None or at < seat.deadline:
            found[at] = Reminder(at, warning or found.get(at, Reminder(at, False)).warning)
    return sorted(found.values(), key=lambda r: r.at)


def vacation_covering(session: Session, player_id: int, moment: datetime) -> Vacation | None:
    """The player's vacation under way at `moment`, if any."""
    return session.exec(
        select(Vacation).where(
            Vacation.player_id == player_id,
            Vacation.starts_at <= moment,
            Vacation.ends_at > moment,
        )
    ).first()


def start_clock(session: Session, game: Game, seat: Seat, now: datetime) -> None:
    """The seat is newly due to act: set its deadline and first reminder."""
    seat.turn_started_at = now
    seat.reminders_sent = 0
    if seat.absent:
        # An absent seat's turns are played by timeout moves at once.
        seat.deadline = now
        seat.next_reminder_at = None
        return
    begin = now
    away = vacation_covering(session, seat.player_id, now)
    if away is not None:
        begin = away.ends_at  # the clock starts when the vacation ends
    seat.deadline = begin + timedelta(days=game.days_per_move) if game.days_per_move else None
    reminders = [r for r in plan(game, seat) if r.at > now]
    seat.next_reminder_at = reminders[0].at if reminders else None


def stop_clock(seat: Seat) -> None:
    """The seat is no longer due to act."""
    seat.turn_started_at = None
    seat.deadline = None
    seat.next_reminder_at = None
    seat.reminders_sent = 0


def update_clocks(
    session: Session, game: Game, seats: list[Seat], before: set[int], now: datetime
) -> None:
    """Start the clocks of seats newly due to act, stop those of seats no longer due."""
    acting: set[int] = set()
    if game.status == "active" and game.state is not None:
        acting = set(GAMES[game.slug].to_act(game.state))
    for seat in seats:
        if seat.seat in acting and (seat.seat not in before or seat.turn_started_at is None):
            start_clock(session, game, seat, now)
        elif seat.seat not in acting and seat.turn_started_at is not None:
            stop_clock(seat)
        session.add(seat)


def shift_player_clocks(
    session: Session, player_id: int, start: datetime, delta: timedelta, now: datetime
) -> None:
    """Move the deadlines and reminders after `start` of all the player's seats by `delta`."""
    seats = session.exec(
        select(Seat).where(Seat.player_id == player_id, Seat.deadline.is_not(None))  # type: ignore[union-attr]
    ).all()
    for seat in seats:
        if seat.absent or seat.deadline is None or seat.deadline <= start:
            continue
        seat.deadline = max(seat.deadline + delta, now + timedelta(hours=1))
        if seat.next_reminder_at is not None and seat.next_reminder_at > start:
            seat.next_reminder_at = max(seat.next_reminder_at + delta, now)
        session.add(seat)


def next_digest(player: Player, now: datetime) -> datetime:
    """The next DIGEST_HOUR o'clock, in the player's time zone, after `now`."""
    zone = ZoneInfo(player.tz)
    local = now.astimezone(zone)
    moment = datetime.combine(local.date(), time(DIGEST_HOUR), tzinfo=zone)
    if moment <= local:
        moment = datetime.combine(local.date() + timedelta(days=1), time(DIGEST_HOUR), tzinfo=zone)
    return moment.astimezone(now.tzinfo)


# --- sweeps ---------------------------------------------------------------------------


def sweep(engine: Engine, site: Any, now: datetime, batch: int = 100) -> dict[str, int]:
    """Handle everything due at `now`: timeouts first, then reminders, digests, vacation ends."""
    from pbem.ratelimit import forget_expired

    forget_expired(engine, now)
    return {
        "timeouts": sweep_timeouts(engine, site, now, batch),
        "reminders": sweep_reminders(engine, site, now, batch),
        "digests": sweep_digests(engine, site, now, batch),
        "vacations": sweep_vacations(engine, site, now, batch),
    }


def _each_due(engine: Engine, query: Any, handle: Callable[[Session, Any], bool]) -> int:
    """Find due rows with `query` (indexed, limited to a batch) and pass each key to `handle`,
    in its own transaction; repeat while new rows fall due. Return how many were handled.

    `handle` re-checks the row under its transaction and returns False when another sweep
    got there first, so a row is never handled twice.
    """
    done = 0
    previous: list[Any] | None = None
    for _ in range(MAX_ROUNDS):
        with read_session(engine) as session:
            due = list(session.exec(query).all())
        if not due or due == previous:
            break  # nothing due, or only rows another sweep is still holding
        previous = due
        for key in due:
            with write_session(engine) as session:
                done += bool(handle(session, key))
    return done


def sweep_timeouts(engine: Engine, site: Any, now: datetime, batch: int) -> int:
    """Play the timeout move of every seat whose deadline has passed."""
    from pbem import play

    def handle(session: Session, key: Any) -> bool:
        game_id, seat_no = key
        game = lock_game(session, game_id)
        seat = seat_of(session, game_id, seat_no)
        if seat.deadline is None or seat.deadline > now:
            return False  # moved in time, or handled by another sweep
        rules = GAMES[game.slug]
        if game.status != "active" or not rules.may_act(game.state, seat_no):
            stop_clock(seat)
            session.add(seat)
            return False
        move = rules.timeout_move(game.state, seat_no)
        token = rules.turn_token(game.state, seat_no)
        play.submit_move(session, site, game_id, seat_no, move, token, now, source="timeout")
        return True

    query = (
        select(Seat.game_id, Seat.seat)
        .where(Seat.deadline <= now)  # type: ignore[operator]
        .order_by(Seat.deadline)  # type: ignore[arg-type]
        .limit(batch)
    )
    return _each_due(engine, query, handle)


def sweep_reminders(engine: Engine, site: Any, now: datetime, batch: int) -> int:
    """Send each reminder that has fallen due, once; after downtime only the latest of a turn."""
    from pbem import notify

    def handle(session: Session, seat_id: Any) -> bool:
        seat = session.get(Seat, seat_id)
        if seat is None or seat.next_reminder_at is None or seat.next_reminder_at > now:
            return False
        game = session.get(Game, seat.game_id)
        assert game is not None
        reminders = plan(game, seat)
        fallen = [r for r in reminders if r.at <= now]
        later = [r for r in reminders if r.at > now]
        # Claim it: only the sweep whose update matches the due time it read goes on.
        claimed = session.execute(
            update(Seat)
            .where(Seat.id == seat_id, Seat.next_reminder_at == seat.next_reminder_at)  # type: ignore[arg-type]
            .values(
                next_reminder_at=later[0].at if later else None,
                reminders_sent=Seat.reminders_sent + 1,
            )
            .execution_options(synchronize_session=False)
        )
        if claimed.rowcount != 1:  # type: ignore[attr-defined]
            return False
        session.refresh(seat)
        player = session.get(Player, seat.player_id)
        assert player is not None
        if player.notify == "none" or game.status != "active":
            return False
        warning = bool(fallen) and fallen[-1].warning
        notify.queue(session, site, game, seat, "deadline_warning" if warning else "reminder", now)
        return True

    query = (
        select(Seat.id)
        .where(Seat.next_reminder_at <= now)  # type: ignore[operator]
        .order_by(Seat.next_reminder_at)  # type: ignore[arg-type]
        .limit(batch)
    )
    return _each_due(engine, query, handle)


def sweep_digests(engine: Engine, site: Any, now: datetime, batch: int) -> int:
    """Send each digest player, once a day, the list of games waiting for them."""
    from pbem import notify

    def handle(session: Session, player_id: Any) -> bool:
        player = session.get(Player, player_id)
        if player is None or player.next_digest_at is None or player.next_digest_at > now:
            return False
        claimed = session.execute(
            update(Player)
            .where(Player.id == player_id, Player.next_digest_at == player.next_digest_at)  # type: ignore[arg-type]
            .values(next_digest_at=next_digest(player, now) if player.notify == "digest" else None)
            .execution_options(synchronize_session=False)
        )
        if claimed.rowcount != 1 or player.notify != "digest":  # type: ignore[attr-defined]
            return False
        return notify.queue_digest(session, site, player, now)

    query = (
        select(Player.id)
        .where(Player.next_digest_at <= now)  # type: ignore[operator]
        .order_by(Player.next_digest_at)  # type: ignore[arg-type]
        .limit(batch)
    )
    return _each_due(engine, query, handle)


def sweep_vacations(engine: Engine, site: Any, now: datetime, batch: int) -> int:
    """Tell each player whose vacation has ended that their clocks run again."""
    from pbem import notify

    def handle(session: Session, vacation_id: Any) -> bool:
        claimed = session.execute(
            update(Vacation)
            .where(Vacation.id == vacation_id, Vacation.end_told.is_(False))  # type: ignore[arg-type,attr-defined]
            .values(end_told=True)
            .execution_options(synchronize_session=False)
        )
        if claimed.rowcount != 1:  # type: ignore[attr-defined]
            return False
        vacation = session.get(Vacation, vacation_id)
        player = session.get(Player, vacation.player_id) if vacation else None
        if vacation is None or player is None:
            return False
        notify.queue_player_mail(session, site, player, "vacation_end", now, {"vacation": vacation})
        return True

    query = (
        select(Vacation.id)
        .where(Vacation.end_told == False, Vacation.ends_at <= now)  # noqa: E712
        .order_by(Vacation.ends_at)  # type: ignore[arg-type]
        .limit(batch)
    )
    return _each_due(engine, query, handle)
