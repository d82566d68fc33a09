"""`pbem doctor` run as an operator runs it, against real services: a sound deployment passes
every check; each broken setting or service fails its own line, says what to do, and makes
the exit status non-zero; no line shows a secret."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from click.testing import CliRunner
from sqlalchemy.engine import make_url

from pbem.console import main
from pbem.devservers import free_port
from pbem.mailin.server import make_controller
from pbem.play import Invitee, create_game
from pbem.storage.db import head_revision, migrate, write_session
from tests.app import Inbox, make_test_app
from tests.settings import PG_URL
from tests.storage.bouncer import pgbouncer
from tests.storage.helpers import empty_database

SECRET_KEY = "doctor-test-key-0123456789-abcdefghijklmnop"
CHECKS = [
    "settings",
    "secret key",
    "base URL",
    "database",
    "pooler",
    "mail",
    "dkim",
    "replies",
    "thread domain",
    "game threads",
    "metrics",
]


class Report:
    """What `pbem doctor` printed, line by line, and its exit status."""

    def __init__(self, code: int, output: str) -> None:
        self.code = code
        self.output = output
        self.lines: dict[str, tuple[str, str]] = {}
        for line in output.splitlines():
            status, _, rest = line.partition(" ")
            check, _, said = rest.strip().partition(": ")
            self.lines[check] = (status, said)

    def status(self, check: str) -> str:
        return self.lines[check][0]

    def said(self, check: str) -> str:
        return self.lines[check][1]


def doctor(settings: dict[str, Any], **changes: Any) -> Report:
    """Run `pbem doctor` with these PBEM_* settings (None: unset), as from a shell."""
    env = {f"PBEM_{key}": None if value is None else str(value) for key, value in settings.items()}
    env |= {f"PBEM_{key}": None if v is None else str(v) for key, v in changes.items()}
    result = CliRunner().invoke(main, ["doctor"], env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return Report(result.exit_code, result.output)


@pytest.fixture
def sound(database_url: str, smtpd: Inbox, tmp_path: Path) -> dict[str, Any]:
    """The settings of a sound deployment: https, its own key, a migrated database, SMTP."""
    return {
        "SECRET_KEY": SECRET_KEY,
        "BASE_URL": "https://pbem.example.org",
        "DATABASE_URL": database_url,
        "DATABASE_POOLER": "none",
        "MAIL_BACKEND": "smtp",
        "MAIL_DIR": tmp_path / "mail",
        "SMTP_HOST": "127.0.0.1",
        "SMTP_PORT": smtpd.port,  # type: ignore[attr-defined]
        "SMTP_SECURITY": "none",
        "SMTP_USER": "",
        "SMTP_PASSWORD": "",
        "SMTP_TIMEOUT": 5,
        "REPLY_DOMAIN": "",
        "THREAD_DOMAIN": "",
        "DEBUG": "0",
    }


def test_a_sound_deployment_passes_every_check(sound: dict[str, Any], smtpd: Inbox) -> None:
    report = doctor(sound)
    assert report.code == 0, report.output
    assert list(report.lines) == CHECKS
    assert {report.status(check) for check in CHECKS} == {"ok"}, report.output
    assert report.said("mail").endswith("answered: EHLO, QUIT (no mail sent)")
    assert f"migrated to {head_revision()}" in report.said("database")
    assert smtpd.messages == []


@pytest.mark.parametrize(
    ("key", "said"),
    [("dev-only-not-secret", "is the default"), ("short-key", "is under 32 bytes")],
)
def test_a_key_of_no_use_fails(sound: dict[str, Any], key: str, said: str) -> None:
    report = doctor(sound, SECRET_KEY=key)
    assert report.code == 1
    assert report.status("secret key") == "FAIL"
    assert said in report.said("secret key") and "token_urlsafe" in report.said("secret key")
    # The app would refuse to start with that key; doctor reports on everything else too.
    assert list(report.lines) == CHECKS and report.status("database") == "ok"


def test_http_fails_unless_debug(sound: dict[str, Any]) -> None:
    report = doctor(sound, BASE_URL="http://pbem.example.org")
    assert report.code == 1 and report.status("base URL") == "FAIL"
    assert "set PBEM_BASE_URL=https://" in report.said("base URL")
    relaxed = doctor(sound, BASE_URL="http://pbem.example.org", DEBUG="1")
    assert relaxed.code == 0 and relaxed.status("base URL") == "ok"


def test_a_database_that_does_not_answer_fails(sound: dict[str, Any], tmp_path: Path) -> None:
    nowhere = f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/pbem"
    report = doctor(sound, DATABASE_URL=nowhere)
    assert report.code == 1 and report.status("database") == "FAIL"
    assert "does not answer" in report.said("database") and "refused" in report.said("database")
    assert report.status("pooler") == "WARN" and report.status("game threads") == "WARN"
    missing = tmp_path / "nothing" / "pbem.sqlite3"
    report = doctor(sound, DATABASE_URL=f"sqlite:///{missing}")
    assert report.status("database") == "FAIL" and "run pbem migrate" in report.said("database")
    assert not missing.parent.exists()  # doctor made no database of its own


def test_a_database_behind_on_migrations_fails(
    sound: dict[str, Any], database_url: str, tmp_path: Path
) -> None:
    url = empty_database(database_url, tmp_path)
    if not PG_URL:
        (tmp_path / "empty.sqlite3").touch()  # an empty file: an SQLite database with no tables
    try:
        report = doctor(sound, DATABASE_URL=url)
        assert report.status("database") == "FAIL"
        assert report.said("database").endswith("has no pbem tables: run pbem migrate")
        migrate(url, "0025")
        report = doctor(sound, DATABASE_URL=url)
        assert report.code == 1 and report.status("database") == "FAIL"
        assert f"is at revision 0025, this pbem needs {head_revision()}" in report.said("database")
        assert "then run pbem migrate" in report.said("database")
        migrate(url)
        assert doctor(sound, DATABASE_URL=url).status("database") == "ok"
    finally:
        migrate(database_url)  # leave the shared test database as the other tests expect


def test_a_transaction_pooler_not_named_fails(sound: dict[str, Any], database_url: str) -> None:
    with pgbouncer() as url:
        report = doctor(sound, DATABASE_URL=url)
        announced = doctor(sound, DATABASE_URL=url, DATABASE_POOLER="transaction")
    assert report.code == 1 and report.status("pooler") == "FAIL"
    assert report.status("database") == "ok"
    assert "PBEM_DATABASE_POOLER is 'none'" in report.said("pooler")
    assert "Set PBEM_DATABASE_POOLER=transaction" in report.said("pooler")
    assert announced.code == 0 and announced.status("pooler") == "ok"


def test_postgresql_itself_is_no_pooler(sound: dict[str, Any], database_url: str) -> None:
    if not PG_URL:
        pytest.skip("PostgreSQL only (PBEM_TEST_DATABASE_URL)")
    report = doctor(sound)
    assert report.status("pooler") == "ok" and "session of its own" in report.said("pooler")


def test_an_smtp_server_that_is_down_fails(sound: dict[str, Any]) -> None:
    report = doctor(sound, SMTP_PORT=free_port())
    assert report.code == 1 and report.status("mail") == "FAIL"
    assert "does not answer" in report.said("mail") and "PBEM_SMTP_HOST" in report.said("mail")


def test_the_file_backend_fails_unless_debug(sound: dict[str, Any]) -> None:
    report = doctor(sound, MAIL_BACKEND="file")
    assert report.code == 1 and report.status("mail") == "FAIL"
    assert "mail goes nowhere; set PBEM_MAIL_BACKEND=smtp" in report.said("mail")
    relaxed = doctor(sound, MAIL_BACKEND="file", DEBUG="1")
    assert relaxed.code == 0 and relaxed.status("mail") == "ok"


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, made now."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("the openssl program makes the test certificate: apt-get install openssl")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


class Logins:
    """An aiosmtpd authenticator that takes one user and password."""

    def __init__(self, user: str, password: str) -> None:
        self.user, self.password = user.encode(), password.encode()

    def __call__(self, server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> Any:
        given = (data.login, data.password) if isinstance(data, LoginPassword) else None
        # handled=False: aiosmtpd itself answers (235, or 535 to a refusal).
        return AuthResult(success=given == (self.user, self.password), handled=False)


@contextmanager
def tls_server(certificate: tuple[Path, Path], implicit: bool) -> Iterator[int]:
    """An SMTP server on 127.0.0.1 offering STARTTLS (implicit: TLS from the first byte) and
    a login as ana / the password; yields its port."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(*certificate)
    port = free_port()
    options: dict[str, Any] = {"authenticator": Logins("ana", "pw-0f-the-relay")}
    if implicit:
        # aiosmtpd counts only STARTTLS as TLS for AUTH: on its TLS port the whole session is.
        options |= {"ssl_context": context, "auth_require_tls": False}
    else:
        options |= {"tls_context": context}
    controller = Controller(Inbox(), hostname="127.0.0.1", port=port, **options)
    controller.start()
    try:
        yield port
    finally:
        controller.stop()


