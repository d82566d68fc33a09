"""A rematch of a finished game: the same players and settings, asked for from its page.

Like pbem.play, every function takes the session it works in and the time `now`; the
caller owns the transaction.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, select

from pbem.errors import Gone
from pbem.models import Game, Player
from pbem.play import Invitee, create_game
from pbem.present.forms import TimeControl
from pbem.site import Site
from pbem.storage.store import lock_game, seats_of


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
