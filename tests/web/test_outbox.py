"""Promise 3: mail is written with the move and sent at least once, with a stable Message-ID."""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from pbem.db import read_session
from pbem.models import Outbox
from pbem.sender import LEASE, claim
from tests.web.helpers import PLAYERS, deliver


def create(client: Any) -> None:
    form = {"game": "colour-bazaar"}
    for row, (name, email) in enumerate(PLAYERS):
        form[f"name_{row}"], form[f"email_{row}"] = name, email
    assert client.post("/games", data=form).status_code == 303


def rows(app: Any) -> list[Outbox]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return list(session.exec(select(Outbox).order_by(Outbox.id)))


def test_mail_waits_in_the_outbox_until_the_sender_runs(client: Any, app: Any, smtpd: Any) -> None:
    create(client)
    assert len(rows(app)) == 3 and smtpd.messages == []  # the request did not talk to SMTP
    assert deliver(app) == {"sent": 3, "failed": 0}
    assert deliver(app) == {"sent": 0, "failed": 0}
    assert len(smtpd.messages) == 3
    assert {str(m["Message-ID"]) for m in smtpd.messages} == {r.message_id for r in rows(app)}


def test_a_sender_that_died_after_claiming_loses_nothing(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    create(client)
    engine = app.extensions["pbem"]["engine"]
    claimed = claim(engine, clock(), 10)  # ...and then the process is killed
    assert len(claimed) == 3
    assert deliver(app) == {"sent": 0, "failed": 0}  # still claimed by the dead sender
    clock.advance(seconds=LEASE.total_seconds() + 1)
    assert deliver(app) == {"sent": 3, "failed": 0}
    assert sorted(str(m["Message-ID"]) for m in smtpd.messages) == sorted(
        r.message_id for r in claimed
    )


def test_smtp_down_then_back_sends_each_mail_with_its_message_id(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    create(client)
    port = smtpd.port
    app.config["SMTP_PORT"] = 1  # nothing listens there: connection refused
    assert deliver(app)["failed"] == 1
    failed = rows(app)
    assert failed[0].attempts == 1 and failed[0].last_error
    assert all(r.sent_at is None for r in failed)
    app.config["SMTP_PORT"] = port
    assert deliver(app)["sent"] == 2  # the failed one waits for its backoff
    clock.advance(minutes=1)
    assert deliver(app)["sent"] == 1
    assert sorted(str(m["Message-ID"]) for m in smtpd.messages) == sorted(
        r.message_id for r in failed
    )


def test_headers_thread_and_cannot_be_injected(client: Any, app: Any, smtpd: Any) -> None:
    form = {
        "game": "colour-bazaar",
        "name_0": "Ana\r\nBcc: evil@example.org",
        "email_0": "ana@example.org",
        "name_1": "Léo",
        "email_1": "leo@example.org",
    }
    assert client.post("/games", data=form).status_code == 303
    deliver(app)
    for msg in smtpd.messages:
        assert msg["Bcc"] is None
        assert str(msg["References"]) == str(msg["In-Reply-To"]) == "<game-1@localhost>"
        assert str(msg["Message-ID"]).endswith("@localhost>")
