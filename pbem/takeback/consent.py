"""Undo with consent: until the next player has moved, the mover may ask to take back their
last move; the next player allows or refuses.

An allowed take back rebuilds the game before the move by replaying its seed and log
without it (pbem.present.replay), so a card the move drew goes back on top of the pile and
the pile keeps its order. The move leaves the log and stays as the TakeBack's record; the
mover's clock starts again and they get their turn again. A request lapses as soon as the
next player moves (pbem.moves drops it in the move's transaction): the move wins.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import and_, bindparam, or_
from sqlalchemy import select as core_select
from sqlmodel import Session, col, select

from pbem.errors import Gone, PlayError, Stale
from pbem.games import GAMES, fairdeal
from pbem.mailout.notify import queue, telling
from pbem.models import Game, Move, Player, Seat, TakeBack, level_for
from pbem.moves import tell_turn
from pbem.players import presence
from pbem.players.vacations import away_at
from pbem.present.replay import states
from pbem.site import Site
from pbem.storage.store import lock_game, moves_of, player_of, shuffles_of
from pbem.storage.versions import table_changed
from pbem.timing.deadlines import update_clocks
from pbem.webhooks.events import queue_events

# Fantasy Business plays secret steps side by side: no one move is "the last one".
GAMES_WITH_TAKE_BACK = {"colour-bazaar"}
# A move the server made (a timeout, a computer) is nobody's to take back.
TAKEN_BACK_SOURCES = {"web", "mail", "api", "cli"}


# The page's reads, built once (a page cost more building them than running them): the
# game's take backs waiting or asked at the last ply; the last move's seat and source with
# the seat to act's computer and absence (no move, no log lines).
_ASKED = core_select(
    col(TakeBack.seat), col(TakeBack.to_seat), col(TakeBack.ply), col(TakeBack.answer)
).where(
    col(TakeBack.game_id) == bindparam("game_id"),
    or_(col(TakeBack.answer) == "", col(TakeBack.ply) == bindparam("ply")),
)
_LAST = (
    core_select(
        col(Move.ply), col(Move.seat), col(Move.source), col(Seat.computer), col(Seat.absent)
    )
    .outerjoin(
        Seat, and_(col(Seat.game_id) == col(Move.game_id), col(Seat.seat) == bindparam("acting"))
    )
    .where(col(Move.game_id) == bindparam("game_id"), col(Move.ply) == bindparam("ply"))
)


class Moved(Protocol):
    """What may_ask reads of the last move: a Move, or a row with these columns."""

    @property
    def ply(self) -> int: ...

    @property
    def seat(self) -> int: ...

    @property
    def source(self) -> str: ...


class Pending(PlayError):
    """The game has a take back waiting for its answer already."""

    status = 409


def pending(session: Session, game_id: int) -> TakeBack | None:
    """The game's take back waiting for an answer, if any."""
    query = select(TakeBack).where(TakeBack.game_id == game_id, TakeBack.answer == "")
    return session.exec(query).first()


def allowed(session: Session, game: Game) -> list[TakeBack]:
    """The game's allowed take backs, in order: the log shows each at its ply."""
    query = select(TakeBack).where(TakeBack.game_id == game.id, TakeBack.answer == "allowed")
    return list(session.exec(query.order_by(col(TakeBack.id))))


def asked_before(session: Session, game_id: int, seat_no: int, ply: int) -> bool:
    """Whether the seat has asked to take back a move at this ply already."""
    query = select(TakeBack.id).where(
        TakeBack.game_id == game_id, TakeBack.seat == seat_no, TakeBack.ply == ply
    )
    return session.exec(query).first() is not None


def may_ask(game: Game, last: Moved | None, seat_no: int) -> bool:
    """Whether the seat may ask to take back `last`, the game's last move, as the game stands."""
    return (
        game.slug in GAMES_WITH_TAKE_BACK
        and game.status == "active"
        and game.state is not None
        and last is not None
        and last.ply == game.ply - 1
        and last.seat == seat_no
        and last.source in TAKEN_BACK_SOURCES
    )


def last_move(session: Session, game: Game) -> Move | None:
    """The game's last logged move."""
    if game.ply == 0:
        return None
    found = moves_of(session, game, since=game.ply - 1)
    return found[0] if found else None


