"""Each mail goes out from its own signed bounce address (pbem.bounces.verp) when the site has a
reply domain, and from PBEM_MAIL_FROM otherwise; the From header is the same either way."""

from __future__ import annotations

from typing import Any

import pytest

from pbem import play
from pbem.bounces import verp
from pbem.storage.db import read_session, write_session
from tests.app import make_test_app
from tests.bounces.helpers import MAIL_FROM, REPLY_DOMAIN, engine_of, outbox
from tests.mailin.helpers import addr
from tests.web.helpers import deliver

SECRET = "a-site-secret-of-at-least-32-bytes-long"
PLAYERS = [
    play.Invitee("Ana", "ana@example.org", "en"),
    play.Invitee("Léo", "leo@example.org", "fr"),
]


def start_game(app: Any, clock: Any) -> int:
    """A Colour Bazaar game with everyone joined, its mails sent."""
    engine, site = engine_of(app), app.extensions["pbem"]["site"]
    with write_session(engine) as session:
        game_id = play.create_game(session, site, "colour-bazaar", PLAYERS, {}, clock(), seed=7).id
    with write_session(engine) as session:
        play.join(session, site, game_id, 1, clock())
    deliver(app)
    return int(game_id or 0)


def test_an_address_reads_back_only_as_signed() -> None:
    made = verp.make_address(SECRET, "In.Pbem.Test", 4711, "Bea@Example.org")
    local, _, domain = made.partition("@")
    assert domain == "in.pbem.test" and local.startswith("bounce+4711.") and len(local) <= 64
    assert made == made.lower()
    bounce = verp.parse_address(made.upper(), REPLY_DOMAIN)  # a server may fold its case
    assert bounce is not None and bounce.outbox_id == 4711
    assert verp.signature_ok(SECRET, bounce, "bea@example.org")
    assert not verp.signature_ok(SECRET, bounce, "zoe@example.org")  # bound to its address
    assert not verp.signature_ok(SECRET + "x", bounce, "bea@example.org")
    other_id = verp.parse_address(made.replace("4711", "4712"), REPLY_DOMAIN)
    assert other_id is not None and not verp.signature_ok(SECRET, other_id, "bea@example.org")
    # The biggest id an address may name still fits SMTP's 64 characters before the @.
    assert len(verp.make_address(SECRET, REPLY_DOMAIN, 10**12 - 1, "a@b").split("@")[0]) <= 64


@pytest.mark.parametrize(
    "address",
    [
        "bounce+4711@in.pbem.test",  # no signature
        "bounce+4711.abcdefghabcdefgh@elsewhere.test",  # another domain
        "bounce+x.abcdefghabcdefgh@in.pbem.test",  # no id
        "bounce+4711.abcdefgh@in.pbem.test",  # too short a signature
        "play+1.0.1.abcdefghabcdefgh@in.pbem.test",  # a reply address
    ],
)
def test_what_is_no_bounce_address(address: str) -> None:
    assert verp.parse_address(address, REPLY_DOMAIN) is None
    assert verp.described(address, REPLY_DOMAIN) == "outbox=-"


def test_each_mail_goes_out_from_its_own_bounce_address(app: Any, smtpd: Any, clock: Any) -> None:
    start_game(app, clock)
    assert len(smtpd.messages) >= 3  # the invitations, then the first turn mail
    rows = {row.message_id: row for row in outbox(app)}
    site = app.extensions["pbem"]["site"]
    for mail, sender in zip(smtpd.messages, smtpd.senders, strict=True):
        assert addr(mail["From"]) == MAIL_FROM  # the From header does not change
        bounce = verp.parse_address(sender, REPLY_DOMAIN)
        assert bounce is not None, sender
        row = rows[str(mail["Message-ID"])]
        assert bounce.outbox_id == row.id
        with read_session(engine_of(app)) as session:
            mailed = verp.mail_of(session, site.secret, bounce)
        assert mailed is not None and mailed.address == addr(mail["To"])
    assert len(set(smtpd.senders)) == len(smtpd.senders)  # one address a mail


def test_without_a_reply_domain_mail_goes_out_from_mail_from(
    database_url: str, clock: Any, smtpd: Any, tmp_path: Any
) -> None:
    app = make_test_app(database_url, clock, smtpd, tmp_path, MAIL_FROM=MAIL_FROM)
    try:
        start_game(app, clock)
    finally:
        app.extensions["pbem"]["engine"].dispose()
    assert smtpd.messages and set(smtpd.senders) == {MAIL_FROM}
    assert {addr(mail["From"]) for mail in smtpd.messages} == {MAIL_FROM}
