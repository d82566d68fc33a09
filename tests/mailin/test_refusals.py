"""Every way a reply is refused or ignored by `pbem inbound`, through real SMTP: nothing is
applied, the listener keeps running, and an automatic mail never gets a mail back."""

from __future__ import annotations

from email.message import EmailMessage
from typing import Any

import pytest
from sqlmodel import select

from pbem.games import GAMES
from pbem.mailin import receive as receive_module
from pbem.models import Game, InboundMail, Seat
from pbem.storage.db import read_session, write_session
from pbem.storage.ratelimit import Limit
from tests.mailin.helpers import (
    PLAYERS,
    REPLY_DOMAIN,
    addr,
    answer,
    example_in,
    game_row,
    outbox_count,
    reply_address,
    send,
    turn_mail,
)
from tests.web.helpers import deliver, headline, text_of

# The first line of the "game started" mail, in English and in French.
STARTED = ("everyone has joined", "tout le monde a accepté")


def test_turn_mails_carry_a_reply_to_and_other_mails_do_not(app, smtpd, game):
    mail = turn_mail(smtpd)
    reply_to = addr(mail["Reply-To"])
    assert reply_to.startswith("play+") and reply_to.endswith("@" + REPLY_DOMAIN)
    assert len(reply_to.partition("@")[0]) <= 64  # RFC 5321's limit for a local part
    assert example_in(mail) in text_of(mail)
    started = [m for m in smtpd.messages if headline(m).startswith(STARTED)]
    assert started and all(m["Reply-To"] is None for m in started)


@pytest.mark.parametrize(
    "to",
    [
        "someone@" + REPLY_DOMAIN,
        "play+1.0.0.aaaaaaaaaaaaaaaa@" + REPLY_DOMAIN,
        "play+1.0.0@" + REPLY_DOMAIN,
        "postmaster@" + REPLY_DOMAIN,
    ],
)
def test_rcpt_refuses_what_is_not_a_reply_address(app, smtpd, inbound, game, to):
    mail = turn_mail(smtpd)
    code, _ = send(inbound, answer(mail, example_in(mail)), to=to)
    assert code == 550
    assert game_row(app, game).ply == 0


def test_rcpt_refuses_another_domain_and_a_token_altered_for_another_seat(
    app, smtpd, inbound, game
):
    mail = turn_mail(smtpd)
    good = addr(mail["Reply-To"])
    local, _, _ = good.partition("@")
    assert send(inbound, answer(mail, "x"), to=f"{local}@elsewhere.example")[0] == 550
    game_part, seat_part, rest = local.split(".", 2)
    other_seat = f"{game_part}.{(int(seat_part) + 1) % 3}.{rest}@{REPLY_DOMAIN}"
    assert send(inbound, answer(mail, example_in(mail)), to=other_seat)[0] == 550
    assert game_row(app, game).ply == 0


def test_one_recipient_per_message(app, smtpd, inbound, game):
    import smtplib

    mail = turn_mail(smtpd)
    with smtplib.SMTP(inbound.hostname, inbound.port, timeout=10) as client:
        client.ehlo()
        client.mail(addr(mail["To"]))
        assert client.rcpt(addr(mail["Reply-To"]))[0] == 250
        assert client.rcpt(addr(mail["Reply-To"]))[0] == 452


def test_forged_from_is_refused_and_nobody_is_answered(app, smtpd, inbound, game):
    mail = turn_mail(smtpd)
    before = outbox_count(app)
    code, text = send(inbound, answer(mail, example_in(mail), sender="Mallory <m@evil.example>"))
    assert code == 550 and "player" in text
    # Another player of the same game is not the seat's player either.
    other = [p.email for p in PLAYERS if p.email != addr(mail["To"])][0]
    assert send(inbound, answer(mail, example_in(mail), sender=other))[0] == 550
    assert game_row(app, game).ply == 0 and outbox_count(app) == before


