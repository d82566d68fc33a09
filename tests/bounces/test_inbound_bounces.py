"""Reports received by the real `pbem inbound` listener at the bounce address a mail went out
from: recorded once, for the address that bounce address names; a forged or stale bounce
address is refused as a bad reply address is; anything that is no report is ignored, and
nothing received there is ever answered."""

from __future__ import annotations

import logging
from email.message import EmailMessage
from typing import Any

import pytest
from sqlmodel import col, select

from pbem import play
from pbem.bounces import verp
from pbem.config import settings_of
from pbem.counters import metrics
from pbem.mailin import bounces
from pbem.mailin.bounces import BY_ADDRESS, receive_bounce
from pbem.mailin.receive import Arrival
from pbem.mailout import claims
from pbem.models import Game, InboundMail
from pbem.storage.db import read_session, write_session
from pbem.storage.ratelimit import Limit
from tests.bounces.helpers import (
    SAMPLE_RECIPIENT,
    SAMPLES,
    dsn,
    engine_of,
    outbox,
    reports,
    sent_to,
)
from tests.mailin.helpers import send
from tests.web.helpers import deliver

PLAYERS = [
    play.Invitee("Ana", "ana@example.org", "en"),
    play.Invitee("Bea", "bea@example.org", "en"),
]
BEA = "bea@example.org"


@pytest.fixture
def game(app: Any, clock: Any) -> int:
    """A Colour Bazaar game with Ana and Bea, everyone joined, its mails sent."""
    engine, site = engine_of(app), app.extensions["pbem"]["site"]
    with write_session(engine) as session:
        game_id = play.create_game(session, site, "colour-bazaar", PLAYERS, {}, clock(), seed=7).id
    with write_session(engine) as session:
        play.join(session, site, game_id, 1, clock())
    deliver(app)
    return int(game_id or 0)


def bea_bounce_address(smtpd: Any) -> str:
    """The bounce address of the last mail Bea was sent."""
    return sent_to(smtpd, BEA)[-1][1]


def bounced(kind: str = "hard") -> float:
    return float(metrics.MAILS_BOUNCED.labels(kind)._value.get())


def test_a_dsn_records_a_hard_bounce_for_the_address_its_bounce_address_names(
    app: Any, smtpd: Any, game: int, inbound: Any, caplog: Any
) -> None:
    caplog.set_level(logging.INFO)
    bounce_address = bea_bounce_address(smtpd)
    counted, queued = bounced(), len(outbox(app))

    code, text = send(inbound, dsn(bounce_address), to=bounce_address, envelope_from="<>")

    assert code == 250, text
    (report,) = reports(app)
    # The DSN's body names nobody-here@localhost.test: the bounce address says whose it is.
    assert (report.address, report.kind, report.status) == (BEA, "hard", "5.1.1")
    assert SAMPLE_RECIPIENT not in report.address
    assert "unknown user" in report.reason and report.scored_at is None
    assert report.game_id == game
    assert (
        report.outbox_id
        == verp.parse_address(bounce_address, settings_of(app).reply_domain).outbox_id
    )
    assert bounced() == counted + 1
    assert len(outbox(app)) == queued  # never answered
    (line,) = [r.getMessage() for r in caplog.records if "verdict=" in r.getMessage()]
    assert f"verdict=recorded reason=hard outbox={report.outbox_id} game={game}" in line
    signature = bounce_address.partition("@")[0].rsplit(".", 1)[1]
    assert signature not in caplog.text and BEA not in caplog.text


def test_a_second_copy_of_a_dsn_changes_nothing(
    app: Any, smtpd: Any, game: int, inbound: Any
) -> None:
    bounce_address = bea_bounce_address(smtpd)
    for _ in range(2):
        assert send(inbound, dsn(bounce_address), to=bounce_address, envelope_from="<>")[0] == 250
    assert len(reports(app)) == 1
    with read_session(engine_of(app)) as session:
        rows = list(session.exec(select(InboundMail)))
    assert [(row.status, row.reason) for row in rows] == [("recorded", "hard")]


@pytest.mark.parametrize("how", ["forged", "other_address", "missing_id", "no_signature"])
def test_a_forged_or_stale_bounce_address_changes_nothing_and_is_logged(
    app: Any, smtpd: Any, game: int, inbound: Any, caplog: Any, how: str
) -> None:
    caplog.set_level(logging.INFO)
    real = bea_bounce_address(smtpd)
    bounce = verp.parse_address(real, settings_of(app).reply_domain)
    assert bounce is not None
    secret, domain = app.extensions["pbem"]["site"].secret, settings_of(app).reply_domain
    forged = {
        "forged": real.replace(bounce.signature, "a" * 16),
        # Ana, signing up to make Bea's address bounce with her own mail's bounce address.
        "other_address": verp.make_address(secret, domain, bounce.outbox_id, "ana@example.org"),
        "missing_id": verp.make_address(secret, domain, 99999, BEA),  # no such mail (kept)
        "no_signature": f"bounce+{bounce.outbox_id}@{domain}",
    }[how]

    code, _ = send(inbound, dsn(forged), to=forged, envelope_from="<>")

    assert code == 550
    assert reports(app) == []
    (line,) = [r.getMessage() for r in caplog.records if "verdict=" in r.getMessage()]
    assert "verdict=rejected reason=bad_address" in line
    if how != "no_signature":
        assert forged.partition("@")[0].rsplit(".", 1)[1] not in caplog.text


