"""The whole way round, with a real Postfix (pbem.devpostfix, Debian's package) as pbem's SMTP
server: a turn mail to an address Postfix cannot deliver (an unknown user at its own domain)
is taken, then comes back as Postfix's DSN to the mail's bounce address; Postfix hands the
reply domain to the real `pbem inbound` (by SMTP or LMTP), which records the report; the
clock's sweep scores it, the address is bouncing, the other player's page says so, and the
next mail to it is not sent."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pbem import play
from pbem.bounces import verp
from pbem.clock.scheduler import sweep_due
from pbem.devpostfix import Postfix, postfix_bin
from pbem.devservers import HOST
from pbem.mailin.server import make_controller
from pbem.mailout.claims import SUPPRESSED
from pbem.storage.db import write_session
from tests.app import make_test_app
from tests.bounces.helpers import MAIL_FROM, REPLY_DOMAIN, address_row, engine_of, outbox, reports
from tests.mailin.helpers import free_port
from tests.web.helpers import deliver, link_in, text_of

ROUND_TRIP = 30.0  # seconds: a hung Postfix or listener, not a slow one (it takes one or two)
ANA = "ana@example.org"  # routed by Postfix to the test's SMTP server: delivered


@pytest.fixture(scope="module")
def program() -> Path:
    """Debian's postfix, where it can run."""
    found = postfix_bin()
    if found is None:
        pytest.skip("Debian's postfix is not installed (.ci/run installs it)")
    if os.geteuid() != 0:
        pytest.skip("Postfix runs only as root (its queue and daemons are root's)")
    return found


def wait_for(what: str, found: Any) -> Any:
    """`found()`'s first true answer, within ROUND_TRIP seconds."""
    give_up = time.monotonic() + ROUND_TRIP
    while time.monotonic() < give_up:
        answer = found()
        if answer:
            return answer
        time.sleep(0.05)
    raise AssertionError(f"no {what} within {ROUND_TRIP:.0f} s")


@pytest.fixture(params=["smtp", "lmtp"])
def through_postfix(
    request: Any, program: Path, database_url: str, clock: Any, smtpd: Any, tmp_path: Any
) -> Iterator[tuple[Any, Postfix]]:
    """The app sending through a Postfix that routes the reply domain to `pbem inbound` (by
    SMTP or LMTP) and example.org to the test's SMTP server; an address turns bouncing at 2."""
    lmtp = request.param == "lmtp"
    port = free_port()
    inbound_route = f"{'lmtp:' if lmtp else ''}{HOST}:{port}"
    routes = {REPLY_DOMAIN: inbound_route, "example.org": f"{HOST}:{smtpd.port}"}
    postfix = Postfix(program, routes)
    app = make_test_app(
        database_url, clock, smtpd, tmp_path,
        MAIL_FROM=MAIL_FROM, REPLY_DOMAIN=REPLY_DOMAIN, SMTP_PORT=postfix.port,
        BOUNCE_THRESHOLD=2,
    )  # fmt: skip
    ext = app.extensions["pbem"]
    inbound = make_controller(
        ext["engine"], ext["site"], ext["settings"], HOST, port, lmtp, app.config["CLOCK"]
    )
    inbound.start()
    postfix.start()
    try:
        yield app, postfix
    finally:
        postfix.stop()
        inbound.stop()
        ext["engine"].dispose()


def test_an_unknown_user_bounces_back_to_pbem_and_turns_bouncing(
    through_postfix: tuple[Any, Postfix], smtpd: Any, clock: Any
) -> None:
    app, postfix = through_postfix
    bea = f"nobody-here@{postfix.domain}"  # Postfix takes it, then finds no such user
    engine, site = engine_of(app), app.extensions["pbem"]["site"]
    invitees = [play.Invitee("Ana", ANA, "en"), play.Invitee("Bea", bea, "en")]
    with write_session(engine) as session:
        game_id = play.create_game(
            session, site, "colour-bazaar", invitees, {"first": 1}, clock(), seed=7
        ).id
    with write_session(engine) as session:
        play.join(session, site, game_id, 1, clock())  # Bea's turn first
    assert deliver(app)["failed"] == 0  # Postfix took every mail, Bea's too
    (turn_mail,) = [row for row in outbox(app) if row.to_addr == bea and row.event == "your_turn"]

    report = wait_for(
        "report of the turn mail", lambda: [r for r in reports(app) if r.outbox_id == turn_mail.id]
    )[0]
    assert (report.address, report.kind, report.status, report.game_id) == (
        bea, "hard", "5.1.1", game_id
    )  # fmt: skip
    assert "unknown user" in report.reason
    # Ana's mail went through Postfix to her server, from its own bounce address.
    wait_for("Ana's mail", lambda: any(ANA in str(m["To"]) for m in smtpd.messages))
    assert all(verp.parse_address(s, REPLY_DOMAIN) for s in smtpd.senders)

    to_bea = [row for row in outbox(app) if row.to_addr == bea]  # the invitation too
    wait_for("every report", lambda: len(reports(app)) == len(to_bea))
    sweep_due(app)  # the clock's sweep scores it: one hard bounce is 2, the threshold here

    row = address_row(app, bea)
    assert row is not None and (row.state, row.score, row.last_kind) == ("bouncing", 2, "hard")
    assert row.since == clock.now
    # Nothing held for a retry: the queue empties (a mail just handed on may still show as
    # active for a moment after its receiver has it).
    wait_for("an empty Postfix queue", lambda: postfix.queue() == [])

    # Ana's table says so, within the sweep that scored it: she may reach Bea another way.
    ana_link = next(link_in(m) for m in smtpd.to(ANA) if "/p/" in text_of(m))
    page = app.test_client().get(ana_link).get_data(as_text=True)
    assert "Mail to Bea has bounced since" in page and "their turn" in page
    assert "nobody-here" not in page  # the report's address stays off the other seats' page

    # The next mail to Bea (her reminder a day on) is not sent.
    clock.advance(hours=24)
    assert sweep_due(app)["reminders"] == 1
    (reminder,) = [row for row in outbox(app) if row.event == "reminder"]
    assert reminder.last_error == SUPPRESSED and reminder.sent_at == clock.now
