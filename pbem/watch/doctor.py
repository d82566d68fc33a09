"""`pbem doctor`: a deployment's settings and services checked, one line each with what to do.

The settings are read here, not through the app: doctor reports on the ones the app would
refuse to start with. Each check is a function of the Doctor (the settings, and the database
as found, connected once) that gives one Finding; CHECKS holds them in the order printed,
and a new check is one more function in it. No line shows a secret (scrub).
"""

from __future__ import annotations

import ipaddress
import smtplib
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from urllib.parse import urlsplit

from alembic.migration import MigrationContext
from pydantic import SecretStr
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from pbem.config import (
    MIN_SECRET_BYTES,
    AnyKey,
    ConfigError,
    Settings,
    database_settings,
    load_settings,
    thread_domain,
    weak_key,
)
from pbem.mailout.dkim import dkim_problems, txt_lookup
from pbem.mailout.mailer import SmtpBackend
from pbem.storage.db import head_revision, make_engine, standing
from pbem.storage.pooler import REFUSAL, is_postgres, probe

OK, WARN, FAIL = "ok", "WARN", "FAIL"
TIMEOUT = 5  # seconds to wait for the database and the inbound listener (SMTP: its setting)
# Names no site owns for long (RFC 6761 and 6762): a thread under one is no site's own.
PASSING_NAMES = ("localhost", ".localhost", ".local", ".test", ".invalid", ".example")
NEW_KEY = "python -c 'import secrets; print(secrets.token_urlsafe(32))'"
NEWEST_THREAD = text("SELECT thread FROM game WHERE thread IS NOT NULL ORDER BY id DESC LIMIT 1")


@dataclass(frozen=True)
class Finding:
    """One check's verdict (ok, WARN or FAIL) and what it found or what to do."""

    status: str
    check: str
    text: str

    def line(self) -> str:
        """The finding as doctor prints it."""
        return f"{self.status:<4} {self.check}: {self.text}"


@dataclass(frozen=True)
class Database:
    """The database as found: its engine and migration revision, or why there is none."""

    engine: Engine | None
    revision: str | None = None
    error: str = ""


class Doctor:
    """What the checks share: the settings, and the database, connected to once."""

    def __init__(self, settings: Settings) -> None:
        """A doctor for these settings (pbem.config.load_settings's)."""
        self.settings = settings

    @cached_property
    def database(self) -> Database:
        """Connect once, with a time limit, as the app would (make_engine)."""
        url = self.settings.database_url
        parsed = make_url(url)
        if not is_postgres(url):
            path = parsed.database or ""
            if path and path != ":memory:" and not Path(path).exists():
                return Database(None, error=f"no database file at {path}")
        else:
            parsed = parsed.update_query_dict({"connect_timeout": str(TIMEOUT)})
        settings = database_settings(self.settings)
        engine = make_engine(parsed.render_as_string(hide_password=False), settings)
        try:
            with engine.connect() as connection:
                revision = MigrationContext.configure(connection).get_current_revision()
        except SQLAlchemyError as exc:
            engine.dispose()
            return Database(None, error=first_line(getattr(exc, "orig", None) or exc))
        return Database(engine, revision)

    def close(self) -> None:
        """Let the database go."""
        if "database" in self.__dict__ and self.database.engine is not None:
            self.database.engine.dispose()


Check = Callable[[Doctor], Finding]


