"""One path for a move, whoever makes it: prepared from the game as read, planned as plain
data, written in one short transaction.

The page, the API, a reply by mail, the timeout sweep and the computer players all move
through here. `prepare_move` checks the move and applies the rules to the game as read
(no lock). `plan_move` works out everything the move writes from the rows read: the log
row, the game row's new values, the seats' clocks, the mails and the webhook events, as
values (pbem.storage.writes), touching no database. `write_move` moves the game row on by
one UPDATE conditional on the ply (Stale if another move came first), checks that the
seats and the table talk are as the plan read them (else plans again from them as they
are, under the lock), and writes the plan. Nothing is written that the plan does not list.
A move's answers played ahead by plans or standing orders are planned with it (.chain).
The page and the API take Unreadable and check_turn from here with prepare_move (.prepare).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from pbem.counters import metrics
from pbem.errors import PlayError, Stale
from pbem.games import GAMES
from pbem.mailout.notify import Telling, queue
from pbem.models import Game, Move, Player, Seat, Webhook
from pbem.moves.chain import ahead_chain
from pbem.moves.prepare import Prepared, prepare_move
from pbem.moves.prepare import Unreadable as Unreadable
from pbem.moves.prepare import check_turn as check_turn
from pbem.players import presence
from pbem.ratings.outcomes import rate_game
from pbem.site import Site
from pbem.storage import rounds, versions
from pbem.storage.db import write_transaction
from pbem.storage.rawsql import DriverConnection, sqlalchemy_of
from pbem.storage.rows import game_and_table
from pbem.storage.store import id_of
from pbem.storage.writes import (
    Writes,
    lapse_take_back,
    move_game,
    seat_row,
    seats_now,
    update_seats,
)
from pbem.timing.deadlines import update_clocks
from pbem.webhooks.events import hooks_of_game, queue_events

log = logging.getLogger(__name__)


@dataclass
class TableRead:
    """What a move is planned from, read once: the game, its seats in order with their
    players' mail choices, who is on vacation (player id: back at), the game's webhooks."""

    game: Game
    seats: list[Seat]
    notify: dict[int, str]  # by seat number
    away: dict[int, datetime]
    hooks: list[Webhook]
    zones: dict[int, str] = field(default_factory=dict)  # time zones, by player id


def table_read(
    game: Game, table: list[tuple[Seat, Player, datetime | None]], hooks: list[Webhook]
) -> TableRead:
    """A TableRead from a game and its table (store.table_of) read by the caller."""
    return TableRead(
        game,
        [seat for seat, _, _ in table],
        {seat.seat: player.notify for seat, player, _ in table},
        {id_of(player): back for _, player, back in table if back is not None},
        hooks,
        {id_of(player): player.tz for _, player, _ in table},
    )


def read_table(session: Session, game_id: int, now: datetime) -> TableRead:
    """The game (locked) and what its move needs, read in the caller's write transaction as
    plain rows (pbem.storage.rows), in no session: the plan changes them as values. The
    session's own copies of these rows leave it, as they would be stale after the move."""
    session.flush()  # the caller's changes first, as a query through the session would
    found = game_and_table(session, game_id, now, lock=True)
    if found is None:
        raise PlayError("error.no_game")
    game, table = found
    _let_go(session, game_id, {id_of(player) for _, player, _ in table})
    read = table_read(game, table, hooks_of_game(session, game_id))
    for hook in read.hooks:
        session.expunge(hook)
    return read


def _let_go(session: Session, game_id: int, player_ids: set[int]) -> None:
    """Take the game's row, its seats and their players out of the session, if it holds them."""
    for row in list(session.identity_map.values()):
        if (
            (isinstance(row, Game) and row.id == game_id)
            or (isinstance(row, Seat) and row.game_id == game_id)
            or (isinstance(row, Player) and row.id in player_ids)
        ):
            session.expunge(row)


# --- planning -----------------------------------------------------------------


@dataclass
class Plan:
    """A move's writes as values: the game row's new values (written by a conditional
    UPDATE), what the plan was made from, and every other row it writes."""

    game_id: int
    ply: int
    game_values: dict[str, Any]
    talk_read: int  # the game's last_talk as read: the turn mails carry the talk up to it
    seats_read: list[tuple[Any, ...]]  # the seats as read (writes.seat_row)
    writes: Writes
    sources: tuple[str, ...] = ()  # the log sources of the moves planned, in order
    slug: str = ""  # the game's kind
    moves: list[dict[str, Any]] = field(default_factory=list)  # their rows in the log