def test_the_move_is_applied_once_whatever_the_copies(app, smtpd, inbound, game):
    mail = turn_mail(smtpd)
    reply = answer(mail, example_in(mail))
    assert send(inbound, reply) == (250, "2.0.0 Move played")
    assert send(inbound, reply)[0] == 250  # the same Message-ID again
    resent = answer(mail, example_in(mail))  # sent again by the player: a new Message-ID
    assert send(inbound, resent)[0] == 250
    assert game_row(app, game).ply == 1
    with read_session(app.extensions["pbem"]["engine"]) as session:
        rows = session.exec(select(InboundMail).order_by(InboundMail.id)).all()
    assert [(r.status, r.reason) for r in rows] == [("applied", ""), ("ignored", "resend")]
    deliver(app)
    assert not [m for m in smtpd.messages if "did not play a move" in headline(m)]


def test_the_sender_address_is_compared_without_case(app, smtpd, inbound, game):
    mail = turn_mail(smtpd)
    sender = addr(mail["To"]).upper()
    assert send(inbound, answer(mail, example_in(mail), sender=sender))[0] == 250
    assert game_row(app, game).ply == 1


def _refusal_mail(app: Any, smtpd: Any, to: str) -> EmailMessage:
    deliver(app)
    answers = [m for m in smtpd.to(to) if m["Subject"] and "Re:" in str(m["Subject"])]
    assert len(answers) == 1, [str(m["Subject"]) for m in smtpd.to(to)]
    return answers[0]


def test_an_unreadable_reply_is_answered_once_with_the_legal_moves(app, smtpd, inbound, game):
    mail = turn_mail(smtpd)
    to = addr(mail["To"])
    assert send(inbound, answer(mail, "I'm not sure what to do, sorry!"))[0] == 250
    assert game_row(app, game).ply == 0
    refusal = _refusal_mail(app, smtpd, to)
    body = text_of(refusal)
    assert "did not play a move" in body or "n'a joué aucun coup" in body
    assert example_in(mail) in body  # the legal moves are listed
    assert str(refusal["In-Reply-To"]) == str(mail["In-Reply-To"])  # the game's thread
    assert addr(refusal["Reply-To"]) == addr(mail["Reply-To"])  # the turn is still open
    # The player answers the answer with a good move: it is played.
    assert send(inbound, answer(refusal, example_in(mail)))[0] == 250
    assert game_row(app, game).ply == 1


def test_an_illegal_move_is_answered_and_not_played(app, smtpd, inbound, game):
    mail = turn_mail(smtpd)
    state = game_row(app, game).state
    seat = GAMES["colour-bazaar"].to_act(state)[0]
    not_mine = next(c for c in state["hands"][(seat + 1) % 3])
    assert send(inbound, answer(mail, f"play {not_mine} 1 knots"))[0] == 250
    assert game_row(app, game).ply == 0
    refusal = _refusal_mail(app, smtpd, addr(mail["To"]))
    assert "hand" in text_of(refusal) or "main" in text_of(refusal)
    # Nothing of another hand is told: the answer names only the card the player wrote.
    others = set(state["hands"][(seat + 1) % 3]) - {not_mine}
    from pbem.present.text import card_name

    for card in others:
        for lang in ("en", "fr"):
            assert card_name(card, lang) not in text_of(refusal)