def ask(session: Session, site: Site, game_id: int, seat_no: int, now: datetime) -> TakeBack:
    """The seat asks to take back its last move; the next player is told by mail.

    Raises Gone (nothing to take back), Pending (one request at a time) or PlayError."""
    game = lock_game(session, game_id)
    last = last_move(session, game)
    if last is None or not may_ask(game, last, seat_no):
        raise Gone("takeback.error.nothing")
    if pending(session, game_id) is not None:
        raise Pending("takeback.error.pending")
    if asked_before(session, game_id, seat_no, last.ply):
        # One request per seat and ply, whatever its answer: a refusal is final, and a
        # take back cannot be asked again and again (each request mails the next player).
        raise Pending("takeback.error.asked")
    to_act = GAMES[game.slug].to_act(game.state or {})
    tell = telling(session, site, game, now)
    if len(to_act) != 1 or to_act[0] == seat_no:
        raise Gone("takeback.error.nothing")  # the mover plays again: no one to ask
    nxt = tell.seats[to_act[0]]
    if level_for(game, nxt) is not None:
        raise Gone("takeback.error.computer")  # a computer neither answers nor waits
    request = TakeBack(
        game_id=game_id,
        ply=last.ply,
        seat=seat_no,
        to_seat=nxt.seat,
        move=last.move,
        lines=last.lines,
        asked_at=now,
    )
    session.add(request)
    queue(tell, nxt, "takeback_asked", {"who": tell.seats[seat_no].name})
    tell.carry_out(session)
    table_changed(session, game_id)  # the next player's open page asks them at once
    return request


def answer(
    session: Session, site: Site, game_id: int, seat_no: int, allow: bool, now: datetime
) -> TakeBack:
    """The next player allows or refuses the pending take back (Gone: none is pending, or
    it is not theirs to answer; Stale: they moved meanwhile, which dropped it)."""
    game = lock_game(session, game_id)
    request = pending(session, game_id)
    if request is None or request.to_seat != seat_no:
        raise Gone("takeback.error.none")
    if game.status != "active" or game.ply != request.ply + 1:
        # Only a move changes the ply, and a move drops the request: kept as a guard.
        request.answer, request.answered_at = "lapsed", now
        raise Stale("takeback.error.lapsed")
    request.answered_at = now
    tell = telling(session, site, game, now)
    mover = tell.seats[request.seat]
    if not allow:
        request.answer = "refused"
        queue(tell, mover, "takeback_refused", {"who": tell.seats[seat_no].name})
        tell.carry_out(session)
        table_changed(session, game_id)
        return request
    # Replayed before the request counts as allowed: its own shuffle is not made yet.
    _take_back(session, game, request, tell.seats, now)
    request.answer = "allowed"
    names = [s.name for s in tell.seats]
    queue_events(tell.writes, tell.hooks, site, game, mover, "taken_back", now, names)
    # The next player's turn mail, held or only not sent yet, would now tell of a turn gone.
    answering = tell.seats[seat_no]
    answering.held_mail = True
    presence.cancel_held(tell.writes, answering, request.ply + 1)
    player: Player = player_of(session, mover)
    tell_turn(tell, mover, player.notify)
    tell.carry_out(session)
    table_changed(session, game_id)
    return request


def _take_back(
    session: Session, game: Game, request: TakeBack, seats: list[Any], now: datetime
) -> None:
    """Put the game back as it was before the request's move: its state replayed from the
    seed and the log without the move, the move out of the log, the clocks back to the mover."""
    log = moves_of(session, game)
    replayed = list(states(game, len(seats), log, shuffles_of(session, game)))
    # The replay check of promise 1: the log must give the stored state before we trust it.
    if replayed[-1] != game.state or log[-1].ply != request.ply:
        raise PlayError("takeback.error.replay")
    before_acting = set(GAMES[game.slug].to_act(game.state or {}))
    session.delete(log[-1])
    game.takebacks += 1
    # The card the move drew was seen by its mover: the pile is shuffled by the take back's
    # own share of the committed seed, so the card goes back to a place no one knows.
    game.state = fairdeal.reshuffled(replayed[-2], game.seed, game.takebacks)
    game.ply = request.ply
    game.updated_at = now
    for seat in seats:
        # The seat's last mail told it of the taken-back move: the next one tells from here.
        seat.told_ply = min(seat.told_ply, request.ply)
    update_clocks(game, seats, before_acting, now, away_at(session, seats, now))
    session.add(game)
    session.flush()