def first_line(exc: BaseException) -> str:
    """An error's first line."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def check_settings(doctor: Doctor) -> Finding:
    """Every setting the app checks at start, but the key (which has its own line): read,
    they passed (examine reports the settings it cannot read instead of the checks)."""
    return Finding(OK, "settings", "the PBEM_* settings are well-formed")


def check_secret_key(doctor: Doctor) -> Finding:
    """A key of our own, long enough: it signs every seat link and session."""
    what, debug = weak_key(doctor.settings.secret_key), doctor.settings.debug
    if what:
        fix = f"set PBEM_SECRET_KEY to a random value ({NEW_KEY})"
        if debug:
            return Finding(WARN, "secret key", f"PBEM_SECRET_KEY is {what} (PBEM_DEBUG): {fix}")
        said = f"PBEM_SECRET_KEY is {what}: anyone can sign seat links and sessions; {fix}"
        return Finding(FAIL, "secret key", said)
    return Finding(OK, "secret key", f"PBEM_SECRET_KEY is set, {MIN_SECRET_BYTES} bytes or more")


def check_base_url(doctor: Doctor) -> Finding:
    """The address in every mailed link: https, unless debug."""
    base = urlsplit(doctor.settings.base_url)
    shown = f"{base.scheme}://{base.hostname or ''}{f':{base.port}' if base.port else ''}"
    if base.scheme not in ("http", "https") or not base.hostname:
        said = "PBEM_BASE_URL must be the address players open, as https://pbem.example.org"
        return Finding(FAIL, "base URL", said)
    if base.scheme == "https":
        return Finding(OK, "base URL", f"{shown}{base.path}")
    if doctor.settings.debug:
        return Finding(OK, "base URL", f"{shown}{base.path} (http: PBEM_DEBUG is on)")
    fix = "serve pbem over TLS (a proxy such as nginx) and set PBEM_BASE_URL=https://..."
    said = f"PBEM_BASE_URL is {shown}: seat links and sign-in cookies cross networks in clear"
    return Finding(FAIL, "base URL", f"{said}; {fix}")


def check_database(doctor: Doctor) -> Finding:
    """The database answers and is migrated to this pbem's head."""
    shown = make_url(doctor.settings.database_url).render_as_string(hide_password=True)
    found = doctor.database
    if found.engine is None and not is_postgres(doctor.settings.database_url):
        fix = "run pbem migrate (it makes the file), or correct PBEM_DATABASE_URL"
        return Finding(FAIL, "database", f"{found.error}: {fix}")
    if found.engine is None:
        fix = "start PostgreSQL or correct PBEM_DATABASE_URL, then run pbem migrate"
        return Finding(FAIL, "database", f"{shown} does not answer ({found.error}): {fix}")
    head, where = head_revision(), standing(found.revision)
    if where == "current":
        return Finding(OK, "database", f"{shown} answers, migrated to {head}")
    if where == "none":
        return Finding(FAIL, "database", f"{shown} has no pbem tables: run pbem migrate")
    if where == "ahead":
        said = "which this pbem does not know (a newer pbem migrated it): run that pbem"
        return Finding(FAIL, "database", f"{shown} is at revision {found.revision}, {said}")
    said = f"this pbem needs {head}: back it up (pbem backup), then run pbem migrate"
    return Finding(FAIL, "database", f"{shown} is at revision {found.revision}, {said}")


def check_pooler(doctor: Doctor) -> Finding:
    """Not behind a transaction pooler that PBEM_DATABASE_POOLER does not name."""
    url = doctor.settings.database_url
    if not is_postgres(url):
        return Finding(OK, "pooler", "SQLite: no pooler")
    if doctor.settings.database_pooler == "transaction":
        said = "PBEM_DATABASE_POOLER=transaction: no statement is prepared on the server"
        return Finding(OK, "pooler", said)
    if doctor.database.engine is None:
        return Finding(WARN, "pooler", "not checked: the database does not answer")
    found = probe(url, TIMEOUT)
    if found.pooled is None:
        return Finding(WARN, "pooler", f"could not tell ({found.error})")
    if found.pooled:
        return Finding(FAIL, "pooler", REFUSAL + " Every pbem process refuses to start so.")
    return Finding(OK, "pooler", "each connection is a session of its own (no transaction pooler)")


