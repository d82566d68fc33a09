"""Reports and bars: a player reports another to the operator (PBEM_OPERATOR_EMAIL), with a
reason and where it happened (their page, or a message of table talk); the operator reads
it by a signed link, and may bar the account from open tables, leagues and ratings.

A report is mailed through the outbox like every mail; the operator's address is no
player's, so the sender renders it from the report row (render_report). A barred player
is told by mail, and again by the refusal whenever they try what the bar forbids.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, delete, select

from pbem.errors import PlayError
from pbem.models import Bar, Game, Player, PlayerSeek, Report, Seat, Talk, is_computer_email
from pbem.present.i18n import Moment
from pbem.site import BadLink, Site, read_token

REASON_MAX = 1000  # as a talk message: a report quotes at most what it is about
# Reports one player may send in a sliding day: enough for a bad evening, too few to make
# the operator's mailbox a target.
REPORTS_PER_DAY = 5
EVENT = "report"


class Barred(PlayError):
    """The account is barred from open tables, leagues and ratings."""

    status = 403

    def __init__(self) -> None:
        super().__init__("report.error.barred")


class TooMany(PlayError):
    """The reporter sent as many reports as a day takes."""

    status = 429


def is_barred(session: Session, player_id: int) -> bool:
    """Whether the operator barred this account."""
    return session.get(Bar, player_id) is not None


def refuse_barred(session: Session, player_id: int) -> None:
    """Refuse (Barred) what a barred account may not do: post or join an open table, keep a
    seek, make or join a league."""
    if is_barred(session, player_id):
        raise Barred()


def reason_of(raw: str) -> str:
    """The reason as kept: trimmed, not empty, at most REASON_MAX characters."""
    reason = raw.strip()
    if not reason:
        raise PlayError("report.error.reason")
    if len(reason) > REASON_MAX:
        raise PlayError("report.error.long", most=REASON_MAX)
    return reason


def report(
    session: Session,
    site: Site,
    reporter_id: int,
    reported_id: int,
    reason: str,
    now: datetime,
    talk: Talk | None = None,
) -> Report:
    """Keep a report and queue its mail to the operator, in the caller's transaction.

    Refused without an operator address (there is nobody to tell), of oneself or of a
    computer, and past REPORTS_PER_DAY in the last 24 hours (counted in this write, after
    the reporter's row is locked, so parallel posts cannot pass it together)."""
    if not site.operator_email:
        raise PlayError("report.error.off")
    if reporter_id == reported_id:
        raise PlayError("report.error.self")
    reported = session.get(Player, reported_id)
    if reported is None or is_computer_email(reported.email):
        raise PlayError("report.error.who")
    text = reason_of(reason)
    # The reporter's row, locked: one reporter's reports are counted one at a time.
    session.exec(select(Player.id).where(Player.id == reporter_id).with_for_update()).first()
    since = now - timedelta(days=1)
    counted = select(Report.created_at).where(
        Report.reporter_id == reporter_id, col(Report.created_at) > since
    )
    sent = session.exec(select(func.count()).select_from(counted.subquery())).one()
    if sent >= REPORTS_PER_DAY:
        # The next report fits once enough of these have left the 24 hours.
        leaving = counted.order_by(col(Report.created_at)).offset(sent - REPORTS_PER_DAY)
        frees = session.exec(leaving.limit(1)).one() + timedelta(days=1)
        zone = session.get(Player, reporter_id)
        time = Moment(frees, zone.tz if zone is not None else "UTC")
        raise TooMany("report.error.many", most=REPORTS_PER_DAY, time=time)
    row = Report(
        reporter_id=reporter_id,
        reported_id=reported_id,
        reason=text,
        game_id=talk.game_id if talk is not None else None,
        talk_id=talk.id if talk is not None else None,
        created_at=now,
    )
    session.add(row)
    session.flush()
    site.mail.operator_mail(session, site, EVENT, now, {"report": row.id})
    return row


def reported_talk(session: Session, game_id: int, seat_no: int, talk_id: int) -> tuple[Talk, int]:
    """The talk message a seat reports and its author's player: one the seat may read, by
    another seat's player; PlayError otherwise (as for a message that does not exist)."""
    message = session.get(Talk, talk_id)
    if message is None or message.game_id != game_id or message.seat == seat_no:
        raise PlayError("report.error.who")
    if message.to_seat is not None and message.to_seat != seat_no:
        raise PlayError("report.error.who")  # a private message to someone else
    author = session.exec(
        select(Seat.player_id).where(Seat.game_id == game_id, Seat.seat == message.seat)
    ).first()
    if author is None:
        raise PlayError("report.error.who")
    return message, author


@dataclass(frozen=True)
class Shown:
    """A report as the operator reads it."""

    id: int
    created_at: datetime
    reporter: str
    reporter_id: int
    reported: str
    reported_id: int
    reason: str
    game_id: int | None
    said: str | None  # the reported talk message
    watch_link: str | None


def shown(session: Session, site: Site, found: Report) -> Shown:
    """The report with its names, the message it names and the game's spectator link."""
    reporter = session.get(Player, found.reporter_id)
    reported = session.get(Player, found.reported_id)
    message = session.get(Talk, found.talk_id) if found.talk_id is not None else None
    game = session.get(Game, found.game_id) if found.game_id is not None else None
    return Shown(
        id=found.id or 0,
        created_at=found.created_at,
        reporter=reporter.name if reporter else "?",
        reporter_id=found.reporter_id,
        reported=reported.name if reported else "?",
        reported_id=found.reported_id,
        reason=found.reason,
        game_id=found.game_id,
        said=message.text if message is not None else None,
        watch_link=site.watch_url(game) if game is not None else None,
    )


def by_link(session: Session, site: Site, token: str) -> Shown | None:
    """The report a signed link names; None for a bad link or a report no longer kept."""
    try:
        payload = read_token(site.secret, "report", token)
    except BadLink:
        return None
    if len(payload) != 1 or type(payload[0]) is not int:
        return None
    found = session.get(Report, payload[0])
    return shown(session, site, found) if found is not None else None


def listed(session: Session, site: Site, limit: int = 50) -> list[Shown]:
    """The latest reports, newest first."""
    rows = session.exec(select(Report).order_by(col(Report.id).desc()).limit(limit))
    return [shown(session, site, r) for r in rows]


def render_report(session: Session, site: Site, report_id: object) -> tuple[str, dict[str, Any]]:
    """The operator's address and the mail's context for the report an outbox row names."""
    found = session.get(Report, report_id) if isinstance(report_id, int) else None
    if found is None or not site.operator_email:
        return "", {}
    about = shown(session, site, found)
    base = site.base_url.rstrip("/")
    return site.operator_email, {
        "report": about,
        "report_link": site.report_url(about.id),
        "reported_link": f"{base}/players/{about.reported_id}",
    }


def bar(session: Session, site: Site, player: Player, reason: str, now: datetime) -> bool:
    """Bar the account and tell its player by mail; whether it was not barred before."""
    if is_barred(session, player.id or 0):
        return False
    session.add(Bar(player_id=player.id or 0, reason=reason[:300], created_at=now))
    # Their standing seeks go: a seek would seat them at an open table later.
    session.exec(delete(PlayerSeek).where(col(PlayerSeek.player_id) == player.id))
    site.mail.player_mail(session, site, player, "barred", now)
    return True


def unbar(session: Session, site: Site, player: Player, now: datetime) -> bool:
    """Lift the bar and tell its player by mail; whether there was one."""
    if not is_barred(session, player.id or 0):
        return False
    session.exec(delete(Bar).where(col(Bar.player_id) == player.id))
    site.mail.player_mail(session, site, player, "unbarred", now)
    return True
