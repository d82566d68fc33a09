"""The moves a move sets off, planned with it: the answers a Colour Bazaar seat's plan ahead
gives (pbem.games.ahead) and the moves a Fantasy Business seat's standing orders decide
(pbem.games.fantasy_business.standing), each checked again on the table as it is."""

from __future__ import annotations

from pbem.games import GAMES, GameError, ahead
from pbem.games import Game as Rules
from pbem.games.fantasy_business import FantasyBusiness
from pbem.games.fantasy_business.standing import standing_move
from pbem.models import Game, Seat
from pbem.moves.prepare import Prepared, Unreadable, applied


def ahead_chain(game: Game, seats: list[Seat], prepared: Prepared) -> list[Prepared]:
    """The move, then the answers it triggers from the plans the seats left (pbem.games.ahead),
    each checked again on the table as it is; a plan that does not fit is cancelled."""
    chain = [prepared]
    mover = seats[prepared.seat]
    if prepared.source != "ahead" and mover.ahead and not mover.ahead.get("tree"):
        # Its note (used, cancelled) was for the turn the seat just played; orders stay.
        mover.ahead = {"standing": mover.ahead["standing"]} if "standing" in mover.ahead else None
    rules = GAMES[game.slug]
    while chain[-1].outcome is None:
        last = chain[-1]
        if (auto := _standing_answer(rules, game, seats, last)) is not None:
            chain.append(auto)  # a Fantasy Business seat's standing orders decide its input
            continue
        acting = rules.to_act(last.new_state)
        if len(acting) != 1 or acting[0] == last.seat:
            break
        seat = seats[acting[0]]
        kept = seat.ahead or {}
        if not kept.get("tree") or seat.left or seat.absent:
            break
        branch = ahead.branch_for(kept["tree"], last.move)
        try:
            if branch is None:
                raise GameError("ahead.cancelled")
            state, ply, count = last.new_state, last.ply + 1, len(seats)
            answer = applied(
                rules, game.id or 0, state, ply, count, seat.seat, branch["then"], "ahead"
            )
        except (GameError, Unreadable):
            # Promise: a plan never plays a move the table no longer allows; its player moves.
            seat.ahead = {**kept, "tree": [], "note": "cancelled"}
            break
        seat.ahead = {**kept, "tree": branch.get("next") or [], "note": "used"}
        chain.append(answer)
    return chain


def _standing_answer(
    rules: Rules, game: Game, seats: list[Seat], last: Prepared
) -> Prepared | None:
    """The first move a waited-on seat's standing orders decide after `last`, or None."""
    if game.slug != FantasyBusiness.slug:
        return None
    for seat_no in rules.to_act(last.new_state):
        orders = (seats[seat_no].ahead or {}).get("standing")
        decided = standing_move(last.new_state, seat_no, orders)
        if decided is not None:
            state, ply, count = last.new_state, last.ply + 1, len(seats)
            return applied(rules, game.id or 0, state, ply, count, seat_no, decided, "standing")
    return None
