"""Where the rules meet storage: create and join games, apply moves, log them, queue the mail.

Every function takes the session it works in and the time `now`; the caller
owns the transaction, so a move, its log row and its mails commit together.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlmodel import Session, select

from pbem.clock import ScheduleError, parse_schedule, update_clocks
from pbem.games import GAMES, GameError, Message
from pbem.games import Game as Rules
from pbem.links import make_token, new_key
from pbem.mailer import neutralise_encoded_words
from pbem.models import Game, Move, Player, Seat
from pbem.notify import queue
from pbem.present.text import render

EMAIL = re.compile(r"^[^@\s<>\"',;]+@[^@\s<>\"',;]+\.[^@\s<>\"',;]+$")
NAME_MAX = 40


class PlayError(Exception):
    """A request the game cannot take; carries a catalogue key for the page."""

    status = 400

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


class Stale(PlayError):
    """The move was made for a turn that has already been played."""

    status = 409


class Gone(PlayError):
    """The game is not in a state that allows this."""

    status = 409


@dataclass
class Site:
    """What play needs to know of the site: the key that signs links and the public URL."""

    secret: str
    base_url: str
    mail_env: Any  # a jinja2 Environment over mail/
    domain: str = "pbem.local"

    def seat_url(self, seat: Seat) -> str:
        """The seat's own link."""
        token = make_token(self.secret, "seat", [seat.game_id, seat.seat, seat.link_key])
        return f"{self.base_url.rstrip('/')}/p/{token}"

    def watch_url(self, game: Game) -> str:
        """The game's spectator link."""
        token = make_token(self.secret, "watch", [game.id, game.watch_key])
        return f"{self.base_url.rstrip('/')}/w/{token}"

    def unsubscribe_url(self, player: Player) -> str:
        """The player's one-click unsubscribe link (RFC 8058)."""
        token = make_token(self.secret, "unsubscribe", [player.id, player.unsubscribe_key])
        return f"{self.base_url.rstrip('/')}/u/{token}"


@dataclass
class Invitee:
    """One player named in the new-game form."""

    name: str
    email: str
    lang: str = "en"


@dataclass
class Timing:
    """A game's time control: days per move (None: no limit), reminders, absences."""

    days_per_move: int | None = 3
    reminders: list[str] = field(default_factory=lambda: ["24h", "80%"])
    absent_after: int = 3

    def checked(self) -> Timing:
        """The same settings, validated; PlayError names a bad one."""
        if self.days_per_move is not None and not 1 <= self.days_per_move <= 14:
            raise PlayError("lobby.error.days_per_move")
        if not 1 <= self.absent_after <= 10:
            raise PlayError("lobby.error.absent_after")
        try:
            reminders = parse_schedule(self.reminders)
        except ScheduleError:
            raise PlayError("lobby.error.reminders") from None
        return Timing(self.days_per_move, reminders, self.absent_after)


# --- creating and joining -------------------------------------------------


def clean_name(name: str) -> str:
    """A display name with no control characters nor encoded words, trimmed to a sane length."""
    plain = re.sub(r"[\x00-\x1f\x7f\u2028\u2029]", "", name)
    # Mail headers: "=?...?=" would be decoded by mail software (CVE-2024-6923).
    return neutralise_encoded_words(plain).strip()[:NAME_MAX]


def check_invitees(
    rules: Rules, invitees: list[Invitee], options: dict[str, Any]
) -> dict[str, Any]:
    """Validate the players and options of a new game; PlayError names the first problem."""
    seen: set[str] = set()
    for number, person in enumerate(invitees, start=1):
        person.name = clean_name(person.name)
        person.email = person.email.strip().lower()
        if not person.name:
            raise PlayError("lobby.error.name_missing", number=number)
        if len(person.email) > 254 or not EMAIL.match(person.email):
            raise PlayError("lobby.error.email_invalid", number=number)
        if person.email in seen:
            raise PlayError("lobby.error.email_twice", email=person.email)
        seen.add(person.email)
    try:
        return rules.check_options(len(invitees), options)
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