def check_mail(doctor: Doctor) -> Finding:
    """Mail goes somewhere: the SMTP server takes a session (no mail is sent)."""
    settings = doctor.settings
    if settings.mail_backend != "smtp":
        if settings.debug:
            return Finding(OK, "mail", f"kept in {settings.mail_dir}, shown at /mailbox/")
        fix = "set PBEM_MAIL_BACKEND=smtp and PBEM_SMTP_HOST, _PORT, _SECURITY, _USER, _PASSWORD"
        said = f"PBEM_MAIL_BACKEND is '{settings.mail_backend}' and PBEM_DEBUG is off"
        return Finding(FAIL, "mail", f"{said}: mail goes nowhere; {fix}")
    where = f"{settings.smtp_host}:{settings.smtp_port}"
    security = settings.smtp_security
    steps = ["TLS"] if security == "ssl" else []
    steps += ["EHLO"] + (["STARTTLS"] if security == "starttls" else [])
    steps += [f"LOGIN as {settings.smtp_user}"] if settings.smtp_user else []
    try:
        # The sender's own way in: what passes here is what each drain of the outbox does.
        smtp = SmtpBackend(settings)._open()
        try:
            smtp.ehlo_or_helo_if_needed()
        finally:
            smtp.quit()
    except smtplib.SMTPNotSupportedError as exc:
        fix = "set PBEM_SMTP_SECURITY to what the server offers (none, starttls or ssl)"
        if "AUTH" in str(exc):
            fix = "the server takes no login here: leave PBEM_SMTP_USER empty, or use its TLS port"
        return Finding(FAIL, "mail", f"{where}: {first_line(exc)}; {fix}")
    except smtplib.SMTPAuthenticationError as exc:
        fix = "check PBEM_SMTP_USER and PBEM_SMTP_PASSWORD"
        return Finding(FAIL, "mail", f"{where} refused the login ({exc.smtp_code}): {fix}")
    except ssl.SSLError as exc:
        fix = "check PBEM_SMTP_SECURITY, _PORT and the server's certificate"
        return Finding(FAIL, "mail", f"{where}: TLS failed ({first_line(exc)}): {fix}")
    except (smtplib.SMTPException, OSError) as exc:
        fix = "check PBEM_SMTP_HOST and _PORT, and that the mail server runs"
        return Finding(FAIL, "mail", f"{where} does not answer ({first_line(exc)}): {fix}")
    return Finding(OK, "mail", f"{where} answered: {', '.join(steps)}, QUIT (no mail sent)")


def check_replies(doctor: Doctor) -> Finding:
    """With a reply domain, pbem inbound listens where the MTA hands it the replies."""
    settings = doctor.settings
    domain = settings.reply_domain.strip()
    if not domain:
        return Finding(OK, "replies", "PBEM_REPLY_DOMAIN is not set: replies by mail are off")
    where = f"{settings.inbound_host}:{settings.inbound_port}"
    try:
        # The greeting (220) and QUIT: what the MTA meets before it hands a reply over.
        smtplib.SMTP(settings.inbound_host, settings.inbound_port, timeout=TIMEOUT).quit()
    except (smtplib.SMTPException, OSError) as exc:
        fix = "run pbem inbound there, or unset PBEM_REPLY_DOMAIN to turn replies by mail off"
        said = f"nothing answers at {where} ({first_line(exc)}), where mail to @{domain} goes"
        return Finding(FAIL, "replies", f"{said}: {fix}")
    return Finding(OK, "replies", f"pbem inbound answers at {where} for @{domain}")


def check_thread_domain(doctor: Doctor) -> Finding:
    """The domain of threads and Message-IDs is a name the site keeps."""
    name = thread_domain(doctor.settings)
    source = "PBEM_THREAD_DOMAIN" if doctor.settings.thread_domain else "PBEM_BASE_URL's host"
    if _lasting(name) or doctor.settings.debug:
        return Finding(OK, "thread domain", f"{name} ({source})")
    said = f"{name} ({source}) is no name of the site's own, and mail clients thread by it"
    return Finding(WARN, "thread domain", f"{said}: set PBEM_THREAD_DOMAIN to the site's domain")


def _lasting(name: str) -> bool:
    """Whether `name` is a domain a site can own (no address, no name for local use)."""
    try:
        ipaddress.ip_address(name.strip("[]"))
        return False
    except ValueError:
        pass
    return "." in name and not any(name == n.strip(".") or name.endswith(n) for n in PASSING_NAMES)


