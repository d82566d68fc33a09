"""What a seated player may ask of the server beside a move: a rematch of a finished game,
leaving a game under way to a computer player, and standing orders played at once.

Like pbem.play, every function takes the session it works in and the time `now`; the
caller owns the transaction.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session, select

from pbem.clock.deadlines import away_at, start_clock, zones_of
from pbem.errors import Gone
from pbem.games import GAMES
from pbem.games.fantasy_business.standing import standing_move
from pbem.models import Game, Player
from pbem.moves import plan_move, prepare_move, read_table, write_move
from pbem.plans import seat_orders
from pbem.play import Invitee, create_game
from pbem.players.computers import LEVELS
from pbem.players.links import Site
from pbem.present.forms import TimeControl
from pbem.storage.store import lock_game, seat_of, seats_of
from pbem.storage.versions import table_changed


def rematch(
    session: Session, site: Site, game_id: int, seat_no: int, now: datetime, share: str = ""
) -> Game:
    """A new game with the same players, game and options, started by this seat, which
    gives `share` to its deal.

    Computer seats keep their level; a player who left is invited back (a new game). The
    others get an invitation to join in one press (giving their own share there). Asking
    twice, or after another player asked, gives the rematch already made.
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
        clock=game.clock,
        clock_add=game.clock_add,
        clock_cap=game.clock_cap,
        days_off=list(game.days_off),
    )
    # The asker is sent to the new seat page at once: against computers only, the game
    # starts with them looking at it, so no start mail goes to them (issue 31).
    again = create_game(
        session,
        site,
        game.slug,
        invitees,
        options,
        now,
        timing=timing,
        creator_looking=True,
        share=share,
        rated=game.rated,  # a rematch is played for what the game was
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
        # The computer owes this turn from now.
        start_clock(game, seat, now, away_at(session, [seat], now), zones_of(session, [seat]))
    session.add(seat)
    game.updated_at = now
    session.add(game)
    table_changed(session, game_id)  # the others' open pages: a computer plays the seat now


def keep_orders(
    session: Session, site: Site, game_id: int, seat_no: int, orders: Any, now: datetime
) -> dict[str, Any]:
    """Keep a seat's standing orders (pbem.plans.seat_orders) and play at once what they
    decide at the step under way; the orders as kept. In the caller's write transaction;
    Gone outside a Fantasy Business game under way, IllegalMove for wrong orders."""
    kept = seat_orders.set_orders(session, game_id, seat_no, orders)
    play_standing(session, site, game_id, seat_no, now)
    return kept


def play_standing(session: Session, site: Site, game_id: int, seat_no: int, now: datetime) -> bool:
    """Play at once the move a seat's standing orders, just set, decide at the step under way,
    through the one move path (in the caller's write transaction); True when one was played."""
    read = read_table(session, game_id, now)
    game, seat = read.game, read.seats[seat_no]
    if game.status != "active" or game.state is None:
        return False
    decided = standing_move(game.state, seat_no, (seat.ahead or {}).get("standing"))
    if decided is None or game.slug != "fantasy-business":
        return False
    token = GAMES[game.slug].turn_token(game.state, seat_no)
    prepared = prepare_move(game, len(read.seats), seat_no, decided, token, "standing")
    write_move(session, site, prepared, plan_move(site, read, prepared, now), now)
    return True