def log_entries(session: Session, game: Game) -> list[dict[str, Any]]:
    """The game's allowed take backs as the API's log tells them: at which ply, whose move,
    who agreed, when; never the move taken back (its lines were for its own readers)."""
    if not game.takebacks:
        return []
    return [
        {
            "ply": t.ply,
            "seat": t.seat,
            "agreed_by": t.to_seat,
            "at": t.answered_at.isoformat() if t.answered_at else None,
        }
        for t in allowed(session, game)
    ]


def for_page(session: Session, game: Game, seat_no: int | None, names: list[str]) -> dict[str, Any]:
    """What the seat's page shows of take backs: the button to ask, the question to answer,
    the request waiting, and the moves taken back (names only: no line of the move)."""
    # Most games never take a move back: no query for their log lines.
    done = allowed(session, game) if game.takebacks else []
    shown: dict[str, Any] = {
        "taken_back": [{"ply": t.ply, "who": names[t.seat], "by": names[t.to_seat]} for t in done]
    }
    if seat_no is None or game.slug not in GAMES_WITH_TAKE_BACK or game.status != "active":
        return shown
    game_id, ply = game.id or 0, game.ply - 1
    asked = session.execute(_ASKED, {"game_id": game_id, "ply": ply}).all()
    request = next((row for row in asked if row.answer == ""), None)
    if request is not None:
        if request.to_seat == seat_no:
            shown["takeback_question"] = names[request.seat]
        elif request.seat == seat_no:
            shown["takeback_waiting"] = names[request.to_seat]
        return shown
    # The seat to act has no move of its own to take back: no need to read the last one.
    acting = GAMES[game.slug].to_act(game.state or {})
    if seat_no not in acting:
        one = acting[0] if len(acting) == 1 else -1  # the one seat that would answer
        last = (
            session.execute(_LAST, {"game_id": game_id, "ply": ply, "acting": one}).first()
            if ply >= 0
            else None
        )
        shown["takeback_offer"] = (
            may_ask(game, last, seat_no)
            and not (last is not None and level_for(game, last))
            and not any(row.seat == seat_no and row.ply == ply for row in asked)
        )  # nobody to ask when a computer plays next (README: with consent): no button
    return shown


def offer_after_move(game: Game, seats: list[Seat], seat_no: int, last: Move) -> bool:
    """for_page's button to ask, for the seat whose own move `last` (the game's last, just
    written) left the game as `game` now holds it, in a game with no move taken back. That
    move's transaction lapsed any request (pbem.moves), so none is read; and a seat asks
    once a ply, which can only matter at a ply whose move was taken back before."""
    if game.takebacks:
        raise ValueError("a move was taken back in this game: for_page reads what it needs")
    acting = GAMES[game.slug].to_act(game.state or {})
    if seat_no in acting:
        return False  # as for_page: the seat to act has no move of its own to take back
    computer_next = len(acting) == 1 and level_for(game, seats[acting[0]]) is not None
    return may_ask(game, last, seat_no) and not computer_next


# The one-word replies a mail may carry (the mails name the English and French ones): the
# next player's answer, or the mover's request.
REPLY_WORDS = {
    "allow": "allow",
    "accept": "allow",
    "accepter": "allow",
    "autoriser": "allow",
    "refuse": "refuse",
    "refuser": "refuse",
    "undo": "ask",
    "takeback": "ask",
    "take back": "ask",
    "reprendre": "ask",
    "annuler": "ask",
}


def reply_word(lines: list[str]) -> str | None:
    """ "allow", "refuse" or "ask" when a reply's first line is one of REPLY_WORDS."""
    if not lines:
        return None
    word = " ".join(lines[0].lower().strip(" .!").split())
    return REPLY_WORDS.get(word)


def by_mail(
    session: Session, site: Site, game_id: int, seat_no: int, word: str, now: datetime
) -> None:
    """What a reply word does: the mover's request, or the next player's answer."""
    if word == "ask":
        ask(session, site, game_id, seat_no, now)
    else:
        answer(session, site, game_id, seat_no, word == "allow", now)