def check_game_threads(doctor: Doctor) -> Finding:
    """The newest game threads under the domain new games will get."""
    name = thread_domain(doctor.settings)
    engine = doctor.database.engine
    if engine is None:
        return Finding(WARN, "game threads", "not checked: the database does not answer")
    try:
        with engine.connect() as connection:
            thread = connection.execute(NEWEST_THREAD).scalar()
    except SQLAlchemyError:
        return Finding(WARN, "game threads", "not checked: the database is not migrated")
    if thread is None:
        return Finding(OK, "game threads", f"no game yet; new games will thread under {name}")
    last = str(thread).rpartition("@")[2].rstrip(">")
    if last != name:
        said = f"the newest game threads under {last}, new ones will under {name}"
        fix = f"set PBEM_THREAD_DOMAIN={last} to keep one domain (each game keeps its own)"
        return Finding(WARN, "game threads", f"{said}: {fix}")
    return Finding(OK, "game threads", f"the newest game threads under {name}, as new ones will")


def check_dkim(doctor: Doctor) -> Finding:
    """pbem's own DKIM signature, when it signs: the key, the domain, the record published."""
    if not (doctor.settings.dkim_selector or doctor.settings.dkim_key_file):
        return Finding(OK, "dkim", "pbem does not sign: the relay or the MTA should (DMARC)")
    problems = dkim_problems(doctor.settings, lookup=txt_lookup)
    if problems:
        return Finding(FAIL, "dkim", " ".join(problems))
    return Finding(OK, "dkim", "the key signs, and DNS publishes it")


def check_metrics(doctor: Doctor) -> Finding:
    """/metrics: off, or open to the bearer of a token (never to anyone)."""
    if not doctor.settings.metrics_token.get_secret_value():
        return Finding(OK, "metrics", "/metrics is off (set PBEM_METRICS_TOKEN to scrape it)")
    return Finding(OK, "metrics", "/metrics answers requests bearing PBEM_METRICS_TOKEN only")


# In the order printed. Another check is one more function here.
CHECKS: list[Check] = [
    check_settings,
    check_secret_key,
    check_base_url,
    check_database,
    check_pooler,
    check_mail,
    check_dkim,
    check_replies,
    check_thread_domain,
    check_game_threads,
    check_metrics,
]


def secrets_in(settings: Settings) -> list[str]:
    """The values no line may show: the key, passwords, tokens, the databases' passwords."""
    found = [
        value.get_secret_value()
        for value in settings.__dict__.values()
        if isinstance(value, SecretStr)
    ]
    for url in (settings.database_url, settings.live_database_url):
        try:
            found.append(make_url(url).password or "" if url else "")
        except ArgumentError:
            pass  # a URL that does not parse has no password to hide
    # Longest first, so a secret inside another is not left half shown.
    return sorted((s for s in found if s), key=len, reverse=True)


def scrub(line: str, secrets: list[str]) -> str:
    """`line` with every secret replaced by ***."""
    for secret in secrets:
        line = line.replace(secret, "***")
    return line


def examine() -> tuple[list[str], bool]:
    """Run the checks on the settings in force; the lines to print, and whether all passed
    (no FAIL). A check that breaks is a FAIL line, and the others still run."""
    try:
        settings = load_settings(kind=AnyKey)
    except ConfigError as exc:
        # Nothing else is checked: the settings read are those of no process that starts.
        return [Finding(FAIL, "settings", str(exc)).line()], False
    doctor = Doctor(settings)
    findings = []
    try:
        for check in CHECKS:
            try:
                findings.append(check(doctor))
            except Exception as exc:  # told as the check's line; the others still run
                name = check.__name__.removeprefix("check_").replace("_", " ")
                findings.append(Finding(FAIL, name, f"the check broke: {first_line(exc)}"))
    finally:
        doctor.close()
    hidden = secrets_in(settings)
    lines = [scrub(finding.line(), hidden) for finding in findings]
    return lines, all(finding.status != FAIL for finding in findings)
