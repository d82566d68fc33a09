"""The app a test builds in process (make_test_app), and what it is built with: the clock the
tests move by hand, the inbox of the loopback SMTP server, a client whose posts carry the form
token a page would have given them."""

from __future__ import annotations

import asyncio
import re
import threading
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from typing import Any
from urllib.parse import urlsplit

from flask.testing import FlaskClient

from pbem import create_app
from pbem.web.csrf import csrf_token
from tests.settings import app_settings


class Clock:
    """A clock the tests move by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


class Inbox:
    """An aiosmtpd handler that keeps every message it accepts."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.raw: list[bytes] = []  # the bytes delivered, as the server received them
        self.peers: list[Any] = []  # the client's (address, port) of each: one per connection
        self.senders: list[str] = []  # the envelope sender (MAIL FROM) of each
        # Recipients refused at RCPT, with the reply given (a relay that knows them unknown).
        self.refuse: dict[str, str] = {}
        self.close_after_each = False  # hang up once a mail is taken (an idle timeout, say)
        self.per_connection: int | None = None  # then 421 to MAIL FROM (a provider's limit)
        self.busy_after: int | None = None  # then 451 to DATA: taken no more for a while
        self.lock = threading.Lock()

    async def handle_MAIL(  # noqa: N802
        self, server: Any, session: Any, envelope: Any, address: str, options: list[str]
    ) -> str:
        with self.lock:
            taken = self.peers.count(session.peer)  # mails taken on this connection
        if self.per_connection is not None and taken >= self.per_connection:
            return "421 4.7.0 No more mail on this connection"
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_RCPT(  # noqa: N802
        self, server: Any, session: Any, envelope: Any, address: str, options: list[str]
    ) -> str:
        with self.lock:
            refused = self.refuse.get(address.lower())
        if refused is not None:
            return refused
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(options)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        with self.lock:
            busy = self.busy_after is not None and len(self.messages) >= self.busy_after
        if busy:
            return "451 4.3.0 Try again later"
        msg = BytesParser(policy=policy.default).parsebytes(envelope.original_content)
        with self.lock:
            self.messages.append(msg)  # type: ignore[arg-type]
            self.raw.append(envelope.original_content)
            self.peers.append(session.peer)
            self.senders.append(envelope.mail_from)
        if self.close_after_each:
            # After the reply is written: the mail is taken, then the line goes dead.
            asyncio.get_running_loop().call_soon(server.transport.close)
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        """Messages addressed to `address`, oldest first."""
        with self.lock:
            return [m for m in self.messages if address in str(m["To"])]

    def clear(self) -> None:
        with self.lock:
            self.messages.clear()
            self.raw.clear()
            self.peers.clear()
            self.senders.clear()


def make_test_app(
    database_url: str, clock: Clock, smtpd: Inbox, tmp_path: Any, **extra: Any
) -> Any:
    """The app every test uses: the test database, the hand-moved clock, mail through the
    loopback SMTP server; `extra` adds or overrides settings (REPLY_DOMAIN, webhooks...)."""
    settings = app_settings(
        database_url,
        tmp_path,
        MAIL_BACKEND="smtp",
        SMTP_HOST="127.0.0.1",
        SMTP_PORT=smtpd.port,  # type: ignore[attr-defined]
        SMTP_TIMEOUT=5.0,
        CLOCK=clock,
    )
    app = create_app(settings | extra)
    app.test_client_class = FormClient
    return app


class FormClient(FlaskClient):
    """A test client whose POSTs carry the form token a page would have given them.

    Pass raw=True to post exactly what is given (the CSRF tests do).
    """

    def post(self, *args: Any, raw: bool = False, **kwargs: Any) -> Any:
        if not raw:
            path = urlsplit(str(args[0] if args else kwargs.get("path", ""))).path
            match = re.match(r"^/(?:[pwu]|signin)/([^/]+)", path)
            data = dict(kwargs.get("data") or {})
            if "csrf" not in data:
                with self.application.test_request_context():
                    data["csrf"] = csrf_token(match.group(1) if match else "")
            kwargs["data"] = data
        return super().post(*args, **kwargs)
