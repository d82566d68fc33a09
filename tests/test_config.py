"""The typed settings (pbem.config.Settings): the defaults operators know, read from PBEM_*
variables, and each kind of malformed value refused at start in one line that names the
setting and what it wants, never a secret's value."""

from __future__ import annotations

import os
from ipaddress import ip_network
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem.config import INSTANCE, AnyKey, ConfigError, Settings, load_settings
from pbem.console import main
from tests.settings import SECRET_KEY

# The defaults as the DEFAULTS dict of config.py held them before the settings were typed.
BEFORE = {
    "SECRET_KEY": "dev-only-not-secret",
    "DATABASE_URL": f"sqlite:///{INSTANCE / 'pbem.sqlite3'}",
    "BASE_URL": "http://127.0.0.1:5000",
    "MAIL_BACKEND": "file",
    "MAIL_DIR": str(INSTANCE / "mail"),
    "MAIL_FROM": "pbem@localhost",
    "MAIL_FROM_NAME": "pbem",
    "OPERATOR_EMAIL": "",
    "SMTP_HOST": "localhost",
    "SMTP_PORT": 25,
    "SMTP_USER": "",
    "SMTP_PASSWORD": "",
    "SMTP_SECURITY": "none",
    "SMTP_TIMEOUT": 10.0,
    "SENDER_INTERVAL": 5.0,
    "SENDER_BATCH": 50,
    "SWEEP_INTERVAL": 30.0,
    "COMPUTER_DELAY": 3.0,
    "COMPUTER_INTERVAL": 2.0,
    "CLOCK_COMPUTERS": True,
    "COMPUTER_BATCH": 4,
    "COMPUTER_LEASE": 120.0,
    "REVIEW_SIMULATIONS": None,
    "REVIEW_LEASE": 600.0,
    "TURN_MAIL_DELAY": 300.0,
    "THREAD_DOMAIN": "",
    "REPLY_DOMAIN": "",
    "INBOUND_HOST": "127.0.0.1",
    "INBOUND_PORT": 8025,
    "INBOUND_MAX_BYTES": 262144,
    "LIVE_URL": "/live/",
    "LIVE_HOST": "127.0.0.1",
    "LIVE_PORT": 8001,
    "LIVE_DATABASE_URL": "",
    "LIVE_KEEPALIVE": 25.0,
    "WEBHOOK_ALLOW_LOOPBACK": False,
    "WEBHOOK_TIMEOUT": 5.0,
    "TRUSTED_PROXIES": 0,  # was "": no proxy, now said as the count it always meant
    "KEEP_DAYS": 30,
    "FORMING_DAYS": 14,
    "DEBUG": False,
    "DEFAULT_LANG": "en",
    "DATABASE_POOL_SIZE": 5,
    "DATABASE_MAX_OVERFLOW": 10,
    "DATABASE_STATEMENT_TIMEOUT": 0,
    "DATABASE_POOLER": "none",
    "DKIM_SELECTOR": "",
    "DKIM_KEY_FILE": "",
    "DKIM_DOMAIN": "",
    "METRICS_TOKEN": "",
    "READY_MAIL_AGE": 900.0,
    "BOUNCE_THRESHOLD": 4,
}


@pytest.fixture
def bare(monkeypatch: pytest.MonkeyPatch) -> None:
    """No PBEM_* setting in the environment (the test database's address included)."""
    for name in list(os.environ):
        if name.startswith("PBEM_"):
            monkeypatch.delenv(name)


def plain(value: Any) -> Any:
    """A setting's value as the old dict held it."""
    if hasattr(value, "get_secret_value"):
        return value.get_secret_value()
    return str(value) if isinstance(value, Path) else value


def test_the_names_and_defaults_are_unchanged(bare: None) -> None:
    settings = load_settings(kind=AnyKey)  # the default key is refused without PBEM_DEBUG
    assert {name.upper() for name in Settings.model_fields} == set(BEFORE)
    found = {name.upper(): plain(value) for name, value in settings.__dict__.items()}
    assert found == BEFORE


