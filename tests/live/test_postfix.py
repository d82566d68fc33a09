"""A real Postfix on loopback (pbem.devpostfix.Postfix, Debian's package) bounces as an MTA
does (issue 46): mail for an unknown user is taken, then comes back as Postfix's own DSN to
the envelope sender, through the reply domain's route, by SMTP or by LMTP; an unknown
mailbox is refused at RCPT time; mail Postfix cannot hand over comes back with a 4.x.x
status once its queue lifetime is over. No pbem database: these test the harness the bounce
tests stand on.
"""

from __future__ import annotations

import os
import smtplib
import threading
import time
from collections.abc import Iterator
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP, Envelope

from pbem.devpostfix import Postfix, postfix_bin
from pbem.devservers import HOST, free_port

REPLY = "reply.test"  # the reply domain, routed to the test's SMTP server
LMTP_REPLY = "lmtp.reply.test"  # the same, by LMTP (as `pbem inbound --lmtp` is reached)
DOWN = "down.test"  # routed to a port nothing listens on
ROUND_TRIP = 30.0  # seconds: a hung Postfix, not a slow one (it takes well under one)


class Envelopes:
    """An aiosmtpd handler keeping each mail with its envelope (the DSN's recipient)."""

    def __init__(self) -> None:
        self.taken: list[Envelope] = []
        self.lock = threading.Lock()
        self.port = free_port()

    async def handle_DATA(self, server: Any, session: Any, envelope: Envelope) -> str:  # noqa: N802
        with self.lock:
            self.taken.append(envelope)
        return "250 OK"

    def wait_for(self, recipient: str) -> tuple[Envelope, EmailMessage]:
        """The first mail whose envelope is for `recipient`, once it has come."""
        give_up = time.monotonic() + ROUND_TRIP
        while time.monotonic() < give_up:
            with self.lock:
                found = [e for e in self.taken if recipient in e.rcpt_tos]
            if found:
                content = found[0].original_content or b""
                mail = BytesParser(policy=policy.default).parsebytes(content)
                return found[0], mail
            time.sleep(0.02)
        raise AssertionError(f"nothing for {recipient} within {ROUND_TRIP:.0f} s")


class LMTPController(Controller):
    """aiosmtpd speaking LMTP."""

    def factory(self) -> SMTP:
        """The protocol object for one connection."""
        return LMTP(self.handler)


@pytest.fixture(scope="module")
def program() -> Path:
    """Debian's postfix, where it can run."""
    found = postfix_bin()
    if found is None:
        pytest.skip("Debian's postfix is not installed (.ci/run installs it)")
    if os.geteuid() != 0:
        pytest.skip("Postfix runs only as root (its queue and daemons are root's)")
    return found


@pytest.fixture(scope="module")
def inboxes() -> Iterator[tuple[Envelopes, Envelopes]]:
    """The reply domain's servers: (SMTP, LMTP)."""
    smtp, lmtp = Envelopes(), Envelopes()
    controllers = [
        Controller(smtp, hostname=HOST, port=smtp.port),
        LMTPController(lmtp, hostname=HOST, port=lmtp.port),
    ]
    for controller in controllers:
        controller.start()
    try:
        yield smtp, lmtp
    finally:
        for controller in controllers:
            controller.stop()


@pytest.fixture(scope="module")
def postfix(program: Path, inboxes: tuple[Envelopes, Envelopes]) -> Iterator[Postfix]:
    """One Postfix for the module, routing the reply domains to `inboxes`."""
    smtp, lmtp = inboxes
    routes = {REPLY: f"{HOST}:{smtp.port}", LMTP_REPLY: f"lmtp:{HOST}:{lmtp.port}"}
    server = Postfix(program, routes)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def send(port: int, sender: str, recipient: str) -> None:
    """A turn mail, as pbem would send it, through Postfix's loopback port."""
    mail = EmailMessage()
    mail["From"] = "pbem <pbem@reply.test>"
    mail["To"] = recipient
    mail["Subject"] = "Your turn in Colour Bazaar"
    mail["Message-ID"] = "<turn-1@reply.test>"
    mail.set_content("It is your turn.\n")
    with smtplib.SMTP(HOST, port, timeout=10) as client:
        client.send_message(mail, from_addr=sender, to_addrs=[recipient])


def delivery_status(dsn: EmailMessage) -> tuple[Message, ...]:
    """The DSN's per-recipient status blocks (RFC 3464), after its per-message block."""
    assert dsn.get_content_type() == "multipart/report"
    assert dsn.get_param("report-type") == "delivery-status"
    parts = [p for p in dsn.iter_parts() if p.get_content_type() == "message/delivery-status"]
    assert len(parts) == 1
    blocks = parts[0].get_payload()
    assert isinstance(blocks, list)
    return tuple(blocks[1:])


