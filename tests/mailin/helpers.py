"""Answering pbem's mails as a player would: through SMTP to the mail's Reply-To."""

from __future__ import annotations

import re
import smtplib
import socket
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

from sqlalchemy import func
from sqlmodel import select

from pbem import play
from pbem.config import settings_of
from pbem.games import GAMES
from pbem.models import Game, Outbox, Seat
from pbem.players.reply_address import make_address
from pbem.storage.db import read_session
from tests.web.helpers import text_of

REPLY_DOMAIN = "in.pbem.test"
PLAYERS = [
    play.Invitee("Ana", "ana@example.org", "en"),
    play.Invitee("Léo", "leo@example.org", "fr"),
    play.Invitee("Zoé", "zoe@example.org", "en"),
]

EXAMPLE = re.compile(r"(?:for example|par exemple)[ \u00a0]?:\r?\n[ \t]+(\S[^\r\n]*)")


def example_in(mail: EmailMessage) -> str:
    """The example move a turn mail gives under its link."""
    match = EXAMPLE.search(text_of(mail))
    assert match, "no example move in:\n" + text_of(mail)
    return match.group(1).strip()


def answer(
    mail: EmailMessage,
    body: str,
    sender: str | None = None,
    headers: dict[str, str] | None = None,
    html: str | None = None,
    message_id: str | None = None,
) -> EmailMessage:
    """A reply to `mail` from its recipient, quoting it below `body` like a mail client."""
    reply = EmailMessage()
    reply["From"] = sender or str(mail["To"])
    reply["To"] = str(mail["Reply-To"])
    reply["Subject"] = "Re: " + str(mail["Subject"])
    reply["Message-ID"] = message_id or make_msgid(domain="example.org")
    reply["In-Reply-To"] = str(mail["Message-ID"])
    for name, value in (headers or {}).items():
        reply[name] = value
    quoted = "\n".join("> " + line for line in text_of(mail).splitlines())
    if html is not None:
        reply.set_content(html, subtype="html")
    else:
        reply.set_content(f"{body}\n\nOn Mon, 2 Mar 2026, pbem <pbem@pbem.test> wrote:\n{quoted}\n")
    return reply


def send(
    controller: Any,
    msg: EmailMessage | bytes,
    to: str | None = None,
    envelope_from: str | None = None,
    lmtp: bool = False,
) -> tuple[int, str]:
    """Hand a message to `pbem inbound` over SMTP (or LMTP); the reply code and text."""
    if isinstance(msg, EmailMessage):
        raw = msg.as_bytes()
        to = to or str(msg["To"])
        envelope_from = envelope_from if envelope_from is not None else str(msg["From"])
    else:
        raw = msg
    raw = re.sub(rb"\r?\n", b"\r\n", raw)  # SMTP lines end in CRLF
    client: smtplib.SMTP = (smtplib.LMTP if lmtp else smtplib.SMTP)(
        controller.hostname, controller.port, timeout=10
    )
    with client:
        client.ehlo()
        address = re.sub(r"^.*<([^>]*)>.*$", r"\1", envelope_from or "")
        code, text = client.mail(address)
        assert code == 250, text
        code, text = client.rcpt(to or "")
        if code != 250:
            return code, text.decode()
        code, text = client.data(raw)
        return code, text.decode()


def addr(value: Any) -> str:
    """The bare address in a header value."""
    return re.sub(r"^.*<([^>]*)>.*$", r"\1", str(value)).lower()


def game_row(app: Any, game_id: int) -> Game:
    """The stored game."""
    with read_session(app.extensions["pbem"]["engine"]) as session:
        found = session.get(Game, game_id)
        assert found is not None
        return found


def outbox_count(app: Any) -> int:
    """How many mails the outbox holds."""
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return int(session.exec(select(func.count()).select_from(Outbox)).one())


def turn_mail(smtpd: Any) -> EmailMessage:
    """The newest mail that asks for a move."""
    return [m for m in smtpd.messages if m["Reply-To"] is not None][-1]


def reply_address(app: Any, game_id: int, seat_no: int) -> str:
    """The reply address of a seat for the game's current turn, as a turn mail would give it."""
    game = game_row(app, game_id)
    with read_session(app.extensions["pbem"]["engine"]) as session:
        seat = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == seat_no)).one()
    turn = GAMES[game.slug].turn_token(game.state, seat_no)
    site = app.extensions["pbem"]["site"]
    domain = settings_of(app).reply_domain
    return make_address(site.secret, domain, game_id, seat_no, turn, seat.link_key)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 just now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