def create_game(
    session: Session,
    site: Site,
    slug: str,
    invitees: list[Invitee],
    options: dict[str, Any],
    now: datetime,
    seed: int | None = None,
    timing: Timing | None = None,
) -> Game:
    """Create a game whose first invitee is its creator, and invite the others by mail."""
    if slug not in GAMES:
        raise PlayError("lobby.error.no_such_game")
    rules = GAMES[slug]
    opts = check_invitees(rules, invitees, options)
    timing = (timing or Timing()).checked()
    game = Game(
        slug=slug,
        options=opts,
        days_per_move=timing.days_per_move,
        reminders=timing.reminders,
        absent_after=timing.absent_after,
        seed=seed if seed is not None else secrets.randbits(62),
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
        player = player_for(session, person, now)
        seat = Seat(
            game_id=game.id,
            seat=number,
            player_id=player.id,
            name=person.name,
            status="joined" if number == 0 else "invited",
            link_key=new_key(),
        )
        session.add(seat)
        seats.append(seat)
    session.flush()
    for seat in seats:
        queue(session, site, game, seat, "created" if seat.seat == 0 else "invitation", now)
    return game


def seats_of(session: Session, game: Game) -> list[Seat]:
    """The game's seats in seat order."""
    return list(session.exec(select(Seat).where(Seat.game_id == game.id).order_by(Seat.seat)))


def lock_game(session: Session, game_id: int) -> Game:
    """The game row, locked for this transaction (SQLite is locked already by BEGIN IMMEDIATE)."""
    game = session.exec(select(Game).where(Game.id == game_id).with_for_update()).first()
    if game is None:
        raise PlayError("error.no_game")
    return game


def join(session: Session, site: Site, game_id: int, seat_no: int, now: datetime) -> Game:
    """Take the invited seat; the game starts when everyone has joined."""
    game = lock_game(session, game_id)
    seat = _seat(session, game, seat_no)
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
    seat = _seat(session, game, seat_no)
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
    _call_off(session, site, game, now, reason="cancelled", by=_seat(session, game, seat_no).name)
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


def start(session: Session, site: Site, game: Game, now: datetime) -> None:
    """Deal: set the game up from its seed and tell each player."""
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
            _tell_turn(session, site, game, seat, now)
        else:
            queue(session, site, game, seat, "started", now)


def _tell_turn(session: Session, site: Site, game: Game, seat: Seat, now: datetime) -> None:
    """A "your move" mail, unless the player chose digests, reminders only, or no mail."""
    player = session.get(Player, seat.player_id)
    if player is not None and player.notify == "every" and not seat.absent:
        queue(session, site, game, seat, "your_turn", now)


def _seat(session: Session, game: Game, seat_no: int) -> Seat:
    seat = session.exec(select(Seat).where(Seat.game_id == game.id, Seat.seat == seat_no)).first()
    if seat is None:
        raise PlayError("error.no_seat")
    return seat


# --- moves ------------------------------------------------------------------


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
    """Apply one move made for the turn `token`; a stale token changes nothing.

    Raises Stale, Gone, PlayError, or the game's IllegalMove; on any of them the
    caller's transaction is rolled back and nothing is written.
    """
    game = lock_game(session, game_id)
    if game.status != "active" or game.state is None:
        raise Gone("play.error.not_active")
    rules = GAMES[game.slug]
    state = game.state
    # Promise 2: a move carries the turn it was made for; a repeat or an old form is stale.
    check_turn(rules, state, seat_no, token)
    before_acting = set(rules.to_act(state))
    new_state = rules.apply(state, seat_no, move)
    seats = seats_of(session, game)
    lines = {str(s.seat): _to_json(rules.describe(state, seat_no, move, s.seat)) for s in seats}
    lines["watch"] = _to_json(rules.describe(state, seat_no, move, None))
    session.add(
        Move(
            game_id=game.id,
            ply=game.ply,
            seat=seat_no,
            move=move,
            source=source,
            lines=lines,
            created_at=now,
        )
    )
    game.state = new_state
    game.ply += 1
    game.updated_at = now
    outcome = rules.outcome(new_state)
    if outcome is not None:
        game.status = "over"
        game.finished_at = now
        game.outcome = {
            "scores": outcome.scores,
            "ranks": outcome.ranks,
            "breakdown": outcome.breakdown,
        }
    session.add(game)
    session.flush()  # the unique (game, ply) constraint fires here if a twin slipped through
    mover = seats[seat_no]
    newly_absent = _count_timeouts(game, mover, source)
    update_clocks(session, game, seats, before_acting, now)
    if outcome is not None:
        for seat in seats:
            queue(session, site, game, seat, "game_over", now)
        return
    # Mail only those who newly have to act; after a timeout, tell everyone else too.
    newly = {s for s in rules.to_act(new_state) if s not in before_acting}
    for seat in seats:
        if seat.seat in newly:
            _tell_turn(session, site, game, seat, now)
        elif source == "timeout" and not newly_absent:
            queue(session, site, game, seat, "timeout", now, extra={"who": mover.name})
    if newly_absent:
        for seat in seats:
            queue(session, site, game, seat, "absent", now, extra={"who": mover.name})


def _count_timeouts(game: Game, mover: Seat, source: str) -> bool:
    """Keep count of a seat's timeouts in a row; True when it has just become absent."""
    if source != "timeout":
        mover.timeouts_in_row = 0
        mover.absent = False  # a player who moves is back
        return False
    mover.timeouts_in_row += 1
    if not mover.absent and mover.timeouts_in_row >= game.absent_after:
        mover.absent = True
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


def log_lines(
    moves: list[Move], viewer: int | None, lang: str, names: list[str]
) -> list[dict[str, Any]]:
    """The move log as `viewer` may read it: ply, seat, source, time and sentences."""
    key = "watch" if viewer is None else str(viewer)
    return [
        {
            "ply": m.ply,
            "seat": m.seat,
            "source": m.source,
            "at": m.created_at,
            "text": [render(Message.from_json(x), lang, names) for x in m.lines.get(key, [])],
        }
        for m in moves
    ]


def moves_of(session: Session, game: Game, since: int = 0) -> list[Move]:
    """The game's moves from ply `since` on, in order."""
    return list(
        session.exec(
            select(Move).where(Move.game_id == game.id, Move.ply >= since).order_by(Move.ply)
        )
    )


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
