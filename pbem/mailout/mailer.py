"""Mail: render the mail/ templates, build checked mails (pbem.mailout.mime), and the smtp
and file backends."""

from __future__ import annotations

import hashlib
import os
import re
import smtplib
import ssl
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


class SmtpBackend:
    """Deliver through an SMTP server, with a timeout, STARTTLS or SSL; signed with DKIM when
    the settings give a key (pbem.mailout.dkim).

    One connection carries a drain's mails (up to PER_CONNECTION of them): a connection,
    its TLS handshake and its login cost a real server's round trips for every mail."""

    PER_CONNECTION = 50  # then a new one: providers limit the mails a connection may carry

    def __init__(self, settings: Settings) -> None:
        self.host = settings.smtp_host
        self.port = settings.smtp_port
        self.user = settings.smtp_user
        self.password = settings.smtp_password.get_secret_value()
        self.security = settings.smtp_security
        self.timeout = settings.smtp_timeout
        self._smtp: smtplib.SMTP | None = None
        self._carried = 0  # mails sent on the open connection
        # Read and checked when the process started (pbem.app), kept since.
        self.dkim = dkim_key(settings)

    def _open(self) -> smtplib.SMTP:
        """Connect, say hello (and STARTTLS), log in if configured."""
        if self.security == "ssl":
            smtp: smtplib.SMTP = smtplib.SMTP_SSL(
                self.host, self.port, timeout=self.timeout, context=ssl.create_default_context()
            )
        else:
            smtp = smtplib.SMTP(self.host, self.port, timeout=self.timeout)
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

        A kept connection the server has closed meanwhile (an idle timeout), or on which it
        takes no more mail (421 to MAIL FROM, its own limit), gets one more try on a new
        connection: the mail was not taken on the old one. A recipient or a mail refused
        (to RCPT or DATA; Refused when for good) leaves the connection as it was: smtplib
        has sent RSET."""
        # Signed last, over the bytes as sent: smtplib changes none (they are CR LF already,
        # and the dots it doubles the server takes away).
        data = sign(mail.data, self.dkim) if self.dkim else mail.data
        if self._smtp is not None and self._carried >= self.PER_CONNECTION:
            self.close()
        kept = self._smtp is not None
        try:
            if self._smtp is None:
                self._smtp, self._carried = self._open(), 0
            try:
                self._smtp.sendmail(mail.sender, [mail.recipient], data)
            except (smtplib.SMTPServerDisconnected, smtplib.SMTPSenderRefused) as exc:
                # 421 to MAIL FROM: the server takes no more on this connection (its limit).
                if not kept or getattr(exc, "smtp_code", 421) != 421:
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

    def close(self) -> None:
        """Say goodbye (QUIT) and close the connection, if one is open."""
        smtp, self._smtp = self._smtp, None
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


def make_backend(settings: Settings) -> Backend:
    """The backend the settings name."""
    if settings.mail_backend == "smtp":
        return SmtpBackend(settings)
    return FileBackend(settings.mail_dir)