@pytest.mark.parametrize("by", ["smtp", "lmtp"])
def test_an_unknown_user_bounces_with_a_dsn_to_the_envelope_sender(
    postfix: Postfix, inboxes: tuple[Envelopes, Envelopes], by: str
) -> None:
    inbox, domain = (inboxes[0], REPLY) if by == "smtp" else (inboxes[1], LMTP_REPLY)
    bounce_address = f"bounce+abc-{by}@{domain}"
    send(postfix.port, bounce_address, f"nobody-here@{postfix.domain}")

    envelope, dsn = inbox.wait_for(bounce_address)

    assert envelope.rcpt_tos == [bounce_address]
    assert envelope.mail_from == "<>"  # a DSN has the null sender: nothing answers it
    (status,) = delivery_status(dsn)
    assert status["Final-Recipient"] == f"rfc822; nobody-here@{postfix.domain}"
    assert status["Action"] == "failed"
    assert status["Status"] == "5.1.1"
    assert "unknown user" in status["Diagnostic-Code"]
    returned = [p for p in dsn.iter_parts() if p.get_content_type() == "message/rfc822"]
    assert "<turn-1@reply.test>" in returned[0].as_string()  # the mail comes back whole
    assert drained(postfix)  # nothing held for a retry


def test_a_mail_for_two_reaches_an_lmtp_server_that_answers_once(
    postfix: Postfix, inboxes: tuple[Envelopes, Envelopes]
) -> None:
    # aiosmtpd answers DATA once where LMTP wants one answer per recipient: the harness
    # hands one recipient at a time to an LMTP server, or the second would wait minutes.
    two = [f"first@{LMTP_REPLY}", f"second@{LMTP_REPLY}"]
    with smtplib.SMTP(HOST, postfix.port, timeout=10) as client:
        client.sendmail(f"pbem@{REPLY}", two, b"Subject: two\r\n\r\nFor both.\r\n")

    for recipient in two:
        envelope, _ = inboxes[1].wait_for(recipient)
        assert envelope.rcpt_tos == [recipient]


def drained(postfix: Postfix) -> bool:
    """Whether Postfix's queue empties within ROUND_TRIP seconds (a mail just handed on may
    still show as active for a moment after its receiver has it)."""
    give_up = time.monotonic() + ROUND_TRIP
    while postfix.queue():
        if time.monotonic() > give_up:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.parametrize(
    ("recipient", "status"),
    [("nobody-here@refusing.test", b"5.1.1"), ("someone@elsewhere.example", b"5.4.4")],
)
def test_unknown_mailboxes_and_other_domains_are_refused_at_rcpt_time(
    postfix: Postfix, recipient: str, status: bytes
) -> None:
    with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        send(postfix.port, f"bounce+def@{REPLY}", recipient)

    code, text = refused.value.recipients[recipient]
    assert code == 550 and text.startswith(status)
    assert postfix.queue() == []  # refused, not queued: no DSN will follow


def test_a_bounce_waits_in_the_queue_while_the_reply_server_is_away(program: Path) -> None:
    late = Envelopes()  # its port is chosen, nothing listens there yet
    server = Postfix(program, {REPLY: f"{HOST}:{late.port}"})
    server.start()
    controller = Controller(late, hostname=HOST, port=late.port)
    try:
        send(server.port, f"bounce+jkl@{REPLY}", f"nobody-here@{server.domain}")
        wait_until_queued(server)
        controller.start()
        server.flush()  # now rather than at the next retry
        envelope, dsn = late.wait_for(f"bounce+jkl@{REPLY}")
    finally:
        controller.stop()
        server.stop()

    assert envelope.mail_from == "<>"
    (status,) = delivery_status(dsn)
    assert status["Status"] == "5.1.1"


def wait_until_queued(server: Postfix) -> None:
    """Until the DSN waits in the deferred queue (its first try failed)."""
    give_up = time.monotonic() + ROUND_TRIP
    while not any(mail["queue_name"] == "deferred" for mail in server.queue()):
        assert time.monotonic() < give_up, "the DSN was never deferred"
        time.sleep(0.02)


def test_mail_it_cannot_hand_over_bounces_with_a_temporary_status(
    program: Path, inboxes: tuple[Envelopes, Envelopes]
) -> None:
    inbox = inboxes[0]
    # A queue lifetime of 0: one try, then the DSN (as a real Postfix after five days).
    routes = {REPLY: f"{HOST}:{inbox.port}", DOWN: f"{HOST}:{free_port()}"}
    server = Postfix(program, routes, lifetime="0")
    server.start()
    try:
        send(server.port, f"bounce+ghi@{REPLY}", f"someone@{DOWN}")
        _, dsn = inbox.wait_for(f"bounce+ghi@{REPLY}")
    finally:
        server.stop()

    (status,) = delivery_status(dsn)
    assert status["Final-Recipient"] == f"rfc822; someone@{DOWN}"
    assert status["Action"] == "failed"
    assert status["Status"].startswith("4.")  # a soft bounce, however final this one is
