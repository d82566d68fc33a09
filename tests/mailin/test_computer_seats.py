"""Moves by reply at a table where a computer also plays (issue 12): the people answer
their turn mails through real SMTP, the clock's computer sweep plays the computer seat,
and the computer seat gets no mail, no reply address and no chat-room "your move"."""

from __future__ import annotations

import json
from datetime import timedelta
from email.message import EmailMessage
from typing import Any

from sqlmodel import select

from pbem import play
from pbem.clock.computer_play import sweep_computers
from pbem.models import COMPUTER_DOMAIN, Game, Move, Outbox, Player, Seat, Webhook, WebhookDelivery
from pbem.players.reply_address import make_address
from pbem.storage.db import read_session, write_session
from pbem.webhooks.events import body_of
from pbem.webhooks.registry import add_webhook
from tests.mailin.helpers import REPLY_DOMAIN, addr, answer, example_in, send
from tests.web.helpers import deliver

PEOPLE = [play.Invitee("Ana", "ana@example.org", "fr"), play.Invitee("Léo", "leo@example.org")]


def _game_with_a_computer(app: Any, clock: Any) -> int:
    """Fantasy Business in the orders auction: Ana, Léo and a beginner computer (seat 2),
    with a table webhook Ana (the creator) added; everyone joined, mail sent."""
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    invitees = [*PEOPLE, play.Invitee("", "", "en", "beginner")]
    with write_session(engine) as session:
        game = play.create_game(
            session, site, "fantasy-business", invitees, {"auction": "orders"}, clock(), seed=11
        )
        game_id = game.id
    with write_session(engine) as session:
        play.join(session, site, game_id, 1, clock())
    with write_session(engine) as session:
        game = session.get(Game, game_id)
        seat = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == 0)).one()
        player = session.get(Player, seat.player_id)
        # The table's webhook would hear every seat's turn: never the computer's.
        # (Never posted here: the clock's webhook job is not run.)
        add_webhook(session, player, game, seat, "table", "http://127.0.0.1:9/hook",
                    "generic", True, clock())  # fmt: skip
    deliver(app)
    return game_id


def test_replies_and_a_computer_play_a_whole_game(app, smtpd, inbound, clock):
    game_id = _game_with_a_computer(app, clock)
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    answered: set[str] = set()
    for _ in range(400):
        clock.advance(minutes=1)
        made = sweep_computers(engine, site, clock(), timedelta(seconds=3))
        deliver(app)
        fresh = [m for m in smtpd.messages
                 if m["Reply-To"] is not None and str(m["Message-ID"]) not in answered]  # fmt: skip
        for mail in fresh:
            answered.add(str(mail["Message-ID"]))
            code, text = send(inbound, answer(mail, example_in(mail)))
            assert code == 250, text
        deliver(app)
        if not fresh and not made:
            break
    with read_session(engine) as session:
        game = session.get(Game, game_id)
        assert game is not None
        assert game.status == "over", "the game stalled"
        sources = {(m.seat, m.source) for m in session.exec(select(Move))}
        outbox = list(session.exec(select(Outbox)))
        deliveries = list(session.exec(select(WebhookDelivery)))
        computer = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == 2)).one()
    # The people played only by mail; the computer's moves came from the clock.
    assert {source for seat, source in sources if seat in (0, 1)} == {"mail"}
    assert {source for seat, source in sources if seat == 2} == {"computer"}
    assert {"limits", "prices"} <= {m.move["action"] for m in _moves(app)}
    # No mail, no reply address and no chat-room turn notice for the computer seat.
    assert not [row for row in outbox if row.to_addr.endswith("@" + COMPUTER_DOMAIN)]
    # (A row is rendered, its address filled in, by the sender: none is even queued.)
    assert not [row for row in outbox if row.game_id == game_id and row.seat == 2]
    assert {addr(m["To"]) for m in smtpd.messages if m["Reply-To"] is not None} == {
        "ana@example.org",
        "leo@example.org",
    }
    with read_session(engine) as session:  # each body as the deliverer writes it
        turns = [
            json.loads(body_of(session, d, session.get(Webhook, d.webhook_id)))
            for d in deliveries
            if d.event == "your_turn"
        ]
    assert {(t["seat"], t["player"]) for t in turns} == {(0, "Ana"), (1, "Léo")}
    # A reply address made for the computer seat, signed right, is still refused at RCPT.
    forged = make_address(site.secret, REPLY_DOMAIN, game_id, 2, "0", computer.link_key)
    code, _ = send(inbound, _mail_to(forged), to=forged)
    assert code == 550


def _moves(app: Any) -> list[Move]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return list(session.exec(select(Move)))


def _mail_to(address: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = f"beginner@{COMPUTER_DOMAIN}"
    msg["To"] = address
    msg["Subject"] = "Re: your move"
    msg["Message-ID"] = "<computer-seat@example.org>"
    msg.set_content("limits 0")
    return msg
