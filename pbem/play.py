"""Where the rules meet storage for the lobby: create, join, start and call off games, and
replay one to check it (the moves themselves: pbem.moves; a rematch, leaving a game and
standing orders: pbem.seats, pbem.plans.play_orders).

Every function takes the session it works in and the time `now`; the caller
owns the transaction, so a change and its mails commit together.
"""

from __future__ import annotations

import secrets
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session, select

from pbem.errors import Gone, PlayError
from pbem.games import GAMES, GameError, fairdeal
from pbem.games import Game as Rules
from pbem.mailout.notify import new_thread, queue, telling
from pbem.models import Game, Player, Seat, is_computer_email
from pbem.moves import tell_turn
from pbem.players.computers import LEVELS, computer_player
from pbem.players.invitations import count_invitations
from pbem.players.vacations import away_at, zones_of
from pbem.present.forms import PlayersForm, TimeControl, clean_name
from pbem.present.replay import states
from pbem.site import Site, new_key
from pbem.storage.rounds import viewed_state
from pbem.storage.store import (
    id_of,
    lock_game,
    moves_of,
    player_of,
    seat_of,
    seats_of,
    seats_with_players,
    shuffles_of,
)
from pbem.storage.versions import table_changed
from pbem.timing.deadlines import update_clocks


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
    share: str = "",
    rated: bool = False,
    invite: bool = True,
    counted: bool = False,
    sent_by: int | None = None,
) -> Game:
    """Create a game whose first invitee is its creator, and invite the others by mail.

    Without a `seed`, the deal is a checkable one (pbem.games.fairdeal): sealed now, fixed
    at the start from the server's secret and every seat's share (`share`: the creator's).
    `creator_looking`: the creator is shown their seat page if the game starts at once (only
    computers besides them), so they get no mail of its start (issue 31: the page is open).
    `invite` False: no invitation mails (a league's members agreed by joining it, and its
    round mail names the game). `counted`: the invitations count against the creator's and
    each invitee's allowances (pbem.players.invitations; the lobby's form), the sending
    against `sent_by`'s when given (the form's sender, who may not be the creator named).
    """
    if slug not in GAMES:
        raise PlayError("lobby.error.no_such_game")
    rules = GAMES[slug]
    invitees, opts = check_invitees(rules, invitees, options)
    game = _new_game(session, site, slug, opts, timing, seed, now, rated)
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
            share=read_share(share) if number == 0 else "",
        )
        session.add(seat)
        seats.append(seat)
    session.flush()
    if all(seat.status == "joined" for seat in seats):
        # One person and computer players: the game starts at once.
        start(session, site, game, now, looking={0} if creator_looking else set())
        return game
    if not invite:
        return game
    if counted:
        people = [player_of(session, seat) for seat in seats if seat.computer is None]
        # Issue 48: no mail cannon.
        count_invitations(session, people[0], people[1:], now, sent_by=sent_by)
    tell = telling(session, site, game, now)
    for seat in tell.seats:
        queue(tell, seat, "created" if seat.seat == 0 else "invitation")
    tell.carry_out(session)
    return game


def _new_game(
    session: Session,
    site: Site,
    slug: str,
    opts: dict[str, Any],
    timing: TimeControl | None,
    seed: int | None,
    now: datetime,
    rated: bool = False,
) -> Game:
    """A new forming game's row, added and given its id and its thread: checkable deal
    sealed unless `seed` is given."""
    timing = timing or TimeControl()
    secret, salt = fairdeal.new_secret() if seed is None else (None, None)
    clock_add, clock_cap = timing.clock_settings()
    game = Game(
        slug=slug,
        options=opts,
        days_per_move=timing.days_per_move,
        reminders=timing.reminders,
        absent_after=timing.absent_after,
        takeover=timing.takeover,
        clock=timing.clock,
        clock_add=clock_add,
        clock_cap=clock_cap,
        days_off=timing.days_off,
        # A checkable deal's seed is derived at the start; until then it is a random stand-in.
        seed=seed if seed is not None else new_seed(),
        deal_secret=secret,
        deal_salt=salt,
        status="forming",
        creator_seat=0,
        watch_key=new_key(),
        created_at=now,
        updated_at=now,
        rated=rated,  # its end moves the players' ratings (pbem.ratings.outcomes)
    )
    session.add(game)
    session.flush()
    # Its thread is fixed now, so every later mail threads with the first, on every host.
    game.thread = new_thread(site, game.id)
    return game