def plan_move(site: Site, read: TableRead, prepared: Prepared, now: datetime) -> Plan:
    """Work out everything a prepared move writes, from `read`, touching no database: the
    move, then the answers the next seats' plans play ahead (pbem.games.ahead) in turn.

    The read game and seats take the values the moves give them: read no more from them."""
    game = read.game
    talk_read = game.last_talk
    before = [seat_row(seat) for seat in read.seats]
    chain = ahead_chain(game, read.seats, prepared)
    last = chain[-1]
    writes = Writes()  # the rounds the move releases from the state are new rows
    kept = rounds.released(writes, game.slug, prepared.game_id, last.new_state)
    values: dict[str, Any] = {"state": kept, "ply": prepared.ply + len(chain)}
    values["updated_at"] = now
    if last.outcome is not None:
        values.update(status="over", finished_at=now, outcome=last.outcome)
    for name, value in values.items():
        setattr(game, name, value)
    tell = Telling(site, game, read.seats, read.hooks, now, writes)
    rows = [_move_row(step, now) for step in chain]
    for row in rows:
        tell.writes.add(Move, row)
    _after_move(tell, chain, read.notify, read.away, read.zones)
    update_seats(tell.writes, before, read.seats)
    sources = tuple(step.source for step in chain)
    return Plan(
        prepared.game_id,
        prepared.ply,
        values,
        talk_read,
        before,
        tell.writes,
        sources,
        game.slug,
        rows,
    )


def _move_row(prepared: Prepared, now: datetime) -> dict[str, Any]:
    """The move's row in the log, as its columns."""
    return {
        "game_id": prepared.game_id,
        "ply": prepared.ply,
        "seat": prepared.seat,
        "move": prepared.move,
        "source": prepared.source,
        "lines": prepared.lines,
        "created_at": now,
    }


def _after_move(
    tell: Telling,
    chain: list[Prepared],
    notify: dict[int, str],
    away: dict[int, datetime],
    zones: dict[int, str],
) -> None:
    """The clocks and the mails the moves make (one mail for the state after the whole
    chain): those who newly have to act are told; the end of the game, a timeout and a seat
    newly absent are told to everyone."""
    game, seats, now = tell.game, tell.seats, tell.now
    first, last = chain[0], chain[-1]
    rules = GAMES[game.slug]
    # Seats due to act all along the chain keep their clocks; the others act anew.
    steady = set(first.before_acting)
    newly_absent = False
    for step in chain:
        newly_absent = _count_timeouts(game, seats[step.seat], step.source) or newly_absent
        # A "your move" mail held while the mover looked is not sent now that they moved.
        presence.cancel_held(tell.writes, seats[step.seat], step.ply)
        steady &= set(rules.to_act(step.new_state))
    mover = seats[first.seat]
    update_clocks(game, seats, steady, now, away, zones)
    if last.outcome is not None:
        for seat in seats:
            presence.cancel_held(tell.writes, seat, last.ply)  # the game is over: no turn
            queue(tell, seat, "game_over")
        return
    newly = {s for s in rules.to_act(last.new_state) if s not in steady}
    for seat in seats:
        if seat.seat in newly:
            tell_turn(tell, seat, notify[seat.seat])
        elif first.source == "timeout" and not newly_absent:
            queue(tell, seat, "timeout", {"who": mover.name})
    if newly_absent:
        for seat in seats:
            queue(tell, seat, "absent", {"who": mover.name})


def tell_turn(tell: Telling, seat: Seat, choice: str) -> None:
    """A "your move" mail, unless the player chose (`choice`) digests, reminders only, or no
    mail (webhooks hear of the turn either way); held a few minutes while the player looks
    at the game's page, which shows the move live (issue 31); `choice` "looking": the
    player has the page open as the game starts, and gets no mail."""
    if seat.absent:
        return
    if choice == "every":
        hold = tell.site.turn_mail_delay if presence.looking(seat, tell.now) else None
        # A plan ahead this move cancelled: the mail says so (its player alone reads it).
        cancelled = (seat.ahead or {}).get("note") == "cancelled"
        queue(tell, seat, "your_turn", {"plan_cancelled": True} if cancelled else None, hold)
    else:
        # No mail, but a chat-room webhook still hears of the turn.
        names = [s.name for s in tell.seats]
        queue_events(
            tell.writes, tell.hooks, tell.site, tell.game, seat, "your_turn", tell.now, names
        )


def _count_timeouts(game: Game, mover: Seat, source: str) -> bool:
    """Keep count of a seat's timeouts in a row; True when it has just become absent."""
    if source in ("computer", "left"):
        # A computer move for an absent seat (still absent), or for a seat whose player left.
        return False
    if source != "timeout":
        mover.timeouts_in_row = 0
        mover.absent = False  # a player who moves is back
        return False
    mover.timeouts_in_row += 1
    if not mover.absent and mover.timeouts_in_row >= game.absent_after:
        mover.absent = True
        if game.takeover:
            # From now on a computer plays the seat: its clock starts again as one.
            mover.turn_started_at = None
            mover.deadline = None
        return True
    return False