@pytest.mark.parametrize(
    ("security", "steps"), [("starttls", "EHLO, STARTTLS"), ("ssl", "TLS, EHLO")]
)
def test_smtp_over_tls_with_a_login(
    sound: dict[str, Any],
    certificate: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    security: str,
    steps: str,
) -> None:
    """As the sender does: TLS checked against the trusted certificates, then LOGIN."""
    login = {"SMTP_SECURITY": security, "SMTP_USER": "ana", "SMTP_PASSWORD": "pw-0f-the-relay"}
    with tls_server(certificate, implicit=security == "ssl") as port:
        untrusted = doctor(sound, SMTP_PORT=port, **login)
        monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))  # the test's own authority
        report = doctor(sound, SMTP_PORT=port, **login)
        refused = doctor(sound, SMTP_PORT=port, **(login | {"SMTP_PASSWORD": "pw-wrong-0ne"}))
    assert untrusted.status("mail") == "FAIL" and "certificate verify failed" in untrusted.output
    assert report.code == 0 and report.status("mail") == "ok", report.output
    assert report.said("mail").endswith(f"{steps}, LOGIN as ana, QUIT (no mail sent)")
    assert refused.code == 1 and refused.status("mail") == "FAIL"
    assert "refused the login (535)" in refused.said("mail")
    for run in (untrusted, report, refused):
        assert "pw-0f-the-relay" not in run.output and "pw-wrong-0ne" not in run.output