def test_variables_are_read_as_what_they_say(bare: None, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "SECRET_KEY": SECRET_KEY,
        "SMTP_PORT": "2525",
        "SMTP_TIMEOUT": "2.5",
        "SMTP_SECURITY": "STARTTLS",  # choices are read as the lower case they are
        "CLOCK_COMPUTERS": "0",
        "DEBUG": "",  # set and empty, as a shell writes it: off
        "TRUSTED_PROXIES": "10.0.0.2, 192.168.0.0/24",
        "NO_SUCH_SETTING": "1",  # not pbem's: ignored, as before
    }.items():
        monkeypatch.setenv(f"PBEM_{name}", value)
    settings = load_settings()
    assert settings.smtp_port == 2525 and settings.smtp_timeout == 2.5
    assert settings.smtp_security == "starttls"
    assert settings.clock_computers is False and settings.debug is False
    assert settings.trusted_proxies == (ip_network("10.0.0.2"), ip_network("192.168.0.0/24"))
    monkeypatch.setenv("PBEM_TRUSTED_PROXIES", "2")
    assert load_settings().trusted_proxies == 2
    # A test's overrides come last, over the environment.
    assert load_settings({"SMTP_PORT": 587}).smtp_port == 587


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("SMTP_PORT", "abc", "PBEM_SMTP_PORT must be a whole number, not 'abc'."),
        ("SMTP_PORT", "70000", "PBEM_SMTP_PORT must be a whole number of at most 65535."),
        ("SMTP_TIMEOUT", "ten", "PBEM_SMTP_TIMEOUT must be a number of seconds, not 'ten'."),
        ("KEEP_DAYS", "-1", "PBEM_KEEP_DAYS must be a whole number of at least 0."),
        ("READY_MAIL_AGE", "0", "PBEM_READY_MAIL_AGE must be a number of seconds above 0."),
        (
            "SMTP_SECURITY",
            "tls",
            "PBEM_SMTP_SECURITY must be one of 'none', 'starttls' or 'ssl', not 'tls'.",
        ),
        ("MAIL_BACKEND", "sendmail", "PBEM_MAIL_BACKEND must be one of 'file' or 'smtp'"),
        ("DEBUG", "maybe", "PBEM_DEBUG must be on or off"),
        ("TRUSTED_PROXIES", "10.0.0.1/8", "PBEM_TRUSTED_PROXIES must be a number of proxies"),
        ("BASE_URL", "pbem.example.org", "PBEM_BASE_URL must be the address players open"),
        ("THREAD_DOMAIN", "pbem example", "PBEM_THREAD_DOMAIN must be a domain name"),
        ("OPERATOR_EMAIL", "ops", "PBEM_OPERATOR_EMAIL must be one address"),
        ("LIVE_URL", "live", "PBEM_LIVE_URL must be a path on this host"),
    ],
)
def test_a_malformed_value_is_refused_naming_the_setting(
    bare: None, monkeypatch: pytest.MonkeyPatch, name: str, value: str, said: str
) -> None:
    monkeypatch.setenv("PBEM_SECRET_KEY", SECRET_KEY)
    monkeypatch.setenv(f"PBEM_{name}", value)
    with pytest.raises(ConfigError) as refused:
        load_settings()
    assert str(refused.value).startswith(said)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("key", ["", "short-secret-4410", "dev-only-not-secret"])
def test_a_weak_key_is_refused_without_showing_it(
    bare: None, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    monkeypatch.setenv("PBEM_SECRET_KEY", key)
    with pytest.raises(ConfigError, match="PBEM_SECRET_KEY to a random value") as refused:
        load_settings()
    assert key not in str(refused.value) or not key
    monkeypatch.setenv("PBEM_DEBUG", "1")
    assert load_settings().secret_key.get_secret_value() == key  # for local use only


def test_a_short_metrics_token_is_refused_without_showing_it(
    bare: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PBEM_SECRET_KEY", SECRET_KEY)
    monkeypatch.setenv("PBEM_METRICS_TOKEN", "tok-5523")
    with pytest.raises(ConfigError, match="PBEM_METRICS_TOKEN must be at least 16") as refused:
        load_settings()
    assert "tok-5523" not in str(refused.value)


def test_several_faults_are_told_in_one_line(bare: None) -> None:
    with pytest.raises(ConfigError) as refused:
        load_settings({"DEBUG": True, "SMTP_PORT": "abc", "SMTP_SECURITY": "tls"})
    said = str(refused.value)
    assert "PBEM_SMTP_PORT" in said and "PBEM_SMTP_SECURITY" in said and "\n" not in said


def test_an_override_that_is_no_setting_is_refused(bare: None) -> None:
    """A test's overrides are checked as the variables are: a misspelt one is no setting."""
    with pytest.raises(ConfigError, match="SMTP_PROT is no pbem setting"):
        load_settings({"DEBUG": True, "SMTP_PROT": 2525})


def test_a_command_stops_at_start_with_the_one_line(bare: None, tmp_path: Path) -> None:
    env = {
        "PBEM_SECRET_KEY": SECRET_KEY,
        "PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'never.sqlite3'}",
        "PBEM_SMTP_PORT": "abc",
    }
    result = CliRunner().invoke(main, ["send-mail"], env=env)
    assert result.exit_code != 0
    assert result.output == "Error: PBEM_SMTP_PORT must be a whole number, not 'abc'.\n"
    assert not (tmp_path / "never.sqlite3").exists()
