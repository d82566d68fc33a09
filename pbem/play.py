"""Where the rules meet storage: create and join games, apply moves, log them, queue the mail.

Every function takes the session it works in and the time `now`; the caller
owns the transaction, so a move, its log row and its mails commit together.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, select

from pbem.clock.deadlines import start_clock, update_clocks
from pbem.errors import Gone, PlayError, Stale
from pbem.games import GAMES, GameError, Message
from pbem.games import Game as Rules
from pbem.mailout.notify import queue
from pbem.models import Game, Move, Player, Seat
from pbem.players import presence
from pbem.players.computers import LEVELS, computer_player, is_computer_email
from pbem.players.links import Site, new_key
from pbem.present.forms import PlayersForm, TimeControl, clean_name
from pbem.storage.store import (
    id_of,
    lock_game,
    moves_of,
    player_of,
    seat_of,
    seats_of,
    seats_with_players,
)
from pbem.storage.writeplan import (
    NotCaptured,
    Plan,
    capturing,
    carry_out,
    move_game,
    plan_game,
    still_holds,
)
from pbem.webhooks.events import queue_events, read_once

log = logging.getLogger(__name__)


@dataclass
class Invitee:
    """One player named in the new-game form."""

    name: str
    email: str
    lang: str = "en"
    computer: str | None = None  # a computer player of this level takes the seat


# --- creating and joining -------------------------------------------------


def check_invitees(
    rules: Rules, invitees: list[Invitee], options: dict[str, Any]
) -> tuple[list[Invitee], dict[str, Any]]:
    """The players (cleaned) and options of a new game; PlayError names the first problem.

    A computer seat has a level and no address; the creator (the first row) is a person.
    """
    for number, person in enumerate(invitees, start=1):
        if person.computer is not None:
            if person.computer not in LEVELS:
                raise PlayError("lobby.error.level")
            if number == 1:
                raise PlayError("lobby.error.creator_computer")
    humans = [person for person in invitees if person.computer is None]
    checked = iter(PlayersForm.read([asdict(person) for person in humans]))
    people = []
    for number, person in enumerate(invitees, start=1):
        if person.computer is not None:
            name = clean_name(person.name) or f"{person.computer.title()} {number}"
            people.append(Invitee(name, "", person.lang, person.computer))
            continue
        human = next(checked)
        if is_computer_email(human.email):
            raise PlayError("lobby.error.email_invalid", number=number)  # the computers' own
        people.append(Invitee(human.name, human.email, human.lang))
    try:
        return people, rules.check_options(len(people), options)
    except GameError as exc:
        raise PlayError(exc.msg.key, **exc.msg.params) from None


def player_for(session: Session, person: Invitee, now: datetime) -> Player:
    """The player with this email, created if new."""
    player = session.exec(select(Player).where(Player.email == person.email)).first()
    if player is None:
        player = Player(email=person.email, name=person.name, lang=person.lang, created_at=now)
        session.add(player)
        session.flush()
    return player


def new_seed() -> int:
    """A new game's seed (its deal and every draw after): 62 random bits."""
    return secrets.randbits(62)


def create_game(
    session: Session,
    site: Site,
    slug: str,
    invitees: list[Invitee],
    options: dict[str, Any],
    now: datetime,
    seed: int | None = None,
    timing: TimeControl | None = None,
    creator_looking: bool = False,
) -> Game:
    """Create a game whose first invitee is its creator, and invite the others by mail.

    `creator_looking`: the creator is shown their seat page if the game starts at once (only
    computers besides them), so they get no mail of its start (issue 31: the page is open).
    """
    if slug not in GAMES:
        raise PlayError("lobby.error.no_such_game")
    rules = GAMES[slug]
    invitees, opts = check_invitees(rules, invitees, options)
    timing = timing or TimeControl()
    game = Game(
        slug=slug,
        options=opts,
        days_per_move=timing.days_per_move,
        reminders=timing.reminders,
        absent_after=timing.absent_after,
        takeover=timing.takeover,
        seed=seed if seed is not None else new_seed(),
        status="forming",
        creator_seat=0,
        watch_key=new_key(),
        created_at=now,
        updated_at=now,
    )
    session.add(game)
    session.flush()
    seats = []
    for number, person in enumerate(invitees):
        if person.computer is not None:
            player = computer_player(session, person.computer, now)
        else:
            player = player_for(session, person, now)
        seat = Seat(
            game_id=id_of(game),
            seat=number,
            player_id=id_of(player),
            name=person.name,
            # A computer player takes its seat at once; people join by their link.
            status="joined" if number == 0 or person.computer else "invited",
            computer=person.computer,
            link_key=new_key(),
        )
        session.add(seat)
        seats.append(seat)
    session.flush()
    if all(seat.status == "joined" for seat in seats):
        # One person and computer players: the game starts at once.
        start(session, site, game, now, looking={0} if creator_looking else set())
        return game
    for seat in seats:
        queue(session, site, game, seat, "created" if seat.seat == 0 else "invitation", now)
    return game