def test_starttls_asked_of_a_server_that_offers_none_fails(sound: dict[str, Any]) -> None:
    report = doctor(sound, SMTP_SECURITY="starttls")
    assert report.code == 1 and report.status("mail") == "FAIL"
    assert "STARTTLS extension not supported" in report.said("mail")
    assert "set PBEM_SMTP_SECURITY" in report.said("mail")


def test_replies_need_pbem_inbound_listening(
    sound: dict[str, Any], database_url: str, clock: Any, smtpd: Inbox, tmp_path: Path
) -> None:
    port = free_port()
    report = doctor(sound, REPLY_DOMAIN="in.pbem.example.org", INBOUND_PORT=port)
    assert report.code == 1 and report.status("replies") == "FAIL"
    assert "nothing answers at 127.0.0.1:" in report.said("replies")
    assert "run pbem inbound there, or unset PBEM_REPLY_DOMAIN" in report.said("replies")
    app = make_test_app(database_url, clock, smtpd, tmp_path, REPLY_DOMAIN="in.pbem.example.org")
    ext = app.extensions["pbem"]
    inbound = make_controller(ext["engine"], ext["site"], ext["settings"], "127.0.0.1", port, True)
    inbound.start()
    try:
        report = doctor(sound, REPLY_DOMAIN="in.pbem.example.org", INBOUND_PORT=port)
    finally:
        inbound.stop()
        ext["engine"].dispose()
    assert report.code == 0 and report.status("replies") == "ok"
    assert (
        report.said("replies")
        == f"pbem inbound answers at 127.0.0.1:{port} for @in.pbem.example.org"
    )
    assert "replies by mail are off" in doctor(sound).said("replies")


def test_a_thread_domain_of_no_site_warns(sound: dict[str, Any]) -> None:
    for base in ("https://127.0.0.1", "https://localhost:8443", "https://pbem.test"):
        report = doctor(sound, BASE_URL=base)
        assert report.status("thread domain") == "WARN", base
        assert "set PBEM_THREAD_DOMAIN" in report.said("thread domain")
        assert report.code == 0  # a warning, not a failure
    named = doctor(sound, BASE_URL="https://127.0.0.1", THREAD_DOMAIN="pbem.example.org")
    assert named.status("thread domain") == "ok"
    assert named.said("thread domain") == "pbem.example.org (PBEM_THREAD_DOMAIN)"


