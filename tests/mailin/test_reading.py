"""How `pbem inbound` reads a reply before acting on it (pbem/mailin/reading.py), through real
SMTP: whose From it is, and which mails are refused unread."""

from __future__ import annotations

import base64
from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from sqlmodel import select

from pbem.models import InboundMail
from pbem.storage.db import read_session
from tests.mailin.helpers import (
    addr,
    answer,
    example_in,
    game_row,
    outbox_count,
    send,
    turn_mail,
)

MALLORY = "mallory@evil.test"


def _raw_reply(mail: EmailMessage, from_field: bytes, body: str) -> bytes:
    """A reply to `mail` whose From field is exactly `from_field`, as a forger would write it."""
    head = (
        b"From: " + from_field + b"\r\n"
        b"To: " + addr(mail["Reply-To"]).encode() + b"\r\n"
        b"Subject: Re: your move\r\n"
        b"Message-ID: " + make_msgid(domain="evil.test").encode() + b"\r\n"
        b"MIME-Version: 1.0\r\n"
        b"Content-Type: text/plain; charset=utf-8\r\n\r\n"
    )
    return head + body.encode() + b"\r\n"


# Each names the seat's player, and none may be read as them (issue 30).
MALFORMED_FROMS = [
    "{victim} <mallory@evil.test>",  # policy.default read it as the victim, with a defect
    "Victim <{victim}> <mallory@evil.test>",  # two angle addresses
    "{victim}, mallory@evil.test",  # two addresses
    "Victim <{victim}>, Mallory <mallory@evil.test>",
    "<{victim}",  # an address with a defect (no closing bracket)
    "{victim} (Mallory <mallory@evil.test>)",  # the parse and the angle brackets disagree
    "=?utf-8?b?{victim_b64}?=",  # an encoded word that decodes to the victim's address
    "=?utf-8?q?{victim_q}?= <{victim}",  # an encoded name, and a broken address
    "players: {victim};",  # group syntax
    "players: {victim}, mallory@evil.test;",
]


def _shape(template: str, victim: str) -> bytes:
    return template.format(
        victim=victim,
        victim_b64=base64.b64encode(victim.encode()).decode(),
        victim_q=victim.replace("@", "=40"),
    ).encode()


@pytest.mark.parametrize("template", MALFORMED_FROMS)
def test_a_malformed_from_plays_nothing_and_is_answered_by_no_one(
    app, smtpd, inbound, game, template
):
    mail = turn_mail(smtpd)
    victim = addr(mail["To"])
    before = outbox_count(app)
    raw = _raw_reply(mail, _shape(template, victim), example_in(mail))
    code, text = send(inbound, raw, to=addr(mail["Reply-To"]), envelope_from=MALLORY)
    assert (code, game_row(app, game).ply) == (550, 0), template
    assert "player" in text
    assert outbox_count(app) == before  # no answer: it would go to a forged address
    with read_session(app.extensions["pbem"]["engine"]) as session:
        rows = session.exec(select(InboundMail)).all()
    assert [(r.status, r.sender) for r in rows] == [("rejected", "")]


@pytest.mark.parametrize(
    "from_field",
    [
        b"=?utf-8?q?Ana_L=C3=A9a?= <{victim}>",  # an encoded name, as most clients write it
        "Ana Léa <{victim}>".encode(),  # a name in raw UTF-8 (RFC 6532)
        b"Ana\r\n <{victim}>",  # folded
        b"{victim}",
    ],
)
def test_a_well_formed_from_of_the_player_still_plays(app, smtpd, inbound, game, from_field):
    mail = turn_mail(smtpd)
    victim = addr(mail["To"]).encode()
    raw = _raw_reply(mail, from_field.replace(b"{victim}", victim), example_in(mail))
    code, _ = send(inbound, raw, to=addr(mail["Reply-To"]), envelope_from=victim.decode())
    assert (code, game_row(app, game).ply) == (250, 1)


def test_two_from_fields_are_refused(app, smtpd, inbound, game):
    mail = turn_mail(smtpd)
    victim = addr(mail["To"]).encode()
    raw = _raw_reply(mail, victim + b"\r\nFrom: " + MALLORY.encode(), example_in(mail))
    code, _ = send(inbound, raw, to=addr(mail["Reply-To"]), envelope_from=MALLORY)
    assert (code, game_row(app, game).ply) == (550, 0)
    reply = answer(mail, example_in(mail))
    assert send(inbound, reply)[0] == 250  # the player's own reply plays
    assert game_row(app, game).ply == 1