def join(session: Session, site: Site, game_id: int, seat_no: int, now: datetime) -> Game:
    """Take the invited seat; the game starts when everyone has joined."""
    game = lock_game(session, game_id)
    seat = seat_of(session, game_id, seat_no)
    if seat.status == "joined":
        return game  # a second click, or a click after the start: nothing to do
    if game.status != "forming":
        raise Gone("join.error.not_forming")
    seat.status = "joined"
    session.add(seat)
    game.updated_at = now
    session.flush()
    if all(s.status == "joined" for s in seats_of(session, game)):
        start(session, site, game, now)
    return game


def decline(session: Session, site: Site, game_id: int, seat_no: int, now: datetime) -> Game:
    """Refuse the invitation; the game cannot start, so it is called off and everyone told."""
    game = lock_game(session, game_id)
    seat = seat_of(session, game_id, seat_no)
    if game.status != "forming":
        raise Gone("join.error.not_forming")
    seat.status = "declined"
    session.add(seat)
    _call_off(session, site, game, now, reason="declined", by=seat.name)
    return game


def cancel(session: Session, site: Site, game_id: int, seat_no: int, now: datetime) -> Game:
    """The creator calls off a game that has not started."""
    game = lock_game(session, game_id)
    if seat_no != game.creator_seat:
        raise PlayError("join.error.not_creator")
    if game.status != "forming":
        raise Gone("join.error.not_forming")
    by = seat_of(session, game_id, seat_no).name
    _call_off(session, site, game, now, reason="cancelled", by=by)
    return game


def _call_off(
    session: Session, site: Site, game: Game, now: datetime, reason: str, by: str
) -> None:
    game.status = "cancelled"
    game.updated_at = now
    game.finished_at = now
    session.add(game)
    for seat in seats_of(session, game):
        if seat.status != "declined":
            queue(session, site, game, seat, "cancelled", now, extra={"reason": reason, "by": by})


def start(
    session: Session, site: Site, game: Game, now: datetime, looking: set[int] | None = None
) -> None:
    """Deal: set the game up from its seed and tell each player (by no mail the seats in
    `looking`, whose player has the page in front of them; webhooks still hear)."""
    looking = looking or set()
    rules = GAMES[game.slug]
    seats = seats_of(session, game)
    game.state = rules.setup(len(seats), game.options, game.seed)
    game.status = "active"
    game.ply = 0
    game.started_at = now
    game.updated_at = now
    session.add(game)
    update_clocks(session, game, seats, set(), now)
    acting = set(rules.to_act(game.state))
    for seat in seats:
        if seat.seat in acting:
            _tell_turn(session, site, game, seat, now, "looking" if seat.seat in looking else None)
        elif seat.seat not in looking:
            queue(session, site, game, seat, "started", now)


