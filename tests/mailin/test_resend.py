"""Mail to a turn already played by mail (pbem/mailin/resend.py), through real SMTP: an exact
resend of the move played is ignored, anything else plays nothing and is answered, "this turn
was already played", within the answers' hourly limit."""

from __future__ import annotations

from email.message import EmailMessage
from typing import Any

from pbem.games import GAMES
from pbem.mailin import receive as receive_module
from pbem.present import colour_bazaar_text
from tests.mailin.helpers import PLAYERS, addr, answer, example_in, game_row, send, turn_mail
from tests.web.helpers import deliver, link_in, play_turn, text_of

PLAYED = ("already been played", "déjà été joué")


def _told_played(app: Any, smtpd: Any, to: str) -> list[EmailMessage]:
    """The answers saying the turn was already played that reached `to`."""
    deliver(app)
    return [m for m in smtpd.to(to) if any(words in text_of(m) for words in PLAYED)]


def _first_move_by_mail(app: Any, smtpd: Any, inbound: Any, game: int) -> tuple[Any, str]:
    """Play the first turn by answering its mail; the mail and another move legal then."""
    mail = turn_mail(smtpd)
    state = game_row(app, game).state
    seat = GAMES["colour-bazaar"].to_act(state)[0]
    names = [p.name for p in PLAYERS]
    texts = colour_bazaar_text.legal_texts(state, seat, PLAYERS[seat].lang, names)
    played = example_in(mail)
    other = next(t["text"] for t in texts if t["text"] != played)
    assert send(inbound, answer(mail, played)) == (250, "2.0.0 Move played")
    assert game_row(app, game).ply == 1
    return mail, other


def test_another_move_for_a_turn_played_by_mail_is_answered(app, smtpd, inbound, game):
    """It used to be dropped without a word (issue 30)."""
    mail, other = _first_move_by_mail(app, smtpd, inbound, game)
    assert send(inbound, answer(mail, other))[0] == 250
    assert game_row(app, game).ply == 1
    assert len(_told_played(app, smtpd, addr(mail["To"]))) == 1
    assert send(inbound, answer(mail, "Sorry, I meant something else"))[0] == 250
    assert len(_told_played(app, smtpd, addr(mail["To"]))) == 2
    assert game_row(app, game).ply == 1


def test_the_same_move_sent_again_is_ignored_however_late(app, smtpd, inbound, game, client):
    mail, _ = _first_move_by_mail(app, smtpd, inbound, game)
    deliver(app)
    play_turn(client, link_in(turn_mail(smtpd)))  # the next player moves on the page
    assert game_row(app, game).ply == 2
    # A resend with a new Message-ID, the move after a greeting: the same move, not answered.
    assert send(inbound, answer(mail, "Hello again,\n" + example_in(mail)))[0] == 250
    assert game_row(app, game).ply == 2
    assert _told_played(app, smtpd, addr(mail["To"])) == []


def test_answers_about_an_old_turn_stop_after_a_few_an_hour(app, smtpd, inbound, game):
    mail, other = _first_move_by_mail(app, smtpd, inbound, game)
    for n in range(receive_module.ANSWERS.count + 3):
        assert send(inbound, answer(mail, f"{other}\nattempt {n}"))[0] == 250
    assert len(_told_played(app, smtpd, addr(mail["To"]))) == receive_module.ANSWERS.count
    assert game_row(app, game).ply == 1