def open_game(
    session: Session,
    site: Site,
    creator: Player,
    slug: str,
    seats: int,
    options: dict[str, Any],
    now: datetime,
    timing: TimeControl | None = None,
    share: str = "",
    rated: bool = False,
) -> Game:
    """A game open to anyone signed in (pbem.opentables): the creator's seat joined, the
    others taken one by one as players join; it starts when the last seat is taken."""
    if slug not in GAMES:
        raise PlayError("lobby.error.no_such_game")
    try:
        opts = GAMES[slug].check_options(seats, options)
    except GameError as exc:
        raise PlayError(exc.msg.key, **exc.msg.params) from None
    game = _new_game(session, site, slug, opts, timing, None, now, rated)
    seat = Seat(
        game_id=id_of(game),
        seat=0,
        player_id=id_of(creator),
        name=creator.name,
        status="joined",
        link_key=new_key(),
        share=read_share(share),
    )
    session.add(seat)
    session.flush()
    return game


def read_share(share: str) -> str:
    """A player's share of a checkable deal as kept: trimmed, or refused when too long."""
    share = share.strip()
    if len(share) > fairdeal.SHARE_MAX:
        raise PlayError("join.error.share", limit=fairdeal.SHARE_MAX)
    return share


def join(
    session: Session,
    site: Site,
    game_id: int,
    seat_no: int,
    now: datetime,
    share: str = "",
    started_mail: bool = True,
) -> Game:
    """Take the invited seat, giving `share` to a checkable deal; the game starts when
    everyone has joined (`started_mail` False: with no "started" mails, see start)."""
    share = read_share(share)
    game = lock_game(session, game_id)
    seat = seat_of(session, game_id, seat_no)
    if seat.status == "joined":
        return game  # a second click, or a click after the start: nothing to do
    if game.status != "forming":
        raise Gone("join.error.not_forming")
    seat.status = "joined"
    seat.share = share
    session.add(seat)
    game.updated_at = now
    session.flush()
    if all(s.status == "joined" for s in seats_of(session, game)):
        start(session, site, game, now, started_mail=started_mail)
    else:
        table_changed(session, game_id)  # the others' open pages show who has joined
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


def expire(session: Session, site: Site, game: Game, now: datetime, days: int) -> None:
    """Call off a game (locked by the caller) still forming after `days` days; everyone
    invited who did not decline is told why."""
    by = seat_of(session, id_of(game), game.creator_seat).name
    _call_off(session, site, game, now, reason="expired", by=by, days=days)


def _call_off(
    session: Session, site: Site, game: Game, now: datetime, reason: str, by: str, days: int = 0
) -> None:
    game.status = "cancelled"
    game.updated_at = now
    game.finished_at = now
    session.add(game)
    table_changed(session, id_of(game))
    tell = telling(session, site, game, now)
    for seat in tell.seats:
        if seat.status != "declined":
            queue(tell, seat, "cancelled", extra={"reason": reason, "by": by, "days": days})
    tell.carry_out(session)


def start(
    session: Session,
    site: Site,
    game: Game,
    now: datetime,
    looking: set[int] | None = None,
    started_mail: bool = True,
) -> None:
    """Deal: set the game up from its seed and tell each player (by no mail the seats in
    `looking`, whose player has the page in front of them; webhooks still hear).
    `started_mail` False: those not to act get no "started" mail (a league's round mail
    lists the game); those to act still get their turn mail."""
    looking = looking or set()
    rules = GAMES[game.slug]
    table = seats_with_players(session, id_of(game))
    seats = [seat for seat, _ in table]
    if game.deal_secret is not None:
        # The deal sealed when the game was made, with every seat's share in seat order.
        game.seed = fairdeal.seed_of(game.deal_secret, [seat.share for seat in seats])
    game.state = rules.setup(len(seats), game.options, game.seed)
    game.status = "active"
    game.ply = 0
    game.started_at = now
    game.updated_at = now
    session.add(game)
    table_changed(session, id_of(game))  # the open pages of those who joined show the deal
    update_clocks(game, seats, set(), now, away_at(session, seats, now), zones_of(session, seats))
    acting = set(rules.to_act(game.state))
    tell = telling(session, site, game, now)
    for seat, player in table:
        if seat.seat in acting:
            tell_turn(tell, seat, "looking" if seat.seat in looking else player.notify)
        elif seat.seat not in looking and started_mail:
            queue(tell, seat, "started")
    tell.carry_out(session)


def replay_problem(session: Session, game: Game) -> str | None:
    """Why replaying the game from its seed and log does not give its stored state, or None."""
    if game.state is None:
        # Not dealt yet (forming, or called off before the start): nothing to replay.
        return "moves logged for a game never dealt" if moves_of(session, game) else None
    moves = moves_of(session, game)
    for ply, move in enumerate(moves):
        if move.ply != ply:
            return f"move log has a gap at ply {ply}"
    try:
        *_, state = states(game, len(seats_of(session, game)), moves, shuffles_of(session, game))
    except ValueError as exc:
        return f"replay fails: {exc}"
    # The stored state with the rounds it released read back: the replay holds every round.
    if state != viewed_state(session, game):
        return "replayed state differs from the stored state"
    if game.ply != len(moves_of(session, game)):
        return "stored ply does not match the move log"
    return None
