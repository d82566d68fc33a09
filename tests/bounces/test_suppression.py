"""Mail to an address that bounces or complained is not sent, except what its owner asks for (a
sign-in link); a relay that refuses a mail for good at SMTP time makes a hard bounce at once,
and that mail is never tried again, while a refusal for now is retried as before."""

from __future__ import annotations

import smtplib
from typing import Any

from sqlmodel import col, select

from pbem import play
from pbem.counters import metrics
from pbem.mailout.claims import LEASE, SUPPRESSED, claim_next
from pbem.mailout.mailer import refusal
from pbem.models import MailAddress, Outbox, Player
from pbem.storage.db import read_session, write_session
from tests.bounces.helpers import address_row, engine_of, outbox, reports, score_all, sent_to
from tests.clock.helpers import new_game, run_sweep
from tests.web.helpers import deliver, play_turn

ANA, LEO, ZOE = ("Ana", "ana@example.org"), ("Léo", "leo@example.org"), ("Zoé", "zoe@example.org")
UNKNOWN = "550 5.1.1 <leo@example.org>: Recipient address rejected: User unknown"


def mark(app: Any, address: str, state: str, now: Any) -> None:
    """Set an address's state as the scoring sweep would leave it."""
    with write_session(engine_of(app)) as session:
        session.add(MailAddress(address=address, state=state, score=4, since=now, updated_at=now))


def test_a_bouncing_address_gets_only_what_its_owner_asks_for(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    first = {"opt_colour-bazaar_first": "0"}
    g1 = new_game(client, app, smtpd, [ANA, LEO], **first)  # Ana to move, then Léo
    g2 = new_game(client, app, smtpd, [ZOE, ANA], **first)  # Zoé to move: her digest lists it
    digest = {"lang": "en", "tz": "UTC", "notify": "digest"}
    assert client.post(f"{g2[ZOE[1]]}/settings", data=digest).status_code == 303
    mark(app, LEO[1], "bouncing", clock.now)
    mark(app, ZOE[1], "complained", clock.now)
    smtpd.clear()
    queued = len(outbox(app))

    play_turn(client, g1[ANA[1]])  # Léo's turn mail
    clock.advance(minutes=10)
    deliver(app)
    clock.advance(hours=24)  # Léo's reminder, Zoé's digest
    result = run_sweep(app)
    assert result["reminders"] >= 1 and result["digests"] == 1
    data = {"game": "colour-bazaar", "name_0": ANA[0], "email_0": ANA[1]}
    data |= {"name_1": LEO[0], "email_1": LEO[1]}
    assert client.post("/games", data=data).status_code == 303  # Léo's invitation
    deliver(app)
    with read_session(engine_of(app)) as session:
        emails = select(Player.id).where(col(Player.email).in_([LEO[1], ZOE[1]]))
        theirs = set(session.exec(emails).all())
    # Never rendered: nothing of them is kept but what to send and to whom.
    stopped = [row for row in outbox(app)[queued:] if row.player_id in theirs]
    assert {row.event for row in stopped} >= {"your_turn", "reminder", "digest", "invitation"}
    assert all(row.last_error == SUPPRESSED and row.sent_at is not None for row in stopped)
    assert sent_to(smtpd, LEO[1]) == sent_to(smtpd, ZOE[1]) == []
    assert sent_to(smtpd, ANA[1])  # the others' mail goes on

    assert client.post("/signin", data={"email": LEO[1]}).status_code == 200
    assert client.post("/signin", data={"email": ZOE[1]}).status_code == 200
    deliver(app)
    for email in (LEO[1], ZOE[1]):
        (signin,) = [mail for mail, _ in sent_to(smtpd, email)]
        assert "sign" in str(signin["Subject"]).lower()
    with read_session(engine_of(app)) as session:
        due = session.exec(select(Outbox.id).where(col(Outbox.sent_at).is_(None))).all()
    assert due == []  # nothing left waiting: /readyz and retention take them as done


def test_a_refusal_for_good_at_rcpt_is_a_hard_bounce_at_once_and_never_retried(
    app: Any, smtpd: Any, clock: Any
) -> None:
    smtpd.refuse[LEO[1]] = UNKNOWN
    refused, failed = (
        metrics.MAILS_BOUNCED.labels("refused")._value.get(),
        metrics.MAILS_FAILED._value.get(),
    )
    invitees = [play.Invitee(name, email, "en") for name, email in (ANA, LEO, ZOE)]
    engine, site = engine_of(app), app.extensions["pbem"]["site"]
    with write_session(engine) as session:
        play.create_game(session, site, "colour-bazaar", invitees, {}, clock(), seed=7)

    assert deliver(app) == {"sent": 2, "failed": 1}  # the drain goes on past the refusal

    assert [mail["To"].addresses[0].addr_spec for mail in smtpd.messages] == [ANA[1], ZOE[1]]
    (report,) = reports(app)
    (row,) = [row for row in outbox(app) if row.to_addr == LEO[1]]
    assert (report.address, report.kind, report.status) == (LEO[1], "refused", "5.1.1")
    assert (report.outbox_id, report.game_id) == (row.id, row.game_id)
    assert "User unknown" in report.reason
    assert row.sent_at == clock.now and row.last_error.startswith("refused by the relay: 550")
    assert metrics.MAILS_BOUNCED.labels("refused")._value.get() == refused + 1
    assert metrics.MAILS_FAILED._value.get() == failed + 1
    clock.advance(hours=3)
    assert claim_next(engine, clock.now, clock.now, LEASE) is None  # never tried again
    assert deliver(app) == {"sent": 0, "failed": 0}
    score_all(app, threshold=2)
    row_state = address_row(app, LEO[1])
    assert row_state is not None and row_state.state == "bouncing"  # 2 points: a hard bounce


def test_a_refusal_for_now_is_retried_as_before(app: Any, smtpd: Any, clock: Any) -> None:
    smtpd.refuse[LEO[1]] = "450 4.2.1 Mailbox busy, try later"
    invitees = [play.Invitee(name, email, "en") for name, email in (ANA, LEO)]
    with write_session(engine_of(app)) as session:
        play.create_game(session, app.extensions["pbem"]["site"], "colour-bazaar", invitees, {},
                         clock(), seed=7)  # fmt: skip
    deliver(app)
    (row,) = [row for row in outbox(app) if row.to_addr == LEO[1]]
    assert row.sent_at is None and row.attempts == 1 and reports(app) == []
    assert "SMTPRecipientsRefused" in (row.last_error or "")
    del smtpd.refuse[LEO[1]]
    clock.advance(minutes=1)
    deliver(app)
    assert len(sent_to(smtpd, LEO[1])) == 1 and reports(app) == []


def test_only_a_5xx_to_rcpt_or_data_is_a_refusal_for_good() -> None:
    spam = refusal(smtplib.SMTPDataError(554, b"5.7.1 Message rejected as spam"))
    assert spam is not None and (spam.status, spam.reason) == (
        "5.7.1",
        "554 5.7.1 Message rejected as spam",
    )
    plain = refusal(smtplib.SMTPRecipientsRefused({LEO[1]: (550, b"No such user")}))
    assert plain is not None and plain.status == "550"  # no enhanced status: the reply code
    assert refusal(smtplib.SMTPDataError(451, b"4.3.0 Try again later")) is None
    assert refusal(smtplib.SMTPRecipientsRefused({LEO[1]: (452, b"4.2.2 Full")})) is None
    assert refusal(smtplib.SMTPSenderRefused(553, b"5.1.8 Bad sender", "x@y")) is None
