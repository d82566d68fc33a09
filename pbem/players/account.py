"""A player's own settings: language, time zone, which mails, vacations, coming back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlmodel import Session, col, select

from pbem.errors import PlayError
from pbem.models import Player, Vacation
from pbem.players.vacations import away_at, shift_player_clocks, vacation_covering, zones_of
from pbem.present.i18n import languages
from pbem.present.timefmt import valid_zone
from pbem.site import Site
from pbem.storage.store import find_seat, id_of, lock_game, seat_of
from pbem.storage.versions import table_changed
from pbem.timing.deadlines import next_digest, start_clock

NOTIFY_CHOICES = ("every", "digest", "reminders", "none")


def save_settings(
    session: Session,
    player: Player,
    lang: str,
    tz: str,
    notify: str,
    now: datetime,
    auto_vacation: bool | None = None,
    page_public: bool | None = None,
) -> None:
    """Store the player's language, time zone, mail choice and (when given) whether the server
    takes vacation days for them instead of a timeout, and whether others see their page."""
    if lang not in languages():
        raise PlayError("settings.error.lang")
    if not valid_zone(tz):
        raise PlayError("settings.error.tz")
    if notify not in NOTIFY_CHOICES:
        raise PlayError("settings.error.notify")
    player.lang, player.tz, player.notify = lang, tz, notify
    if auto_vacation is not None:
        player.auto_vacation = auto_vacation
    if page_public is not None:
        player.page_public = page_public
    player.next_digest_at = next_digest(player, now) if notify == "digest" else None
    session.add(player)


def unsubscribe(session: Session, player: Player) -> None:
    """One-click unsubscribe: no more turn mails, reminders or digests."""
    player.notify = "none"
    player.next_digest_at = None
    session.add(player)


def days_used(session: Session, player: Player, year: int) -> int:
    """Vacation days the player has taken or planned in a calendar year."""
    start = datetime(year, 1, 1, tzinfo=UTC)
    end = datetime(year + 1, 1, 1, tzinfo=UTC)
    total = timedelta(0)
    for vacation in session.exec(select(Vacation).where(Vacation.player_id == player.id)):
        overlap = min(vacation.ends_at, end) - max(vacation.starts_at, start)
        total += max(overlap, timedelta(0))
    return -(-int(total.total_seconds()) // 86400)  # whole days, rounded up


def current_vacation(session: Session, player: Player, now: datetime) -> Vacation | None:
    """The vacation under way or still to come, if any."""
    return session.exec(
        select(Vacation)
        .where(Vacation.player_id == player.id, Vacation.ends_at > now)
        .order_by(col(Vacation.starts_at))
    ).first()


def start_vacation(
    session: Session, site: Site, player: Player, days: int, now: datetime
) -> Vacation:
    """Stop the player's clocks for `days` days from now, in all their games."""
    if current_vacation(session, player, now) is not None:
        raise PlayError("settings.error.already_away")
    left = player.vacation_days - days_used(session, player, now.year)
    if days > left:
        raise PlayError("settings.error.allowance", left=max(left, 0))
    vacation = Vacation(
        player_id=id_of(player), starts_at=now, ends_at=now + timedelta(days=days), created_at=now
    )
    session.add(vacation)
    # Deadlines and reminders move on by the length of the vacation.
    shift_player_clocks(session, id_of(player), now, timedelta(days=days), now)
    session.flush()
    site.mail.player_mail(
        session,
        site,
        player,
        "vacation_start",
        now,
        {"vacation": _dates(vacation), "days_left": left - days},
    )
    return vacation


def vacation_for_timeout(
    session: Session, site: Site, player: Player, deadline: datetime, now: datetime
) -> bool:
    """A deadline of a player who chose automatic vacation has passed: take the days needed
    from their allowance instead of a timeout, and tell them; False when none are left."""
    if not player.auto_vacation:
        return False
    days = (now - deadline) // timedelta(days=1) + 1  # enough that the deadline is ahead again
    left = player.vacation_days - days_used(session, player, now.year)
    if days > left or vacation_covering(session, id_of(player), now) is not None:
        return False
    # From the moment the clock ran out; no "welcome back" mail for a day the server took.
    vacation = Vacation(
        player_id=id_of(player),
        starts_at=deadline,
        ends_at=deadline + timedelta(days=days),
        end_told=True,
        created_at=now,
    )
    session.add(vacation)
    # Every clock of theirs moves on, as with a vacation they took, the overdue ones too.
    shift_player_clocks(
        session, id_of(player), datetime.min.replace(tzinfo=UTC), timedelta(days=days), now
    )
    session.flush()
    site.mail.player_mail(
        session,
        site,
        player,
        "auto_vacation",
        now,
        {"vacation": _dates(vacation), "days": days, "days_left": left - days},
    )
    return True


def _dates(vacation: Vacation) -> dict[str, datetime]:
    """What a mail says of a vacation: when it starts and ends."""
    return {"starts_at": vacation.starts_at, "ends_at": vacation.ends_at}


def end_vacation(session: Session, player: Player, now: datetime) -> None:
    """Come back early: the clocks run again and the unused days return to the allowance."""
    vacation = vacation_covering(session, id_of(player), now)
    if vacation is None:
        raise PlayError("settings.error.not_away")
    unused = vacation.ends_at - now
    vacation.ends_at = now
    session.add(vacation)
    shift_player_clocks(session, id_of(player), now, -unused, now)


def come_back(session: Session, game_id: int, seat_no: int, now: datetime) -> None:
    """An absent player takes their seat back; their turns wait for them again."""
    game = lock_game(session, game_id)
    seat = seat_of(session, game_id, seat_no)
    seat.absent = False
    seat.timeouts_in_row = 0
    if seat.turn_started_at is not None:
        # A full turn's time for the move now due.
        start_clock(game, seat, now, away_at(session, [seat], now), zones_of(session, [seat]))
    session.add(seat)
    table_changed(session, game_id)  # no longer shown absent, nor played by a computer


def add_time(session: Session, game_id: int, by_seat: int, seat_no: int, days: int) -> None:
    """The creator gives a seat more time on its current move."""
    game = lock_game(session, game_id)
    if by_seat != game.creator_seat:
        raise PlayError("extend.error.not_creator")
    if not 1 <= days <= 14:
        raise PlayError("extend.error.days")
    seat = find_seat(session, game_id, seat_no)
    if seat is None or seat.deadline is None or game.status != "active" or seat.absent:
        raise PlayError("extend.error.no_deadline")
    seat.deadline += timedelta(days=days)
    session.add(seat)
    table_changed(session, game_id)  # the seat's new deadline, on every open page
