"""Configuration: defaults, then PBEM_* environment variables, then test config."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

DEFAULT_SECRET_KEY = "dev-only-not-secret"
MIN_SECRET_BYTES = 32
INSTANCE = Path(os.environ.get("PBEM_INSTANCE", Path.cwd() / "instance"))

DEFAULTS: dict[str, Any] = {
    "SECRET_KEY": DEFAULT_SECRET_KEY,
    "DATABASE_URL": f"sqlite:///{INSTANCE / 'pbem.sqlite3'}",
    "BASE_URL": "http://127.0.0.1:5000",
    "MAIL_BACKEND": "file",  # file (local mailbox) or smtp
    "MAIL_DIR": str(INSTANCE / "mail"),
    "MAIL_FROM": "pbem@localhost",
    "MAIL_FROM_NAME": "pbem",
    "SMTP_HOST": "localhost",
    "SMTP_PORT": 25,
    "SMTP_USER": "",
    "SMTP_PASSWORD": "",
    "SMTP_SECURITY": "none",  # none, starttls or ssl
    "SMTP_TIMEOUT": 10.0,
    "SENDER_INTERVAL": 5.0,  # seconds between outbox drains in the clock
    "SENDER_BATCH": 50,
    "SWEEP_INTERVAL": 30.0,  # seconds between sweeps for timeouts, reminders and digests
    "COMPUTER_DELAY": 3.0,  # seconds a computer player waits before its move
    "COMPUTER_INTERVAL": 2.0,  # seconds between the clock's looks for computer moves due
    # Whether the clock also makes computer moves; off where `pbem computers` workers run.
    "CLOCK_COMPUTERS": True,
    "COMPUTER_BATCH": 4,  # seats a worker claims at a time
    "COMPUTER_LEASE": 120.0,  # seconds a claim holds a seat; then a killed worker's is free
    # Seconds a "your move" mail waits when the player is looking at the game's page (seen in
    # the last minute): their move cancels it; 0 sends it at once.
    "TURN_MAIL_DELAY": 300.0,
    "REPLY_DOMAIN": "",  # replies to turn mails go to play+<token>@ this domain; empty: none
    "INBOUND_HOST": "127.0.0.1",  # pbem inbound listens here (the MTA hands it the domain)
    "INBOUND_PORT": 8025,
    "INBOUND_MAX_BYTES": 262144,  # a bigger mail is refused
    "WEBHOOK_ALLOW_LOOPBACK": False,  # tests only: allow http://127.0.0.1 webhooks
    "WEBHOOK_TIMEOUT": 5.0,  # seconds before a silent chat server counts as failed
    "DEBUG": False,
    "DEFAULT_LANG": "en",
}

_TYPES = {key: type(value) for key, value in DEFAULTS.items()}


def _coerce(key: str, raw: str) -> Any:
    kind = _TYPES.get(key, str)
    if kind is bool:
        return raw.strip().lower() in ("1", "true", "yes", "on")
    if kind is int:
        return int(raw)
    if kind is float:
        return float(raw)
    return raw


def load_config(test_config: dict[str, Any] | None = None) -> dict[str, Any]:
    """The settings in force: defaults, overridden by PBEM_* variables, then by test config."""
    config = dict(DEFAULTS)
    for name, raw in os.environ.items():
        if name.startswith("PBEM_") and name != "PBEM_INSTANCE":
            key = name[len("PBEM_") :]
            config[key] = _coerce(key, raw)
    config.update(test_config or {})
    return config


class ConfigError(RuntimeError):
    """The configuration cannot be used."""


def check_config(config: dict[str, Any]) -> None:
    """Refuse settings that are unsafe outside debug: a default, empty or short key."""
    # Only PBEM_DEBUG relaxes this; tests pass their own key to create_app.
    if not config.get("DEBUG"):
        key = str(config.get("SECRET_KEY") or "")
        if key == DEFAULT_SECRET_KEY or len(key.encode()) < MIN_SECRET_BYTES:
            raise ConfigError(
                f"Set PBEM_SECRET_KEY to a random value of at least {MIN_SECRET_BYTES} bytes"
                " (for example: python -c 'import secrets; print(secrets.token_urlsafe(32))');"
                " the default key is for local use with PBEM_DEBUG=1 only."
            )
    if config["MAIL_BACKEND"] not in ("file", "smtp"):
        raise ConfigError("PBEM_MAIL_BACKEND must be 'file' or 'smtp'.")
    if config["SMTP_SECURITY"] not in ("none", "starttls", "ssl"):
        raise ConfigError("PBEM_SMTP_SECURITY must be 'none', 'starttls' or 'ssl'.")


def start_logging() -> None:
    """INFO lines to stderr, for the long-running commands (clock, inbound, serve): without
    a handler their lines (mail sent, sweeps, verdicts on received mail) went nowhere."""
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # APScheduler says "Running job" at INFO every few seconds: only its warnings.
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