def _tell_turn(
    session: Session,
    site: Site,
    game: Game,
    seat: Seat,
    now: datetime,
    notify: str | None = None,
    seats: list[Seat] | None = None,
) -> None:
    """A "your move" mail, unless the player chose digests, reminders only, or no mail
    (webhooks hear of the turn either way); held a few minutes while the player looks at
    the game's page, which shows the move live (issue 31)."""
    choice = notify if notify is not None else player_of(session, seat).notify
    if choice == "every" and not seat.absent:
        hold = site.turn_mail_delay if presence.looking(seat, now) else None
        queue(session, site, game, seat, "your_turn", now, seats=seats, hold=hold)
    elif not seat.absent:
        # No mail, but a chat-room webhook still hears of the turn.
        names = [s.name for s in (seats if seats is not None else seats_of(session, game))]
        queue_events(session, site, game, seat, "your_turn", now, names)


# --- moves ------------------------------------------------------------------


@dataclass
class Prepared:
    """A move checked and applied to the game as it was read: what writing it needs."""

    game: Game  # as read, before the move
    seat: int
    move: dict[str, Any]
    source: str
    ply: int  # the ply the move was made at
    new_state: dict[str, Any]
    before_acting: set[int]
    lines: dict[str, Any]
    outcome: dict[str, Any] | None


def prepare_move(
    game: Game,
    seat_count: int,
    seat_no: int,
    move: dict[str, Any],
    token: str,
    source: str,
    left: bool = False,
) -> Prepared:
    """Check and apply a move to the game as read, writing nothing (no lock needed).

    `left`: the seat's player left the game (a computer plays it; no move from the web).
    Raises Gone, Stale, or the game's IllegalMove.
    """
    if game.status != "active" or game.state is None:
        raise Gone("play.error.not_active")
    rules = GAMES[game.slug]
    state = game.state
    # Promise 2: a move carries the turn it was made for; a repeat or an old form is stale.
    check_turn(rules, state, seat_no, token)
    if source == "web" and left:
        raise Gone("play.error.left")
    before_acting = set(rules.to_act(state))
    new_state = rules.apply(state, seat_no, move)
    lines = {
        str(viewer): _to_json(rules.describe(state, seat_no, move, viewer))
        for viewer in range(seat_count)
    }
    lines["watch"] = _to_json(rules.describe(state, seat_no, move, None))
    result = rules.outcome(new_state)
    outcome = None
    if result is not None:
        outcome = {"scores": result.scores, "ranks": result.ranks, "breakdown": result.breakdown}
    return Prepared(game, seat_no, move, source, game.ply, new_state, before_acting, lines, outcome)


def _move_values(prepared: Prepared, now: datetime) -> dict[str, Any]:
    """The game row's columns as the move leaves them."""
    values: dict[str, Any] = {"state": prepared.new_state, "ply": prepared.ply + 1}
    values["updated_at"] = now
    if prepared.outcome is not None:
        values.update(status="over", finished_at=now, outcome=prepared.outcome)
    return values


def _move_row(prepared: Prepared, now: datetime) -> dict[str, Any]:
    """The move's row in the log, as its columns."""
    return {
        "game_id": id_of(prepared.game),
        "ply": prepared.ply,
        "seat": prepared.seat,
        "move": prepared.move,
        "source": prepared.source,
        "lines": prepared.lines,
        "created_at": now,
    }


def plan_move(
    session: Session,
    site: Site,
    prepared: Prepared,
    now: datetime,
    table: list[tuple[Seat, Player, datetime | None]],
) -> Plan | None:
    """Work out a prepared move's clocks, mails and webhook events before the write lock,
    in the read session where the game and its `table` (store.table_of at `now`) were
    read, writing nothing; write_move then only writes them. The session is left empty.

    The prepared game takes the values the move gives it (as write_move would). None when
    the work tried a write a plan cannot carry (NotCaptured): write_move then works it out
    again under the lock, where that write is made too."""
    game = prepared.game
    values = _move_values(prepared, now)
    for name, value in values.items():
        set_committed_value(game, name, value)
    rows = [(seat, player) for seat, player, _ in table]
    away = {id_of(player): back for _, player, back in table if back is not None}
    seats = [seat for seat, _ in rows]
    try:
        with capturing(session, seats, [(Move, _move_row(prepared, now))]) as plan:
            plan_game(session, plan, id_of(game), prepared.ply, values)
            _after_move(session, site, prepared, now, rows, away)
    except NotCaptured as exc:
        log.error(
            "game %s ply %s: no plan, written the ordinary way (%s)", game.id, prepared.ply, exc
        )
        return None
    return plan


