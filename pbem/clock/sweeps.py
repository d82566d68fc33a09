"""The sweeps: play the timeouts, send the reminders, digests and vacation ends that are due,
and score the bounce reports received (pbem.mailfix.score, claimed the same way).

Everything due is a row with an indexed due time (Seat.deadline,
Seat.next_reminder_at, Player.next_digest_at, Vacation.ends_at). A sweep handles
each due row in its own short transaction, which picks the soonest due row and
locks it (its game's row, for a seat) with FOR UPDATE SKIP LOCKED: a row another
sweep is handling is passed over, not waited for, so sweeps in several clock
processes share the due rows out (SQLite: BEGIN IMMEDIATE lets one pick run at a
time). The handler checks again under the lock (and claims with a conditional
UPDATE where a move may have changed the row), so a sweep can run twice, in two
clock processes at once, or be killed halfway: every due thing is done exactly
once, by whichever sweep picks it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, Update, update
from sqlmodel import Session, col, select

from pbem.config import Settings
from pbem.games import GAMES
from pbem.mailfix.score import sweep_bounces
from pbem.mailin import receive
from pbem.mailout import notify
from pbem.models import Game, Player, Seat, Vacation
from pbem.moves import submit_move
from pbem.opentables.queries import seats_open, table_of
from pbem.play import expire
from pbem.players import account, signin
from pbem.present.text import join_names
from pbem.site import Site
from pbem.storage import allowance
from pbem.storage.db import write_session
from pbem.storage.ratelimit import forget_expired
from pbem.storage.store import lock_game, player_of, seat_of
from pbem.timing.deadlines import next_digest, plan, stop_clock

log = logging.getLogger(__name__)
MAX_ROUNDS = 50  # a sweep stops after this many batches even if more keeps falling due


def at_most(batch: int) -> int:
    """The most rows of one kind a sweep handles: the next sweep takes the rest."""
    return MAX_ROUNDS * batch


def sweep(
    engine: Engine,
    site: Site,
    now: datetime,
    batch: int = 100,
    forming_days: int = 14,
    bounce_threshold: int = Settings.model_fields["bounce_threshold"].default,
) -> dict[str, int]:
    """Handle everything due at `now`: timeouts first, then reminders, digests, vacation ends,
    the games that never started (called off after `forming_days`; 0: never), and the
    bounce reports not yet scored (an address turns bouncing at `bounce_threshold`)."""
    with write_session(engine) as session:  # what has run its time, in one transaction
        forget_expired(session, now)
        allowance.forget_old(session, now)
        signin.forget_old(session, now)
        receive.forget_old(session, now)  # mail received by `pbem inbound`
    vacations: list[int] = []
    return {
        "timeouts": sweep_timeouts(engine, site, now, batch, vacations),
        "auto_vacations": len(vacations),  # deadlines met by vacation days: no timeout
        "reminders": sweep_reminders(engine, site, now, batch),
        "digests": sweep_digests(engine, site, now, batch),
        "vacations": sweep_vacations(engine, site, now, batch),
        **sweep_unstarted(engine, site, now, batch, forming_days),
        "bounces": sweep_bounces(engine, site, now, bounce_threshold, at_most(batch)),
    }


def each_due(engine: Engine, query: Any, handle: Callable[[Session, Any], bool], limit: int) -> int:
    """Pass the key of each row `query` picks (the soonest due, locked, skipping locked
    rows) to `handle`, each in its own transaction, until none is due, at most `limit`
    rows; return how many were handled.

    `handle` re-checks the row under its transaction and returns False when another sweep
    got there first, so a row is never handled twice. A row picked twice by one sweep (its
    handler left it due) ends the sweep: the next one tries it again.
    """
    done = 0
    picked: set[Any] = set()
    for _ in range(limit):
        with write_session(engine) as session:
            key = session.exec(query).first()
            if key is None or key in picked:
                break  # nothing due but what other sweeps hold, or a row left due
            picked.add(key)
            done += bool(handle(session, key))
    return done


def due_rows(query: Any, due: Any, now: datetime, locked: Any) -> Any:
    """`query`'s soonest row whose `due` time has come, with `locked`'s row locked for the
    transaction, or the next such one when another transaction holds that lock."""
    return (
        query.where(col(due) <= now)
        .order_by(col(due))
        .limit(1)
        .with_for_update(of=locked, skip_locked=True)
    )


def claim_row(session: Session, statement: Update) -> bool:
    """Run a conditional UPDATE; True when it changed the one row (this sweep got it first)."""
    result = session.execute(statement.execution_options(synchronize_session=False))
    return bool(getattr(result, "rowcount", 0) == 1)


def sweep_timeouts(
    engine: Engine, site: Site, now: datetime, batch: int, vacations: list[int] | None = None
) -> int:
    """Play the timeout move of every seat whose deadline has passed: how many were played.
    A seat whose player takes vacation days instead (automatic vacation) is no timeout: it
    is counted in `vacations`, one item (the game's id) each."""

    def handle(session: Session, key: Any) -> bool:
        game_id, seat_no = key
        game = lock_game(session, game_id)
        seat = seat_of(session, game_id, seat_no)
        if seat.deadline is None or seat.deadline > now:
            return False  # moved in time, or handled by another sweep
        rules = GAMES[game.slug]
        state = game.state
        if game.status != "active" or state is None or not rules.may_act(state, seat_no):
            stop_clock(seat)
            session.add(seat)
            return False
        player = player_of(session, seat)
        deadline = seat.deadline
        if not seat.absent and account.vacation_for_timeout(session, site, player, deadline, now):
            if vacations is not None:
                vacations.append(game_id)
            return False  # their clocks moved on by the vacation days taken: no timeout
        move = rules.timeout_move(state, seat_no)
        token = rules.turn_token(state, seat_no)
        submit_move(session, site, game_id, seat_no, move, token, now, source="timeout")
        return True

    # The game's row is the one locked: a move locks it too (lock_game), first.
    seats = select(Seat.game_id, Seat.seat).join(Game, col(Game.id) == col(Seat.game_id))
    return each_due(engine, due_rows(seats, Seat.deadline, now, Game), handle, at_most(batch))


def sweep_reminders(engine: Engine, site: Site, now: datetime, batch: int) -> int:
    """Send each reminder that has fallen due, once; after downtime only the latest of a turn."""

    def handle(session: Session, seat_id: Any) -> bool:
        seat = session.get(Seat, seat_id)
        if seat is None or seat.next_reminder_at is None or seat.next_reminder_at > now:
            return False
        game = session.get(Game, seat.game_id)
        if game is None:
            return False
        # Reminders fall in the time that counts, in the seat's player's zone (days off).
        reminders = plan(game, seat, player_of(session, seat).tz if game.days_off else "UTC")
        fallen = [r for r in reminders if r.at <= now]
        later = [r for r in reminders if r.at > now]
        # Claim it: only the sweep whose update matches the due time it read goes on.
        claim = (
            update(Seat)
            .where(col(Seat.id) == seat_id, col(Seat.next_reminder_at) == seat.next_reminder_at)
            .values(
                next_reminder_at=later[0].at if later else None,
                reminders_sent=col(Seat.reminders_sent) + 1,
            )
        )
        if not claim_row(session, claim):
            return False
        session.refresh(seat)
        if player_of(session, seat).notify == "none" or game.status != "active":
            return False
        warning = bool(fallen) and fallen[-1].warning
        tell = notify.telling(session, site, game, now)
        notify.queue(tell, seat, "deadline_warning" if warning else "reminder")
        tell.carry_out(session)
        return True

    seats = select(Seat.id).join(Game, col(Game.id) == col(Seat.game_id))
    return each_due(
        engine, due_rows(seats, Seat.next_reminder_at, now, Game), handle, at_most(batch)
    )


def sweep_digests(engine: Engine, site: Site, now: datetime, batch: int) -> int:
    """Send each digest player, once a day, the list of games waiting for them."""

    def handle(session: Session, player_id: Any) -> bool:
        player = session.get(Player, player_id)
        if player is None or player.next_digest_at is None or player.next_digest_at > now:
            return False
        following = next_digest(player, now) if player.notify == "digest" else None
        claim = (
            update(Player)
            .where(col(Player.id) == player_id, col(Player.next_digest_at) == player.next_digest_at)
            .values(next_digest_at=following)
        )
        if not claim_row(session, claim) or player.notify != "digest":
            return False
        return notify.queue_digest(session, site, player, now)

    due = due_rows(select(Player.id), Player.next_digest_at, now, Player)
    return each_due(engine, due, handle, at_most(batch))


def sweep_vacations(engine: Engine, site: Site, now: datetime, batch: int) -> int:
    """Tell each player whose vacation has ended that their clocks run again."""

    def handle(session: Session, vacation_id: Any) -> bool:
        claim = (
            update(Vacation)
            .where(col(Vacation.id) == vacation_id, col(Vacation.end_told).is_(False))
            .values(end_told=True)
        )
        if not claim_row(session, claim):
            return False
        vacation = session.get(Vacation, vacation_id)
        player = session.get(Player, vacation.player_id) if vacation else None
        if vacation is None or player is None:
            return False
        notify.queue_player_mail(
            session,
            site,
            player,
            "vacation_end",
            now,
            {"vacation": {"starts_at": vacation.starts_at, "ends_at": vacation.ends_at}},
        )
        return True

    untold = select(Vacation.id).where(Vacation.end_told == False)  # noqa: E712
    return each_due(
        engine, due_rows(untold, Vacation.ends_at, now, Vacation), handle, at_most(batch)
    )


WARNING_AHEAD = timedelta(days=1)  # the creator of a game that never started is warned


def sweep_unstarted(
    engine: Engine, site: Site, now: datetime, batch: int, days: int
) -> dict[str, int]:
    """Warn the creators of games still forming a day before `days` days have passed, then
    call those games off, at the earliest a day after the warning (a game found late, after
    downtime or an upgrade, still gets its day); 0 days: never."""
    if days <= 0:
        return {"expiry warnings": 0, "expired": 0}
    limit = timedelta(days=days)

    def warn(session: Session, game_id: Any) -> bool:
        game = lock_game(session, game_id)
        if game.status != "forming" or game.expiry_warned_at is not None:
            return False  # started, called off, or warned by another sweep
        game.expiry_warned_at = now
        session.add(game)
        tell = notify.telling(session, site, game, now)
        creator = tell.seats[game.creator_seat]
        player = player_of(session, creator)
        waiting = [s.name for s in tell.seats if s.status == "invited"]
        extra = {
            "days": days,
            "expires_at": max(game.created_at + limit, now + WARNING_AHEAD),
            "waiting_text": join_names(waiting, player.lang),
            # An open table waits for anyone, not for named players: how many seats are open.
            "open_seats": seats_open(tell.seats, table_of(session, game_id)),
        }
        notify.queue(tell, creator, "expiry_warning", extra=extra)
        tell.carry_out(session)
        return True

    def call_off(session: Session, game_id: Any) -> bool:
        game = lock_game(session, game_id)
        warned = game.expiry_warned_at
        if game.status != "forming" or warned is None or warned > now - WARNING_AHEAD:
            return False
        expire(session, site, game, now, days)
        return True

    forming = select(Game.id).where(Game.status == "forming")
    unwarned = forming.where(col(Game.expiry_warned_at).is_(None))
    warned = forming.where(col(Game.expiry_warned_at) <= now - WARNING_AHEAD)
    most = at_most(batch)
    return {
        "expiry warnings": each_due(
            engine,
            due_rows(unwarned, Game.created_at, now - limit + WARNING_AHEAD, Game),
            warn,
            most,
        ),
        "expired": each_due(
            engine, due_rows(warned, Game.created_at, now - limit, Game), call_off, most
        ),
    }
