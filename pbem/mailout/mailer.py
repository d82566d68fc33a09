"""Mail: render the mail/ templates, build checked mails (pbem.mailout.mime), and the smtp
and file backends."""

from __future__ import annotations

import hashlib
import os
import re
import smtplib
import ssl
from datetime import datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any, Protocol

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from pbem.config import Settings
from pbem.mailout.dkim import sign
from pbem.mailout.dkimkey import dkim_key
from pbem.mailout.mime import Mail, Value, ascii_address, compose
from pbem.models import Outbox
from pbem.present.text import install_jinja, neutralise_encoded_words
from pbem.resources import folder
from pbem.site import MailTemplates

MAIL_TEMPLATES = folder("mail")
_UNSAFE = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]+")
_STATUS = re.compile(r"\b[245]\.\d{1,3}\.\d{1,3}\b")  # RFC 3463's enhanced status code


class Refused(Exception):
    """The server refused the mail for good (a 5xx to RCPT or DATA): the status (as 5.1.1,
    else the reply code) and the server's words."""

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(f"refused: {reason}")
        self.status, self.reason = status, reason


def refusal(exc: smtplib.SMTPException) -> Refused | None:
    """The refusal for good in smtplib's error for a refused recipient or mail; None for a
    4xx (the server may take it later) or any other error."""
    code: int
    text: bytes | str
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        code, text = next(iter(exc.recipients.values()), (0, b""))
    elif isinstance(exc, smtplib.SMTPDataError):
        code, text = exc.smtp_code, exc.smtp_error
    else:
        return None
    if not 500 <= int(code) <= 599:
        return None
    words = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    found = _STATUS.search(words)
    return Refused(found[0] if found else str(code), f"{code} {' '.join(words.split())}")


def clean_header(value: str) -> str:
    """A header value with no CR, LF, NUL or other control characters, nor encoded words."""
    return neutralise_encoded_words(_UNSAFE.sub(" ", value)).strip()


def make_templates(
    extra_globals: dict[str, Any] | None = None, reload: bool = False
) -> MailTemplates:
    """The templates of mail/; read once per process unless `reload` (debug) stats them."""
    text = Environment(
        loader=FileSystemLoader(str(MAIL_TEMPLATES)),
        autoescape=False,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=reload,
    )
    install_jinja(text)
    text.globals.update(extra_globals or {})
    # An overlay shares the loader and globals, with a cache of its own.
    return MailTemplates(text=text, html=text.overlay(autoescape=True))


def render_mail(
    templates: MailTemplates, event: str, lang: str, context: dict[str, Any]
) -> tuple[str, str, str]:
    """(subject, text, html) for `event` in `lang`; the .txt starts with a Subject: line.

    One template pair serves every language: its strings go through the catalogues of the
    recipient's language, given to the templates as `lang` (no request needed: the clock too).
    """
    context = {**context, "lang": lang}
    text = templates.text.get_template(f"{event}.txt").render(context)
    html = templates.html.get_template(f"{event}.html").render(context)
    first, _, body = text.partition("\n")
    if not first.startswith("Subject:"):
        raise ValueError(f"mail/{event}.txt must start with a Subject: line")
    return clean_header(first[len("Subject:") :]), body.lstrip("\n"), html


def build_message(
    row: Outbox, from_addr: str, from_name: str, envelope_from: str | None = None
) -> Mail:
    """The mail of an outbox row, with its stable Message-ID and thread headers, written and
    checked (UnsafeMessage if its headers would not read back as built). `envelope_from`:
    the envelope sender (its bounce address, pbem.bounces.verp), if not `from_addr`."""
    sender, to_addr = ascii_address(from_addr), ascii_address(row.to_addr)
    fields: list[tuple[str, Value]] = [
        ("From", (clean_header(from_name), sender)),
        ("To", (clean_header(row.to_name), to_addr)),
        ("Subject", clean_header(row.subject)),
        ("Date", format_datetime(row.created_at)),
        ("Message-ID", row.message_id),
    ]
    if row.thread_id:
        fields += [("In-Reply-To", row.thread_id), ("References", row.thread_id)]
    fields += [(clean_header(k), clean_header(v)) for k, v in sorted(row.headers.items())]
    fields.append(("Auto-Submitted", "auto-generated"))
    data = compose(fields, row.body_text, row.body_html)
    envelope = ascii_address(envelope_from) if envelope_from else sender
    return Mail(envelope, to_addr, row.message_id, data)


class Backend(Protocol):
    """Something that delivers messages."""

    def send(self, mail: Mail) -> None:
        """Deliver one mail or raise (Refused when the server refuses it for good)."""

    def close(self) -> None:
        """Let go of what sending held open (the sender calls it when a drain ends)."""

    def rest(self, now: datetime) -> None:
        """A drain that keeps the backend for the next ended at `now`: let go of what has
        been idle too long."""


class _Smtp(smtplib.SMTP):
    """smtplib's client, which knows whether the mail now going has reached DATA: until then
    the server has taken nothing, and the mail may go again on a new connection."""

    in_data = False

    def data(self, msg: Any) -> tuple[int, bytes]:
        """Send DATA and the mail (smtplib's), noting that it was begun."""
        self.in_data = True
        return super().data(msg)


class _SmtpSsl(smtplib.SMTP_SSL, _Smtp):
    """The same over SSL from the start."""


