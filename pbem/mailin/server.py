"""`pbem inbound`: the SMTP or LMTP server (aiosmtpd) the site's MTA hands the reply domain to.

It takes one recipient per message, and only a reply address or a bounce address we signed
(others get a 550 at RCPT): replies to turn mails are played (pbem.mailin.receive), reports
that a mail did not arrive recorded (pbem.mailin.bounces). The database work runs in a worker
thread, so one slow mail does not stop the listener; any failure of ours answers 451 (the MTA
tries again later), never a crash. Mail is never sent from here: answers go to the outbox,
and the clock sends them.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP, Envelope, Session

from pbem.bounces import verp
from pbem.config import Settings
from pbem.counters import metrics
from pbem.mailin.bounces import bounce_ok, receive_bounce
from pbem.mailin.receive import Arrival, address_ok, receive
from pbem.players import reply_address
from pbem.site import Site

log = logging.getLogger(__name__)
# One line a mail (issue 30), at INFO: what became of it and of which seat, never the reply
# address's signature (a credential) nor a word of the body (it may name hidden cards).
_LINE = "inbound: verdict=%s reason=%s %s message-id=%s client=%s code=%s"
TRY_LATER = "451 4.3.0 Try again later"  # any failure of ours: the MTA tries again
A = TypeVar("A")
R = TypeVar("R")
_UNPRINTABLE = re.compile(r"[^\x21-\x7e]")


def _printable(text: str) -> str:
    """A sender's text as one log word: no space, control character or line break."""
    return _UNPRINTABLE.sub("?", text)[:200]


def _or_dash(value: int | None) -> str:
    return "-" if value is None else str(value)


def _utcnow() -> datetime:
    return datetime.now(UTC)


def described(address: str, domain: str) -> str:
    """What a log line may say of a reply or bounce address: never its signature."""
    if verp.is_bounce_address(address, domain):
        return verp.described(address, domain)
    return reply_address.described(address, domain)


def _client(session: Session) -> str:
    """The SMTP client's address (its host, without the port)."""
    peer = session.peer
    return str(peer[0] if isinstance(peer, tuple) else peer or "")


class InboundHandler:
    """The aiosmtpd handler: check the address at RCPT, read and apply the mail at DATA."""

    def __init__(
        self,
        engine: Any,
        site: Site,
        settings: Settings,
        clock: Callable[[], datetime] = _utcnow,
    ) -> None:
        self.engine = engine
        self.site = site
        self.max_bytes = settings.inbound_max_bytes
        self.clock = clock
        self.verdicts: list[Any] = []  # what became of each mail, newest last (kept short)

    async def _in_worker(
        self, work: Callable[[Any, Any, A], R], arg: A, failed: str, address: str
    ) -> R | None:
        """`work(engine, site, arg)` in a worker thread (the database blocks); None, logged
        with `address` described, when it fails: the caller answers TRY_LATER."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(None, work, self.engine, self.site, arg)
        except Exception:
            log.exception(failed, described(address, self.site.reply_domain))
            return None

    async def handle_RCPT(  # noqa: N802
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        """Accept only one of our reply or bounce addresses, one per message."""
        if envelope.rcpt_tos:
            return "452 4.5.3 One recipient per message"
        bounce = verp.is_bounce_address(address, self.site.reply_domain)
        check = bounce_ok if bounce else address_ok
        ok = await self._in_worker(check, address, "inbound: checking %s failed", address)
        if ok is None:
            return TRY_LATER
        if not ok:
            where = described(address, self.site.reply_domain)
            log.info(_LINE, "rejected", "bad_address", where, "-", _client(session), 550)
            metrics.inbound_verdict("rejected", "bad_address")  # refused before DATA
            return "550 5.1.1 No such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(  # noqa: N802
        self, server: SMTP, session: Session, envelope: Envelope
    ) -> str:
        """Apply the mail's move once, or refuse it; record a bounce report once; the reply
        code says which."""
        raw = envelope.original_content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        rcpt = envelope.rcpt_tos[0] if envelope.rcpt_tos else ""
        now, client = self.clock(), _client(session)
        bounce = verp.is_bounce_address(rcpt, self.site.reply_domain)
        mail = Arrival(rcpt, raw, now, self.max_bytes, client, envelope.mail_from or "")
        judge = receive_bounce if bounce else receive
        verdict = await self._in_worker(judge, mail, "inbound: a mail for %s failed", rcpt)
        if verdict is None:
            return TRY_LATER
        where = f"game={_or_dash(verdict.game_id)} seat={_or_dash(verdict.seat)}"
        if bounce:  # the mail the report is on, and that mail's game and seat
            where = f"{verp.described(rcpt, self.site.reply_domain)} {where}"
        log.info(
            _LINE,
            verdict.status,
            verdict.reason or "-",
            where,
            _printable(verdict.message_id) or "-",
            client,
            verdict.smtp[:3],
        )
        self.verdicts.append(verdict)
        del self.verdicts[:-1000]
        return verdict.smtp


class InboundController(Controller):
    """An aiosmtpd controller that speaks SMTP, or LMTP with `lmtp=True`."""

    def __init__(self, handler: InboundHandler, lmtp: bool = False, **kwargs: Any) -> None:
        self.lmtp = lmtp
        super().__init__(handler, **kwargs)

    def factory(self) -> SMTP:
        """The protocol object for one connection."""
        server_class = LMTP if self.lmtp else SMTP
        return server_class(self.handler, **self.SMTP_kwargs)


def make_controller(
    engine: Any,
    site: Site,
    settings: Settings,
    host: str,
    port: int,
    lmtp: bool = False,
    clock: Callable[[], datetime] = _utcnow,
) -> InboundController:
    """A controller for `pbem inbound`, not yet started."""
    # aiosmtpd logs every command at INFO, RCPT TO and the reply address's signature with it:
    # only its warnings go to the log.
    logging.getLogger("mail.log").setLevel(logging.WARNING)
    handler = InboundHandler(engine, site, settings, clock)
    return InboundController(
        handler,
        lmtp=lmtp,
        hostname=host,
        port=port,
        data_size_limit=settings.inbound_max_bytes,
        server_hostname=site.reply_domain or None,
        ident="pbem inbound",
    )
