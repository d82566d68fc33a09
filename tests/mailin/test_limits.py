"""The limits of `pbem inbound` (pbem/mailin/receive.py), through real SMTP: what a stranger
sends spends no allowance of the player it names, unverified and automatic mail is limited
by seat and by SMTP client, and the rows kept for it are dropped after a while."""

from __future__ import annotations

import threading
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

from sqlmodel import select

from pbem.games import GAMES
from pbem.mailin import receive as receive_module
from pbem.models import InboundMail
from pbem.storage.db import read_session
from pbem.storage.ratelimit import Limit
from tests.clock.helpers import run_sweep
from tests.mailin.helpers import (
    addr,
    answer,
    example_in,
    game_row,
    outbox_count,
    reply_address,
    send,
    turn_mail,
)

MALLORY = "mallory@evil.test"


def _rows(app: Any) -> list[InboundMail]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return list(session.exec(select(InboundMail).order_by(InboundMail.id)))


def _other_seat(app: Any, game_id: int) -> int:
    """A seat that is not to act now."""
    state = game_row(app, game_id).state
    return [s for s in range(3) if s not in GAMES["colour-bazaar"].to_act(state)][0]


def _forged(to: str, sender: str, body: str = "play castle 1 knots") -> EmailMessage:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, "move"
    msg["Message-ID"] = make_msgid(domain="evil.test")
    msg.set_content(body)
    return msg


def test_forged_mail_in_a_players_name_spends_none_of_their_allowance(
    app, smtpd, inbound, game, monkeypatch
):
    """Mail "from" a victim to a seat that is not theirs used to count against the victim's
    address, so that 121 forgeries got the victim's own reply deferred (issue 30)."""
    monkeypatch.setattr(receive_module, "BY_ADDRESS", Limit("mailin-addr", 3, 3600))
    mail = turn_mail(smtpd)
    victim = addr(mail["To"])
    elsewhere = reply_address(app, game, _other_seat(app, game))
    for _ in range(receive_module.BY_ADDRESS.count + 1):
        code, _ = send(inbound, _forged(elsewhere, victim), envelope_from=MALLORY)
        assert code in (550, 451)
    assert send(inbound, answer(mail, example_in(mail))) == (250, "2.0.0 Move played")
    assert game_row(app, game).ply == 1


def test_unverified_mail_is_limited_by_seat_and_by_client_and_the_player_still_plays(
    app, smtpd, inbound, game, monkeypatch
):
    monkeypatch.setattr(receive_module, "UNVERIFIED_BY_SEAT", Limit("mailin-unv", 3, 3600))
    monkeypatch.setattr(receive_module, "BY_CLIENT", Limit("mailin-client", 5, 3600))
    mail = turn_mail(smtpd)
    to_seat = addr(mail["Reply-To"])
    forged = [send(inbound, _forged(to_seat, MALLORY))[0] for _ in range(4)]
    assert forged == [550, 550, 550, 451]  # the seat's fourth unverified mail this hour waits
    elsewhere = reply_address(app, game, _other_seat(app, game))
    forged = [send(inbound, _forged(elsewhere, MALLORY))[0] for _ in range(2)]
    assert forged == [550, 451]  # the client's sixth unverified mail this hour waits
    assert len(_rows(app)) == 4  # a deferred mail leaves no row
    # Neither limit holds up the seat's own player.
    assert send(inbound, answer(mail, example_in(mail))) == (250, "2.0.0 Move played")
    assert game_row(app, game).ply == 1


def test_automatic_mail_is_limited_before_it_is_stored(app, smtpd, inbound, game, monkeypatch):
    """Out-of-office mail and the like was stored whatever came: 300 of 300 (issue 30)."""
    monkeypatch.setattr(receive_module, "UNVERIFIED_BY_SEAT", Limit("mailin-unv", 3, 3600))
    mail = turn_mail(smtpd)
    before = outbox_count(app)
    codes = []
    for _ in range(5):
        reply = answer(mail, example_in(mail), headers={"Auto-Submitted": "auto-replied"})
        codes.append(send(inbound, reply)[0])
    assert codes == [250, 250, 250, 451, 451]
    assert [(r.status, r.reason) for r in _rows(app)] == [("ignored", "auto_submitted")] * 3
    assert game_row(app, game).ply == 0 and outbox_count(app) == before


def test_rows_are_kept_thirty_days_then_dropped_by_sweeps_run_at_once(
    app, smtpd, inbound, game, clock
):
    """`inboundmail` was never pruned (issue 30). A row is the Message-ID's duplicate guard,
    so it stays 30 days; two clock processes sweeping at once drop it once, without error."""
    mail = turn_mail(smtpd)
    auto = {"Auto-Submitted": "auto-replied"}
    old, recent = answer(mail, "away", headers=auto), answer(mail, "away", headers=auto)
    assert send(inbound, old)[0] == 250
    clock.advance(days=29)
    assert send(inbound, recent)[0] == 250
    clock.advance(days=1, hours=1)  # `old` is 30 days and an hour old, `recent` an hour
    barrier = threading.Barrier(2)
    failures: list[BaseException] = []

    def one_sweep() -> None:
        barrier.wait()
        try:
            run_sweep(app)
        except BaseException as exc:  # noqa: BLE001 - the test reports it
            failures.append(exc)

    threads = [threading.Thread(target=one_sweep) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert [r.message_id for r in _rows(app)] == [str(recent["Message-ID"])]
    run_sweep(app)  # once more: nothing else goes
    assert send(inbound, recent)[0] == 250  # a late copy is still recognised: no second row
    assert [r.message_id for r in _rows(app)] == [str(recent["Message-ID"])]