def _nested(kind: str, depth: int, move: str) -> bytes:
    """A body `depth` levels deep around a text part holding the move."""
    inner = b"Content-Type: text/plain\r\n\r\n" + move.encode() + b"\r\n"
    for level in reversed(range(depth)):
        if kind == "message":
            inner = b"Content-Type: message/rfc822\r\n\r\n" + inner
            continue
        ctype = b"multipart/mixed" if kind == "multipart" else b"=?utf-8?q?multipart/mixed?="
        bound = b"b%d" % level
        inner = (
            b"Content-Type: " + ctype + b"; boundary=" + bound + b"\r\n\r\n"
            b"--" + bound + b"\r\n" + inner + b"\r\n--" + bound + b"--\r\n"
        )
    return inner


def _flat(parts: int, move: str) -> bytes:
    text = b"--b\r\nContent-Type: text/plain\r\n\r\n" + move.encode() + b"\r\n"
    return (
        b"Content-Type: multipart/mixed; boundary=b\r\n\r\n"
        + text
        + b"--b\r\nContent-Type: text/plain\r\n\r\nthanks\r\n" * (parts - 1)
        + b"--b--\r\n"
    )


def _mail_with_body(mail: EmailMessage, mime: bytes) -> bytes:
    """The player's own reply, its MIME part (Content-Type on) being `mime`."""
    return (
        b"From: " + addr(mail["To"]).encode() + b"\r\n"
        b"To: " + addr(mail["Reply-To"]).encode() + b"\r\n"
        b"Subject: Re: your move\r\n"
        b"Message-ID: " + make_msgid(domain="example.org").encode() + b"\r\n"
        b"MIME-Version: 1.0\r\n" + mime
    )


@pytest.mark.parametrize(
    "shape",
    ["multipart-40-deep", "message-40-deep", "encoded-multipart-20-deep", "200-parts",
     "content-type-40-kb"],
)  # fmt: skip
def test_a_mail_of_too_many_parts_or_levels_is_refused_unread(app, smtpd, inbound, game, shape):
    """A 4,000-deep multipart cost 900 times an ordinary reply to parse (issue 30), and a
    long Content-Type's parameters grow as its square: the structure is counted in the raw
    bytes first, and such a mail is never parsed."""
    mail = turn_mail(smtpd)
    move = example_in(mail)
    mime = {
        "multipart-40-deep": lambda: _nested("multipart", 40, move),
        "message-40-deep": lambda: _nested("message", 40, move),
        "encoded-multipart-20-deep": lambda: _nested("encoded", 20, move),
        "200-parts": lambda: _flat(200, move),
        # Its parameters cost the parser time quadratic in their length: 40 KB took 1.2 s.
        # (Folded in lines of 500: SMTP refuses a line over 1,000.)
        "content-type-40-kb": lambda: (
            b'Content-Type: text/plain; x="'
            + b"\r\n ".join([b";" * 500] * 80)
            + b'"\r\n\r\n'
            + move.encode()
        ),
    }[shape]()
    raw = _mail_with_body(mail, mime)
    code, text = send(inbound, raw, to=addr(mail["Reply-To"]), envelope_from=addr(mail["To"]))
    assert (code, game_row(app, game).ply) == (552, 0)
    assert "parts" in text
    assert inbound.handler.verdicts[-1].reason == "too_complex"


def test_an_ordinary_reply_with_attachments_still_plays(app, smtpd, inbound, game):
    mail = turn_mail(smtpd)
    reply = answer(mail, example_in(mail))
    reply.add_alternative(f"<p>{example_in(mail)}</p>", subtype="html")
    reply.add_attachment(b"\x89PNG" + bytes(200), maintype="image", subtype="png")
    reply.add_attachment("notes", filename="notes.txt")
    forwarded = answer(mail, "an earlier mail")
    reply.add_attachment(forwarded)  # message/rfc822
    assert send(inbound, reply)[0] == 250
    assert game_row(app, game).ply == 1
