"""Undo with consent by mail (pbem/takeback/consent.py through pbem/mailin/receive.py), real
SMTP: the mover answers any mail of the game with "undo", the next player gets a mail of
its own and answers "allow" or "refuse" (or "accepter", "refuser" in French)."""

from __future__ import annotations

from typing import Any

from pbem.games import GAMES
from tests.mailin.helpers import PLAYERS, addr, answer, example_in, game_row, send, turn_mail
from tests.web.helpers import deliver, text_of


def _moved_by_mail(app: Any, smtpd: Any, inbound: Any, game: int) -> tuple[Any, int, int]:
    """The first turn played by answering its mail: the mail, the mover and the next seat."""
    mail = turn_mail(smtpd)
    state = game_row(app, game).state
    mover = GAMES["colour-bazaar"].to_act(state)[0]
    assert send(inbound, answer(mail, example_in(mail))) == (250, "2.0.0 Move played")
    nxt = GAMES["colour-bazaar"].to_act(game_row(app, game).state)[0]
    deliver(app)
    return mail, mover, nxt


def _asked_mail(smtpd: Any, seat: int) -> Any:
    (asked,) = [
        m
        for m in smtpd.to(PLAYERS[seat].email)
        if "take back" in text_of(m) or "reprendre" in text_of(m)
    ]
    return asked


def test_undo_then_allow_by_mail_puts_the_game_back(app, smtpd, inbound, game):
    before = game_row(app, game)
    mail, mover, nxt = _moved_by_mail(app, smtpd, inbound, game)
    # The mover answers the mail they already played from: its turn is gone, the word counts.
    assert send(inbound, answer(mail, "Undo"))[0] == 250
    deliver(app)
    asked = _asked_mail(smtpd, nxt)
    assert asked["Reply-To"] is not None
    body = text_of(asked)
    assert PLAYERS[mover].name in body
    if PLAYERS[nxt].lang == "fr":
        assert "accepter, ou refuser" in body
    else:
        assert "allow, or refuse" in body
    word = "accepter" if PLAYERS[nxt].lang == "fr" else "allow"
    assert send(inbound, answer(asked, word))[0] == 250
    after = game_row(app, game)
    assert after.ply == before.ply == 0
    # As before the move, but for the pile: the take back shuffled it (test_takeback_honest).
    assert {**after.state, "deck": []} == {**before.state, "deck": []}
    assert sorted(after.state["deck"]) == sorted(before.state["deck"])
    deliver(app)
    # The mover has their turn again, with a mail that asks for it.
    again = turn_mail(smtpd)
    assert addr(again["To"]) == PLAYERS[mover].email


def test_refuse_by_mail_tells_the_mover_and_keeps_the_move(app, smtpd, inbound, game):
    mail, mover, nxt = _moved_by_mail(app, smtpd, inbound, game)
    moved = game_row(app, game)
    assert send(inbound, answer(mail, "undo"))[0] == 250
    deliver(app)
    asked = _asked_mail(smtpd, nxt)
    word = "refuser" if PLAYERS[nxt].lang == "fr" else "refuse"
    assert send(inbound, answer(asked, word))[0] == 250
    assert game_row(app, game).state == moved.state
    deliver(app)
    told = smtpd.to(PLAYERS[mover].email)[-1]
    assert "your move stands" in text_of(told) or "votre coup reste" in text_of(told)
    # A second "refuse" finds nothing to answer: it is answered, and changes nothing.
    assert send(inbound, answer(asked, "refuse"))[0] == 250
    assert game_row(app, game).state == moved.state


def test_a_move_in_reply_to_the_question_lapses_it(app, smtpd, inbound, game):
    mail, mover, nxt = _moved_by_mail(app, smtpd, inbound, game)
    assert send(inbound, answer(mail, "undo"))[0] == 250
    deliver(app)
    asked = _asked_mail(smtpd, nxt)
    # The question carries the turn's reply address: a move in reply plays it; the move wins.
    assert send(inbound, answer(asked, example_in(asked))) == (250, "2.0.0 Move played")
    assert game_row(app, game).ply == 2
    assert send(inbound, answer(asked, "allow"))[0] == 250
    assert game_row(app, game).ply == 2