def test_new_games_threading_apart_from_the_last_ones_warns(
    sound: dict[str, Any], database_url: str, clock: Any, smtpd: Inbox, tmp_path: Path
) -> None:
    app = make_test_app(database_url, clock, smtpd, tmp_path, BASE_URL="https://old.example.org")
    ext = app.extensions["pbem"]
    with write_session(ext["engine"]) as session:
        people = [Invitee("Ana", "ana@example.org"), Invitee("Léo", "leo@example.org")]
        create_game(session, ext["site"], "colour-bazaar", people, {}, clock())
    ext["engine"].dispose()
    report = doctor(sound)
    assert report.code == 0 and report.status("game threads") == "WARN"
    assert report.said("game threads").startswith(
        "the newest game threads under old.example.org, new ones will under pbem.example.org"
    )
    assert "PBEM_THREAD_DOMAIN=old.example.org" in report.said("game threads")
    kept = doctor(sound, THREAD_DOMAIN="old.example.org")
    assert kept.status("game threads") == "ok"


def test_settings_the_app_refuses_are_reported(sound: dict[str, Any]) -> None:
    report = doctor(sound, SMTP_SECURITY="tls")
    assert report.code == 1 and report.status("settings") == "FAIL"
    assert "PBEM_SMTP_SECURITY must be" in report.said("settings")
    unreadable = doctor(sound, SMTP_PORT="twenty-five")
    assert unreadable.code == 1
    assert unreadable.output.startswith("FAIL settings: PBEM_SMTP_PORT must be a whole number")


def test_no_secret_is_shown(sound: dict[str, Any], database_url: str, tmp_path: Path) -> None:
    """Neither the key, nor a password (the SMTP server's, the database's), nor a token,
    when the checks pass or when they fail."""
    secrets = {"SMTP_PASSWORD": "smtp-pass-7781", "METRICS_TOKEN": "metrics-token-5523"}
    database = database_url
    if PG_URL:  # the test server trusts every login: a password in the URL is only shown
        database = make_url(database_url).set(password="db-pass-9931").render_as_string(False)
    runs = [
        doctor(sound, DATABASE_URL=database, **secrets),
        doctor(sound, DATABASE_URL=database, SMTP_USER="ana", **secrets),  # no AUTH offered
        doctor(sound, SECRET_KEY="short-secret-4410", SMTP_PORT=free_port(), **secrets),
    ]
    assert runs[0].code == 0 and runs[1].code == 1 and runs[2].code == 1
    for run in runs:
        for secret in (SECRET_KEY, "short-secret-4410", "db-pass-9931", *secrets.values()):
            assert secret not in run.output


def test_dkim_signing_fails_until_dns_publishes_the_key(
    sound: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DNS is asked for the record (here a stand-in for the resolver: the test has no DNS)."""
    key = tmp_path / "dkim.pem"
    subprocess.run(
        ["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
        stdout=key.open("wb"),
        check=True,
    )
    key.chmod(0o600)
    signing = {"MAIL_FROM": "pbem@pbem.example.org", "DKIM_SELECTOR": "s1", "DKIM_KEY_FILE": key}
    published: dict[str, str] = {}
    monkeypatch.setattr("pbem.watch.doctor.txt_lookup", published.get)
    report = doctor(sound, **signing)
    assert report.code == 1 and report.status("dkim") == "FAIL"
    assert "No TXT record at s1._domainkey.pbem.example.org" in report.said("dkim")
    record = CliRunner().invoke(
        main, ["dkim-record"], env={f"PBEM_{k}": str(v) for k, v in (sound | signing).items()}
    )
    value = record.output.split("value: ", 1)[1].splitlines()[0]
    published["s1._domainkey.pbem.example.org"] = value
    report = doctor(sound, **signing)
    assert report.code == 0 and report.status("dkim") == "ok", report.output
    assert "BEGIN" not in report.output and "MII" not in report.output
    key.chmod(0o644)
    report = doctor(sound, **signing)
    assert report.status("dkim") == "FAIL" and "chmod 600" in report.said("dkim")
