"""Leaving a game under way: a computer player takes the seat for good.

The caller owns the transaction.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from pbem.errors import Gone
from pbem.games import GAMES
from pbem.models import Game
from pbem.players.computers import LEVELS
from pbem.players.vacations import away_at, zones_of
from pbem.present.forms import TimeControl
from pbem.site import Site
from pbem.storage.store import lock_game, seat_of
from pbem.storage.versions import table_changed
from pbem.timing.deadlines import start_clock


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