def write_move(
    session: Session, site: Site, prepared: Prepared, now: datetime, plan: Plan | None = None
) -> bool:
    """Write a prepared move, if the game is still at the ply it was prepared at (else Stale).

    The game row is changed by one conditional UPDATE, so the write lock is held only for
    the writes: the move, the clocks and the outbox rows (rendered later by the sender).
    With a `plan` (plan_move) those are written as planned, in a few statements, unless
    the seats or the table talk changed since it was made; then they are worked out again
    here, under the lock. True when the plan was written as made."""
    game = prepared.game
    talk_read = game.last_talk
    changed: Sequence[Any]
    if plan is None:
        values = _move_values(prepared, now)
        games = Game.__table__  # type: ignore[attr-defined]  # Core: the ORM's update steps cost
        changed = session.execute(
            update(games)
            .where(games.c.id == game.id, games.c.ply == prepared.ply, games.c.status == "active")
            .values(**values)
            .returning(games.c.last_talk)
        ).all()
        # The row is written: nothing left to flush.
        for name, value in values.items():
            set_committed_value(game, name, value)
    else:
        changed = move_game(session, plan)  # plan_move gave the game its values
    if len(changed) != 1:
        raise Stale("play.error.stale")
    if plan is not None and changed[0][0] == talk_read and still_holds(session, plan, id_of(game)):
        carry_out(session, plan)
        return True
    set_committed_value(game, "last_talk", changed[0][0])
    with session.no_autoflush:
        session.add(Move(**_move_row(prepared, now)))
        _after_move(session, site, prepared, now)
    return False


def _after_move(
    session: Session,
    site: Site,
    prepared: Prepared,
    now: datetime,
    rows: list[tuple[Seat, Player]] | None = None,
    away: dict[int, datetime] | None = None,
) -> None:
    """Clocks and mail after the move: the seats and their players are read once, here
    (or were, by plan_move, with who is on vacation: `away`); the game's webhooks too."""
    with read_once(session):
        _tell_after_move(session, site, prepared, now, rows, away)


def _tell_after_move(
    session: Session,
    site: Site,
    prepared: Prepared,
    now: datetime,
    rows: list[tuple[Seat, Player]] | None,
    away: dict[int, datetime] | None,
) -> None:
    game, source = prepared.game, prepared.source
    if rows is None:
        rows = seats_with_players(session, id_of(game))
    seats = [seat for seat, _ in rows]
    notify_choice = {seat.seat: player.notify for seat, player in rows}
    mover = seats[prepared.seat]
    newly_absent = _count_timeouts(game, mover, source)
    # A "your move" mail held while the mover looked is not sent now that they moved.
    presence.cancel_held(session, mover, prepared.ply)
    session.add(mover)
    update_clocks(session, game, seats, prepared.before_acting, now, away)
    if prepared.outcome is not None:
        for seat in seats:
            presence.cancel_held(session, seat, prepared.ply)  # the game is over: no turn
            queue(session, site, game, seat, "game_over", now, seats=seats)
        return
    # Mail only those who newly have to act; after a timeout, tell everyone else too.
    rules = GAMES[game.slug]
    newly = {s for s in rules.to_act(prepared.new_state) if s not in prepared.before_acting}
    for seat in seats:
        if seat.seat in newly:
            _tell_turn(session, site, game, seat, now, notify_choice[seat.seat], seats)
        elif source == "timeout" and not newly_absent:
            queue(session, site, game, seat, "timeout", now, {"who": mover.name}, seats)
    if newly_absent:
        for seat in seats:
            queue(session, site, game, seat, "absent", now, {"who": mover.name}, seats)


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
    """Apply one move made for the turn `token`, the game locked first; a stale token: nothing.

    Raises Stale, Gone, PlayError, or the game's IllegalMove; on any of them the
    caller's transaction is rolled back and nothing is written. (The web's move POST
    prepares the move without the lock and calls write_move.)
    """
    game = lock_game(session, game_id)
    seats = seats_of(session, game)
    left = 0 <= seat_no < len(seats) and seats[seat_no].left
    prepared = prepare_move(game, len(seats), seat_no, move, token, source, left)
    write_move(session, site, prepared, now)


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