def test_an_old_turn_is_answered_and_a_turn_of_another_seat_too(app, smtpd, inbound, game, client):
    first = turn_mail(smtpd)
    assert send(inbound, answer(first, example_in(first)))[0] == 250
    deliver(app)
    second = turn_mail(smtpd)
    # The second player moves on the page instead...
    from tests.web.helpers import link_in, play_turn

    play_turn(client, link_in(second))
    # ...then answers the old turn mail: too late, said once.
    assert send(inbound, answer(second, example_in(second)))[0] == 250
    assert game_row(app, game).ply == 2
    refusal = _refusal_mail(app, smtpd, addr(second["To"]))
    assert "already been played" in text_of(refusal) or "déjà été joué" in text_of(refusal)
    # The third seat's address for a turn that is not theirs.
    state = game_row(app, game).state
    waiting = [s for s in range(3) if s not in GAMES["colour-bazaar"].to_act(state)][0]
    player = PLAYERS[waiting]
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = player.email, reply_address(app, game, waiting), "move"
    msg.set_content("play castle 1 knots")
    assert send(inbound, msg)[0] == 250
    assert game_row(app, game).ply == 2


def test_a_finished_or_cancelled_game_is_answered(app, smtpd, inbound, game):
    mail = turn_mail(smtpd)
    with write_session(app.extensions["pbem"]["engine"]) as session:
        row = session.get(Game, game)
        row.status = "cancelled"
        session.add(row)
    assert send(inbound, answer(mail, example_in(mail)))[0] == 250
    refusal = _refusal_mail(app, smtpd, addr(mail["To"]))
    assert "not being played" in text_of(refusal) or "pas en cours" in text_of(refusal)


def test_html_only_replies_are_read(app, smtpd, inbound, game):
    mail = turn_mail(smtpd)
    html = (
        f"<html><body><div>{example_in(mail)}</div><div><br></div>"
        "<blockquote>play something else</blockquote></body></html>"
    )
    assert send(inbound, answer(mail, "", html=html))[0] == 250
    assert game_row(app, game).ply == 1


def test_only_the_lines_above_the_quote_and_signature_count(app, smtpd, inbound, game):
    mail = turn_mail(smtpd)
    # The move appears only in the quoted mail (the example line): nothing is played.
    assert send(inbound, answer(mail, "Thanks!\n-- \nplay is fun"))[0] == 250
    assert game_row(app, game).ply == 0
    body = f"Hello,\n\n{example_in(mail)}\n\nCheers\n-- \nAna\n+33 6 12 34 56 78"
    assert send(inbound, answer(mail, body))[0] == 250
    assert game_row(app, game).ply == 1


AUTOMATIC = [
    ({"Auto-Submitted": "auto-replied"}, None),
    ({"Auto-Submitted": "auto-generated"}, None),
    ({"X-Autoreply": "yes"}, None),
    ({"X-Autorespond": "yes"}, None),
    ({"Precedence": "bulk"}, None),
    ({"Precedence": "junk"}, None),
    ({"Precedence": "list"}, None),
    ({"List-Id": "<friends.lists.example.org>"}, None),
    ({}, ""),  # a bounce: empty return path
    ({}, "MAILER-DAEMON@example.org"),
    ({"Subject": "Out of Office: back on Monday"}, None),
    ({"Subject": "Réponse automatique : absent"}, None),
]


@pytest.mark.parametrize(("headers", "envelope_from"), AUTOMATIC)
def test_automatic_mail_is_never_answered_nor_played(
    app, smtpd, inbound, game, headers, envelope_from
):
    mail = turn_mail(smtpd)
    reply = answer(mail, example_in(mail))
    for name, value in headers.items():
        del reply[name]
        reply[name] = value
    before = outbox_count(app)
    code, _ = send(inbound, reply, envelope_from=envelope_from)
    assert code == 250
    assert game_row(app, game).ply == 0 and outbox_count(app) == before


def test_bounce_reports_and_our_own_mail_coming_back_are_ignored(app, smtpd, inbound, game):
    mail = turn_mail(smtpd)
    before = outbox_count(app)
    report = EmailMessage()
    report["From"] = addr(mail["To"])
    report["To"] = addr(mail["Reply-To"])
    report["Subject"] = "Delivery report"
    report.set_content(example_in(mail))
    report.add_attachment("Status: 5.0.0", subtype="delivery-status")
    report.replace_header(
        "Content-Type", 'multipart/report; report-type=delivery-status; boundary="b"'
    )
    assert send(inbound, report)[0] == 250
    # Our own turn mail, looped back to the reply address by a forwarding rule.
    looped = answer(mail, example_in(mail))
    del looped["Message-ID"]
    looped["Message-ID"] = str(mail["Message-ID"])
    assert send(inbound, looped)[0] == 250
    assert game_row(app, game).ply == 0 and outbox_count(app) == before


