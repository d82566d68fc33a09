"""Mail for a turn a mail already played: only the same move sent again is ignored.

SECURITY.md: "A mail for an old turn plays nothing, and the answer says so", and "a resend
for a turn already played by mail is ignored". A copy with the same Message-ID is a
duplicate before this is asked. A resend has a new Message-ID and the same move: its lines,
read at the position of that turn, give the move a mail played there. Anything else sent to
an old turn (another move, a question) is answered by the caller.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from pbem.games import GAMES
from pbem.models import Game, InboundMail
from pbem.players.reply_address import ReplyAddress, fold_turn
from pbem.present import text_presenter
from pbem.present.replay import states
from pbem.present.textmove import TextMoveError, first_move
from pbem.storage.store import moves_of, shuffles_of


def _applied(session: Session, reply: ReplyAddress) -> list[dict[str, Any] | None]:
    """The moves mail to this seat and turn applied, oldest first."""
    rows = session.exec(
        select(InboundMail)
        .where(
            InboundMail.game_id == reply.game_id,
            InboundMail.seat == reply.seat,
            InboundMail.turn == reply.turn,
            InboundMail.status == "applied",
        )
        .order_by(col(InboundMail.id))
    )
    return [row.move for row in rows]


def applied_before(session: Session, reply: ReplyAddress, move: dict[str, Any]) -> bool:
    """Whether the last mail applied for this seat and turn (still the current one) had `move`:
    a resend while the turn is open, as when prices may still be revised."""
    applied = _applied(session, reply)
    return bool(applied) and applied[-1] == move


def resent(
    session: Session, game: Game, reply: ReplyAddress, lines: list[str], names: list[str]
) -> bool:
    """Whether `lines`, read at the old turn the address names, are a move a mail played there."""
    applied = _applied(session, reply)
    if not applied:
        return False  # played on the page, by a timeout, or never: the answer says so
    rules = GAMES[game.slug]
    parse = text_presenter(game.slug).parse
    moves = moves_of(session, game)
    # Replayed from the seed (the log holds no positions): a few milliseconds for a whole game,
    # and only for mail to a turn that a mail played.
    for move, state in zip(
        moves, states(game, len(names), moves, shuffles_of(session, game)), strict=False
    ):
        if move.source != "mail" or move.seat != reply.seat or move.move not in applied:
            continue
        if fold_turn(rules.turn_token(state, reply.seat)) != reply.turn:
            continue
        try:
            again, _ = first_move(parse, lines, state, reply.seat, names)
        except TextMoveError:
            continue  # not a move there; maybe at the turn's next position (prices revised)
        if again == move.move:
            return True
    return False