class SmtpBackend:
    """Deliver through an SMTP server, with a timeout, STARTTLS or SSL; signed with DKIM when
    the settings give a key (pbem.mailout.dkim).

    One connection carries many mails (up to PER_CONNECTION of them): a connection, its TLS
    handshake and its login cost a real server's round trips for every mail. The clock keeps
    it from one drain to the next, and closes it once no mail went on it for IDLE (servers
    drop idle clients after a few minutes, RFC 5321 4.5.3.2)."""

    PER_CONNECTION = 50  # then a new one: providers limit the mails a connection may carry
    IDLE = timedelta(seconds=60)

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.host = settings.smtp_host
        self.port = settings.smtp_port
        self.user = settings.smtp_user
        self.password = settings.smtp_password.get_secret_value()
        self.security = settings.smtp_security
        self.timeout = settings.smtp_timeout
        self._smtp: _Smtp | None = None
        self._carried = 0  # mails sent on the open connection
        self._used: datetime | None = None  # when a drain last sent on it (rest)
        self._opened = self._server()  # the server and user of the open connection
        # Read and checked when the process started (pbem.app), kept since.
        self.dkim = dkim_key(settings)

    def _open(self) -> _Smtp:
        """Connect, say hello (and STARTTLS), log in if configured (as the settings say now:
        a kept backend sees a change of them at its next connection)."""
        settings = self.settings
        self._opened = self._server()
        self.host, self.port, self.security, self.user = self._opened
        self.password = settings.smtp_password.get_secret_value()
        if self.security == "ssl":
            smtp: _Smtp = _SmtpSsl(
                self.host, self.port, timeout=self.timeout, context=ssl.create_default_context()
            )
        else:
            smtp = _Smtp(self.host, self.port, timeout=self.timeout)
        try:
            if self.security == "starttls":
                smtp.starttls(context=ssl.create_default_context())
            if self.user:
                smtp.login(self.user, self.password)
        except BaseException:
            smtp.close()
            raise
        return smtp

    def send(self, mail: Mail) -> None:
        """Send on the open connection, or on a new one; any failure drops the connection.

        A kept connection the server has closed meanwhile (an idle timeout, a restart), or on
        which it takes no more mail (421 to MAIL FROM, its own limit), gets one more try on a
        new connection, but only when the mail had not reached DATA on the old one: before
        DATA the server has taken nothing; once in DATA it may have taken the mail, which
        is then left to a later drain, as any failure is (once more at most, one
        Message-ID), rather than sent again at once. A recipient or a mail refused (to RCPT
        or DATA; Refused when for good) leaves the connection as it was: smtplib has sent
        RSET."""
        # Signed last, over the bytes as sent: smtplib changes none (they are CR LF already,
        # and the dots it doubles the server takes away).
        data = sign(mail.data, self.dkim) if self.dkim else mail.data
        if self._smtp is not None and (
            self._carried >= self.PER_CONNECTION or self._server() != self._opened
        ):
            self.close()  # its limit; or the settings name another server now
        kept = self._smtp is not None
        try:
            if self._smtp is None:
                self._smtp, self._carried = self._open(), 0
            try:
                self._smtp.in_data = False
                self._smtp.sendmail(mail.sender, [mail.recipient], data)
            except (smtplib.SMTPServerDisconnected, smtplib.SMTPSenderRefused) as exc:
                # 421 to MAIL FROM: the server takes no more on this connection (its limit).
                if not kept or self._smtp.in_data or getattr(exc, "smtp_code", 421) != 421:
                    raise
                self._drop()
                self._smtp, self._carried = self._open(), 0
                self._smtp.sendmail(mail.sender, [mail.recipient], data)
        except (smtplib.SMTPRecipientsRefused, smtplib.SMTPDataError) as exc:
            self._carried += 1
            found = refusal(exc)
            if found is None:
                raise
            raise found from exc
        except BaseException:
            self._drop()
            raise
        self._carried += 1
        self._used = None  # a mail went: idle from the end of this drain (rest)

    def _server(self) -> tuple[str, int, Any, str]:
        """The server the settings name now, and the user to log in as."""
        settings = self.settings
        return (settings.smtp_host, settings.smtp_port, settings.smtp_security, settings.smtp_user)

    def rest(self, now: datetime) -> None:
        """Close the connection once no drain has sent on it for IDLE (the clock's drains
        keep it open between them, pbem.clock.scheduler)."""
        if self._smtp is None:
            return
        if self._used is None:
            self._used = now
        elif now - self._used >= self.IDLE:
            self.close()

    def close(self) -> None:
        """Say goodbye (QUIT) and close the connection, if one is open."""
        smtp, self._smtp, self._used = self._smtp, None, None
        if smtp is not None:
            try:
                smtp.quit()
            except (smtplib.SMTPException, OSError):
                smtp.close()

    def _drop(self) -> None:
        """Close the connection without a word: after a failure it is in no known state."""
        smtp, self._smtp = self._smtp, None
        if smtp is not None:
            smtp.close()


class FileBackend:
    """Store each message as an .eml file; the mailbox page reads them back."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)

    def send(self, mail: Mail) -> None:
        """Write the mail; a resend of the same Message-ID replaces the file."""
        self.directory.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256(mail.message_id.encode()).hexdigest()[:16]
        name = f"{digest}.eml"
        tmp = self.directory / f".{name}.tmp"
        tmp.write_bytes(mail.data)
        os.replace(tmp, self.directory / name)

    def close(self) -> None:
        """Nothing is held open."""

    def rest(self, now: datetime) -> None:
        """Nothing is held open."""


def make_backend(settings: Settings) -> Backend:
    """The backend the settings name."""
    if settings.mail_backend == "smtp":
        return SmtpBackend(settings)
    return FileBackend(settings.mail_dir)