def test_a_forged_address_is_refused_at_data_too(app: Any, smtpd: Any, game: int) -> None:
    """receive_bounce checks the signature itself, whatever checked RCPT."""
    real = bea_bounce_address(smtpd)
    bounce = verp.parse_address(real, settings_of(app).reply_domain)
    assert bounce is not None
    forged = real.replace(bounce.signature, "b" * 16)
    ext = app.extensions["pbem"]
    mail = Arrival(forged, dsn(forged), app.config["CLOCK"](), 10**6)
    verdict = receive_bounce(ext["engine"], ext["site"], mail)
    assert (verdict.status, verdict.reason, verdict.smtp[:3]) == ("rejected", "bad_token", "550")
    assert reports(app) == []


def test_an_out_of_office_reply_to_a_bounce_address_is_ignored_unanswered(
    app: Any, smtpd: Any, game: int, inbound: Any, caplog: Any
) -> None:
    caplog.set_level(logging.INFO)
    bounce_address = bea_bounce_address(smtpd)
    reply = EmailMessage()
    reply["From"] = BEA
    reply["To"] = bounce_address
    reply["Subject"] = "Out of office"
    reply["Message-ID"] = "<away-1@example.org>"
    reply["Auto-Submitted"] = "auto-replied"
    reply.set_content("I am away until Monday.\n")
    queued = len(outbox(app))

    assert send(inbound, reply, to=bounce_address)[0] == 250

    assert reports(app) == [] and len(outbox(app)) == queued
    assert any("verdict=ignored reason=not_report" in r.getMessage() for r in caplog.records)


def test_a_bounce_for_a_seat_of_a_finished_game_still_counts(
    app: Any, smtpd: Any, game: int, inbound: Any
) -> None:
    bounce_address = bea_bounce_address(smtpd)
    with write_session(engine_of(app)) as session:
        row = session.get(Game, game)
        assert row is not None
        row.status = "over"
        session.add(row)
    assert send(inbound, dsn(bounce_address), to=bounce_address, envelope_from="<>")[0] == 250
    assert [(r.address, r.kind, r.game_id) for r in reports(app)] == [(BEA, "hard", game)]


def test_a_flood_of_reports_for_one_address_is_written_only_up_to_its_daily_allowance(
    app: Any, smtpd: Any, game: int, inbound: Any
) -> None:
    bounce_address = bea_bounce_address(smtpd)
    for number in range(BY_ADDRESS.count + 3):
        copy = dsn(bounce_address, message_id=f"<flood-{number}@localhost.test>")
        assert send(inbound, copy, to=bounce_address, envelope_from="<>")[0] == 250
    assert len(reports(app)) == BY_ADDRESS.count
    with read_session(engine_of(app)) as session:
        written = session.exec(select(InboundMail.message_id).order_by(col(InboundMail.id))).all()
    assert len(written) == BY_ADDRESS.count


def test_a_flood_from_one_client_waits_for_the_mta_to_try_again(
    app: Any, smtpd: Any, game: int, inbound: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bounces, "BY_CLIENT", Limit("bounce-client", 2, 3600))
    bounce_address = bea_bounce_address(smtpd)
    codes = [
        send(inbound, dsn(bounce_address, f"<c{n}@localhost.test>"), bounce_address, "<>")[0]
        for n in range(3)
    ]
    assert codes == [250, 250, 451]  # counted before anything of it is read or stored
    assert len(reports(app)) == 2


@pytest.mark.parametrize(
    ("sample", "kind", "status"),
    [
        ("gmail-over-quota.eml", "soft", "4.2.2"),
        ("exim-unknown-user.eml", "hard", "5.1.1"),
        ("office365-recipient-not-found.eml", "hard", "5.1.10"),
        ("qmail-no-mailbox.eml", "hard", "5.1.1"),
        ("arf-abuse.eml", "complaint", ""),
        ("arf-not-spam.eml", None, None),
        ("postfix-delayed.eml", None, None),
        ("out-of-office.eml", None, None),
        ("person-writing.eml", None, None),
        ("read-receipt.eml", None, None),
    ],
)
def test_each_kind_of_report_is_recorded_for_the_address_its_bounce_address_names(
    app: Any, smtpd: Any, game: int, inbound: Any, sample: str, kind: str | None, status: str
) -> None:
    bounce_address = bea_bounce_address(smtpd)
    counted = bounced(kind) if kind else 0.0
    raw = (SAMPLES / sample).read_bytes()

    assert send(inbound, raw, to=bounce_address, envelope_from="<>")[0] == 250

    if kind is None:  # no report: nothing written, nothing answered
        assert reports(app) == []
        return
    (report,) = reports(app)
    # The sample names someone at example.com or .net: the bounce address says it is Bea.
    assert (report.address, report.kind, report.status) == (BEA, kind, status)
    assert bounced(kind) == counted + 1


def test_a_bounce_back_before_its_mail_is_marked_sent_finds_the_mail(
    app: Any, smtpd: Any, clock: Any, monkeypatch: Any
) -> None:
    """A relay may bounce a mail at once, before the sender has marked it sent (it does so
    with the next mail's claim): the address it went to is stored before it goes."""

    def killed(*_args: Any, **_kwargs: Any) -> None:
        raise RuntimeError("the sender died after the server took the mail")

    engine, site = engine_of(app), app.extensions["pbem"]["site"]
    with write_session(engine) as session:
        play.create_game(session, site, "colour-bazaar", PLAYERS, {}, clock(), seed=7)
    monkeypatch.setattr(claims, "mark_sent", killed)
    with pytest.raises(RuntimeError):
        deliver(app)
    (sender,) = smtpd.senders  # taken by the server, never marked sent
    bounce = verp.parse_address(sender, settings_of(app).reply_domain)
    assert bounce is not None
    with read_session(engine) as session:
        found = verp.mail_of(session, site.secret, bounce)
    assert found is not None and found.address in {p.email for p in PLAYERS}
    assert all(row.sent_at is None for row in outbox(app))