# --- writing ------------------------------------------------------------------


def write_move(
    session: Session, site: Site, prepared: Prepared, plan: Plan, now: datetime, via: str = "page"
) -> bool:
    """Write a planned move in the session's write transaction, if the game is still at
    the ply it was prepared at (else Stale). True when the plan was written as made; False
    when a seat or the talk had changed since its read, and it was planned again here,
    under the lock, from the rows as they are (a poll marked a seat seen, a vacation began).
    `via`: how a player's own move came (page or api), for the count of moves only."""
    written = _write(session.connection(), session, site, prepared, plan, now)
    metrics.moves_written(session, written.sources, via)  # counted once the caller commits
    return written is plan


def _write(
    connection: Connection | DriverConnection,
    session: Session | None,
    site: Site,
    prepared: Prepared,
    plan: Plan,
    now: datetime,
) -> Plan:
    """write_move's statements, on the connection's cursor; `session`: the caller's, for
    what needs the ORM (None: one made on the connection when it does). The plan written."""
    # The outcome breaks down rounds the stored state released: read back at the end only.
    rounds.whole_outcome(connection, plan.slug, plan.game_id, plan.game_values, plan.writes)
    moved = move_game(connection, plan.game_id, plan.ply, plan.game_values)
    if len(moved) != 1:
        raise Stale("play.error.stale")
    talk, version = moved[0]
    lapse_take_back(connection, plan.game_id, now)  # the next player moved: the move wins
    as_made = talk == plan.talk_read and seats_now(connection, plan.game_id) == plan.seats_read
    if not as_made:
        log.info(
            "game %s ply %s: the table changed since its read; planned again",
            plan.game_id,
            plan.ply,
        )
        # The game row holds the move already: the new read gives the game as it leaves it.
        with _orm(connection, session) as orm:
            plan = plan_move(site, read_table(orm, plan.game_id, now), prepared, now)
    plan.writes.carry_out(session or connection)
    # Open pages of the game are told (pbem.storage.versions), once the move is committed.
    versions.announce(connection, versions.TABLE_CHANNEL, plan.game_id, version)
    if plan.game_values.get("status") == "over":
        with _orm(connection, session) as orm:
            rate_game(orm, plan.game_id, now)  # a rated game's end moves ratings with it
            versions.game_ended(orm, plan.game_id)  # and its league's standings
    return plan


@contextmanager
def _orm(connection: Connection | DriverConnection, session: Session | None) -> Iterator[Session]:
    """The caller's session, or one in the connection's transaction, flushed at the end."""
    if session is not None:
        yield session
        return
    with Session(bind=sqlalchemy_of(connection), expire_on_commit=False) as made:
        yield made
        made.flush()


def play(
    engine: Engine,
    site: Site,
    read: TableRead,
    seat_no: int,
    move: dict[str, Any],
    token: str,
    now: datetime,
    via: str = "page",
) -> Plan | None:
    """A player's move through their link (`via` the page or the API: both log it as "web"),
    from the rows the request read: prepared and planned before the write lock, written in a
    transaction of its own on a connection (no ORM session: the plan is statements). The
    plan written, when written as made: `read` then holds the game and seats as the move
    left them (None: planned again under the lock; read them). Raises Gone, Stale (also
    when another move took the ply first) or the game's IllegalMove."""
    left = read.seats[seat_no].left
    prepared = prepare_move(read.game, len(read.seats), seat_no, move, token, "web", left)
    plan = plan_move(site, read, prepared, now)
    try:
        with write_transaction(engine) as connection:
            written = _write(connection, None, site, prepared, plan, now)
    except IntegrityError:
        raise Stale("play.error.stale") from None  # the same ply logged by another move
    metrics.moves_committed(written.sources, via)
    return plan if written is plan else None


def submit_move(
    session: Session,
    site: Site,
    game_id: int,
    seat_no: int,
    move: dict[str, Any],
    token: str,
    now: datetime,
    source: str = "web",
) -> None:
    """Apply one move made for the turn `token` in the caller's write transaction, the game
    locked first (a reply by mail, a timeout, a computer's move). The game and seats read
    here leave the session: read them again after. Raises Stale, Gone, PlayError, or the
    game's IllegalMove; on any of them the caller's transaction is to be rolled back."""
    read = read_table(session, game_id, now)
    left = 0 <= seat_no < len(read.seats) and read.seats[seat_no].left
    prepared = prepare_move(read.game, len(read.seats), seat_no, move, token, source, left)
    write_move(session, site, prepared, plan_move(site, read, prepared, now), now)