def test_oversized_and_malformed_mail_is_refused(app, smtpd, inbound, game):
    mail = turn_mail(smtpd)
    big = answer(mail, example_in(mail) + "\n" + ("x" * 70 + "\n") * 2000)
    assert send(inbound, big)[0] == 552
    garbage = b"\x00\xff not a mail at all \r\n\r\n" + bytes(range(256))
    code, _ = send(inbound, garbage, to=addr(mail["Reply-To"]), envelope_from=addr(mail["To"]))
    assert code == 550
    # The listener is still there and plays the next good reply.
    assert send(inbound, answer(mail, example_in(mail)))[0] == 250
    assert game_row(app, game).ply == 1


@pytest.mark.parametrize("limit", ["BY_SEAT", "BY_ADDRESS"])
def test_the_players_mail_is_limited_by_seat_and_by_address(
    app, smtpd, inbound, game, monkeypatch, limit
):
    monkeypatch.setattr(receive_module, limit, Limit(f"test-{limit}", 3, 3600))
    mail = turn_mail(smtpd)
    codes = [send(inbound, answer(mail, "what?"))[0] for _ in range(4)]
    assert codes == [250, 250, 250, 451]  # the fourth mail this hour waits
    assert game_row(app, game).ply == 0
    # Forged and automatic mail is limited apart: tests/mailin/test_limits.py.


def test_answers_stop_after_a_few_an_hour(app, smtpd, inbound, game, monkeypatch):
    """A mail loop with a machine that ignores Auto-Submitted stops: five answers an hour."""
    mail = turn_mail(smtpd)
    for _ in range(8):
        assert send(inbound, answer(mail, "???"))[0] == 250
    deliver(app)
    answers = [m for m in smtpd.to(addr(mail["To"])) if "Re:" in str(m["Subject"])]
    assert len(answers) == receive_module.ANSWERS.count


def test_the_page_lists_each_legal_move_as_text(app, smtpd, client, game):
    from html import unescape

    from pbem.present import colour_bazaar_text
    from tests.web.helpers import link_in

    mail = turn_mail(smtpd)
    page = unescape(client.get(link_in(mail)).get_data(as_text=True))
    assert "Move by mail" in page or "Jouer par mail" in page
    state = game_row(app, game).state
    seat = GAMES["colour-bazaar"].to_act(state)[0]
    lang = PLAYERS[seat].lang
    names = [p.name for p in PLAYERS]
    texts = colour_bazaar_text.legal_texts(state, seat, lang, names)
    assert texts
    for entry in texts:
        assert f"<code>{entry['text']}</code>" in page
    assert addr(mail["Reply-To"]) in page
    # Another seat's page shows no moves by mail: it is not their turn.
    waiting = next(m for m in smtpd.messages if headline(m).startswith(STARTED))
    other = unescape(client.get(link_in(waiting)).get_data(as_text=True))
    assert "by-mail" not in other


def test_a_new_link_key_revokes_the_reply_addresses(app, smtpd, inbound, game):
    mail = turn_mail(smtpd)
    with write_session(app.extensions["pbem"]["engine"]) as session:
        seat = session.exec(select(Seat).where(Seat.game_id == game, Seat.link_key != "")).all()
        for row in seat:
            row.link_key = "rotated-" + row.link_key[:8]
            session.add(row)
    assert send(inbound, answer(mail, example_in(mail)))[0] == 550
    assert game_row(app, game).ply == 0
