"""A turn mail the sender renders after the game moved on still answers the turn it was for."""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

from pbem import moves
from pbem.games import GAMES
from pbem.models import Game, Move, Seat
from pbem.players.reply_address import make_address
from pbem.present import text_presenter
from pbem.present.replay import state_at
from pbem.storage.db import read_session, write_session
from pbem.storage.store import seats_of
from tests.mailin.helpers import PLAYERS, addr, answer, example_in, send
from tests.web.helpers import deliver, text_of

RULES = GAMES["colour-bazaar"]


def _move_now(app: Any, game_id: int, clock: Any) -> int:
    """The seat to act plays its first legal move through moves.submit_move; which seat."""
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    with write_session(engine) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.state is not None
        (seat,) = RULES.to_act(game.state)
        token = RULES.turn_token(game.state, seat)
        move = RULES.legal_moves(game.state, seat)[0]
        moves.submit_move(session, site, game_id, seat, move, token, clock(), source="web")
    return seat


def test_a_late_turn_mail_answers_its_own_turn(
    app: Any, smtpd: Any, clock: Any, game: int, inbound: Any
) -> None:
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    _move_now(app, game, clock)  # the next seat's turn mail is queued at ply 1...
    second = _move_now(app, game, clock)  # ...and that seat moves before the sender runs
    smtpd.clear()
    deliver(app)
    (mail,) = smtpd.to(PLAYERS[second].email)
    with read_session(engine) as session:
        stored = session.get(Game, game)
        assert stored is not None and stored.ply == 2
        seats: list[Seat] = seats_of(session, stored)
        moves = list(session.exec(select(Move).where(Move.game_id == game).order_by(col(Move.ply))))
        then = state_at(stored, len(seats), moves, 1)
    names = [s.name for s in seats]
    # The Reply-To plays the turn of ply 1, and the example comes from the hand then.
    expected = make_address(
        site.secret,
        site.reply_domain,
        game,
        second,
        RULES.turn_token(then, second),
        seats[second].link_key,
    )
    assert addr(mail["Reply-To"]) == expected.lower()
    lang = PLAYERS[second].lang
    assert example_in(mail) == text_presenter("colour-bazaar").example(then, second, lang, names)
    # Answering it now is refused (that turn was played), and the answer lists no moves,
    # since the seat is not to act at the answer's ply.
    smtpd.clear()
    code, _ = send(inbound, answer(mail, example_in(mail)))
    assert code == 250
    deliver(app)
    (refusal,) = smtpd.to(PLAYERS[second].email)
    assert str(refusal["Subject"]).startswith("Re: ")
    assert refusal["Reply-To"] is None
    with read_session(engine) as session:
        current = session.get(Game, game)
        assert current is not None and current.ply == 2
    assert "    " + example_in(mail) not in text_of(refusal).splitlines()