def check_turn(rules: Rules, state: dict[str, Any], seat_no: int, token: str) -> None:
    """Refuse a form made for an earlier turn (Stale) or sent by a seat that may not act."""
    if token != rules.turn_token(state, seat_no):
        raise Stale("play.error.stale")
    if not rules.may_act(state, seat_no):
        raise Stale("play.error.not_your_turn")


def _to_json(messages: list[Message]) -> list[dict[str, Any]]:
    return [m.to_json() for m in messages]


def replay_problem(session: Session, game: Game) -> str | None:
    """Why replaying the game from its seed and log does not give its stored state, or None."""
    rules = GAMES[game.slug]
    if game.state is None:
        # Not dealt yet (forming, or called off before the start): nothing to replay.
        return "moves logged for a game never dealt" if moves_of(session, game) else None
    try:
        state = rules.setup(len(seats_of(session, game)), game.options, game.seed)
        for ply, move in enumerate(moves_of(session, game)):
            if move.ply != ply:
                return f"move log has a gap at ply {ply}"
            state = rules.apply(state, move.seat, move.move)
    except ValueError as exc:
        return f"replay fails: {exc}"
    if state != game.state:
        return "replayed state differs from the stored state"
    if game.ply != len(moves_of(session, game)):
        return "stored ply does not match the move log"
    return None


# --- rematches and leaving --------------------------------------------------


def rematch(session: Session, site: Site, game_id: int, seat_no: int, now: datetime) -> Game:
    """A new game with the same players, game and options, started by this seat.

    Computer seats keep their level; a player who left is invited back (a new game). The
    others get an invitation to join in one press. Asking twice, or after another
    player asked, gives the rematch already made.
    """
    game = lock_game(session, game_id)
    if game.status != "over":
        raise Gone("rematch.error.not_over")
    made = session.exec(select(Game).where(Game.rematch_of == game.id)).first()
    if made is not None:
        return made
    seats = seats_of(session, game)
    order = [seats[seat_no], *(s for s in seats if s.seat != seat_no)]
    invitees = []
    for seat in order:
        player = session.get(Player, seat.player_id)
        assert player is not None
        # A computer seat stays a computer at its level (its player's address is no person's);
        # a seat a computer took over when its player left goes back to that player.
        level = None if seat.left else seat.computer
        email = "" if level else player.email
        invitees.append(Invitee(seat.name, email, player.lang, level))
    options = dict(game.options)
    first = options.get("first")
    if isinstance(first, int):  # the same player starts, wherever their new seat is
        options["first"] = [s.seat for s in order].index(first)
    timing = TimeControl(
        days_per_move=game.days_per_move,
        reminders=list(game.reminders),
        absent_after=game.absent_after,
        takeover=game.takeover,
    )
    # The asker is sent to the new seat page at once: against computers only, the game
    # starts with them looking at it, so no start mail goes to them (issue 31).
    again = create_game(
        session, site, game.slug, invitees, options, now, timing=timing, creator_looking=True
    )
    again.rematch_of = game.id
    session.add(again)
    return again


def leaving_level(game: Game) -> str:
    """The computer level that takes a seat whose player leaves: the game's takeover level,
    or the default one when the game has none."""
    return game.takeover or TimeControl().takeover or LEVELS[0]


def leave(session: Session, site: Site, game_id: int, seat_no: int, now: datetime) -> None:
    """The player leaves: a computer player takes the seat for good, and the log says so."""
    game = lock_game(session, game_id)
    if game.status != "active" or game.state is None:
        raise Gone("leave.error.not_active")
    seat = seat_of(session, game_id, seat_no)
    if seat.left:
        return
    seat.left = True
    seat.computer = leaving_level(game)
    seat.absent = False
    seat.timeouts_in_row = 0
    if seat_no in GAMES[game.slug].to_act(game.state):
        start_clock(session, game, seat, now)  # the computer owes this turn from now
    session.add(seat)
    game.updated_at = now
    session.add(game)
