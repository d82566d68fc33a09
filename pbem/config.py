"""Configuration: defaults, then PBEM_* environment variables, then test config."""

from __future__ import annotations

import ipaddress
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

DEFAULT_SECRET_KEY = "dev-only-not-secret"
MIN_SECRET_BYTES = 32
MIN_METRICS_TOKEN = 16  # a guessable token would open /metrics to anyone
INSTANCE = Path(os.environ.get("PBEM_INSTANCE", Path.cwd() / "instance"))

DEFAULTS: dict[str, Any] = {
    "SECRET_KEY": DEFAULT_SECRET_KEY,
    "DATABASE_URL": f"sqlite:///{INSTANCE / 'pbem.sqlite3'}",
    "BASE_URL": "http://127.0.0.1:5000",
    "MAIL_BACKEND": "file",  # file (local mailbox) or smtp
    "MAIL_DIR": str(INSTANCE / "mail"),
    "MAIL_FROM": "pbem@localhost",
    "MAIL_FROM_NAME": "pbem",
    # Where players' reports of other players go (pbem.players.reports); empty: no report
    # button is shown and no report is taken.
    "OPERATOR_EMAIL": "",
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
    # The domain of every Message-ID and of each new game's thread id: one name on every host,
    # so a game's mails stay one thread; empty: the host of PBEM_BASE_URL.
    "THREAD_DOMAIN": "",
    "REPLY_DOMAIN": "",  # replies to turn mails go to play+<token>@ this domain; empty: none
    "INBOUND_HOST": "127.0.0.1",  # pbem inbound listens here (the MTA hands it the domain)
    "INBOUND_PORT": 8025,
    "INBOUND_MAX_BYTES": 262144,  # a bigger mail is refused
    # The live page (pbem.live): where pages open their stream, "<this>p/<token>": a path on
    # the same host (nginx hands /live/ to `pbem live`) or a full URL; "off": pages poll.
    "LIVE_URL": "/live/",
    "LIVE_HOST": "127.0.0.1",  # `pbem live` listens here
    "LIVE_PORT": 8001,
    # Where `pbem live` LISTENs on PostgreSQL: straight to the server (LISTEN does not pass
    # a transaction pooler); empty: PBEM_DATABASE_URL.
    "LIVE_DATABASE_URL": "",
    "LIVE_KEEPALIVE": 25.0,  # seconds between comments on an idle stream (proxies time out)
    "WEBHOOK_ALLOW_LOOPBACK": False,  # tests only: allow http://127.0.0.1 webhooks
    "WEBHOOK_TIMEOUT": 5.0,  # seconds before a silent chat server counts as failed
    # Who may say who the client is (X-Forwarded-For/-Proto/-Host): empty, none (the peer
    # is the client); a count of proxies in front, as werkzeug's ProxyFix x_for; or the
    # proxies' addresses and networks, comma-separated. Rate limits key on that client.
    "TRUSTED_PROXIES": "",
    # Days after which sent mail, finished webhook deliveries and received mail lose their
    # text, and are deleted once nothing reads them (pbem.storage.retention); 0 keeps all.
    "KEEP_DAYS": 30,
    # Days after which a game that never started is called off (its creator warned a day
    # before: pbem.clock.sweeps.sweep_unstarted); 0 never calls one off.
    "FORMING_DAYS": 14,
    "DEBUG": False,
    "DEFAULT_LANG": "en",
    # PostgreSQL only. Each process opens up to pool size + overflow connections.
    "DATABASE_POOL_SIZE": 5,
    "DATABASE_MAX_OVERFLOW": 10,
    "DATABASE_STATEMENT_TIMEOUT": 0,  # milliseconds a statement may run; 0: no limit
    "DATABASE_POOLER": "none",  # none, or transaction (PgBouncer's pool_mode=transaction)
    # pbem signs its mail with DKIM when both are set (pbem.mailout.dkimkey): the selector and
    # an unencrypted PEM private key, RSA or ed25519. The domain (d=) defaults to MAIL_FROM's.
    "DKIM_SELECTOR": "",
    "DKIM_KEY_FILE": "",
    "DKIM_DOMAIN": "",
    # /metrics answers only a request that carries "Authorization: Bearer <this>"; empty,
    # it answers nobody (pbem.web.health).
    "METRICS_TOKEN": "",
    # Seconds a due mail may wait for its sender before /readyz says mail is stuck.
    "READY_MAIL_AGE": 900.0,
    # The score at which an address is marked bouncing and mail to it stops (pbem.mailfix.score:
    # a soft bounce adds 1, a hard one 2, at most one a day, back to 0 after 30 quiet days).
    "BOUNCE_THRESHOLD": 4,
}
POOLERS = ("none", "transaction")
# A domain as the right side of a Message-ID may spell it (RFC 5322 dot-atom, lower case).
_DOMAIN = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$")

_TYPES = {key: type(value) for key, value in DEFAULTS.items()}


def _coerce(key: str, raw: str) -> Any:
    kind = _TYPES.get(key, str)
    if kind is bool:
        return raw.strip().lower() in ("1", "true", "yes", "on")
    try:
        if kind is int:
            return int(raw)
        if kind is float:
            return float(raw)
    except ValueError:
        # Only numeric settings get here, none of them secret: the value may be shown.
        what = "a whole number" if kind is int else "a number"
        raise ConfigError(f"PBEM_{key} must be {what}, not {raw!r}.") from None
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
    if int(config["FORMING_DAYS"]) < 0:
        raise ConfigError("PBEM_FORMING_DAYS must be a number of days, or 0 to keep waiting.")
    if int(config["KEEP_DAYS"]) < 0:
        raise ConfigError("PBEM_KEEP_DAYS must be a number of days, or 0 to keep everything.")
    named = str(config.get("THREAD_DOMAIN") or "").strip()
    if named and not _DOMAIN.match(thread_domain(config)):
        raise ConfigError("PBEM_THREAD_DOMAIN must be a domain name, as pbem.example.org.")
    if 0 < len(str(config.get("METRICS_TOKEN") or "")) < MIN_METRICS_TOKEN:
        raise ConfigError(
            f"PBEM_METRICS_TOKEN must be at least {MIN_METRICS_TOKEN} characters (for example:"
            " python -c 'import secrets; print(secrets.token_urlsafe(32))'), or empty to turn"
            " /metrics off."
        )
    if float(config.get("READY_MAIL_AGE", 0)) <= 0:
        raise ConfigError("PBEM_READY_MAIL_AGE must be a number of seconds above 0.")
    threshold = config.get("BOUNCE_THRESHOLD")
    if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 1:
        raise ConfigError("PBEM_BOUNCE_THRESHOLD must be a whole number of at least 1.")
    live = str(config.get("LIVE_URL") or "").strip()
    if live.lower() not in ("", "off") and not re.match(r"^(https?://[^/\s]+)?/\S*$", live):
        raise ConfigError(
            "PBEM_LIVE_URL must be a path on this host (as /live/), a full URL (as"
            " https://live.example.org/live/), or off."
        )
    if float(config.get("LIVE_KEEPALIVE", 0)) <= 0:
        raise ConfigError("PBEM_LIVE_KEEPALIVE must be a number of seconds above 0.")
    operator = str(config.get("OPERATOR_EMAIL") or "")
    if operator and not re.match(r"^[^@\s<>,]+@[^@\s<>,]+\.[^@\s<>,]+$", operator):
        raise ConfigError("PBEM_OPERATOR_EMAIL must be one address, as ops@example.org, or empty.")
    trusted_proxies(config)
    database_settings(config)


def thread_domain(config: dict[str, Any]) -> str:
    """The domain of Message-IDs and of new games' thread ids: PBEM_THREAD_DOMAIN, else the
    host of PBEM_BASE_URL (not the sender's address, which may differ between hosts)."""
    name = str(config.get("THREAD_DOMAIN") or "").strip().lower()
    if not name:
        name = (urlsplit(str(config.get("BASE_URL") or "")).hostname or "").lower()
    if ":" in name:
        return f"[{name}]"  # an IPv6 address, written as RFC 5322 writes a literal domain
    return name or "pbem.local"


def trusted_proxies(config: dict[str, Any]) -> int | tuple[Network, ...]:
    """PBEM_TRUSTED_PROXIES read: a count of proxies (0: none) or the trusted networks."""
    raw = str(config.get("TRUSTED_PROXIES", "")).strip()
    if raw.isdigit():
        return int(raw)
    if not raw:
        return 0
    networks = []
    for item in (part.strip() for part in raw.split(",")):
        try:
            # strict: "10.0.0.1/8" is a typo for one address or for a network; say so.
            networks.append(ipaddress.ip_network(item, strict=True))
        except ValueError as exc:
            raise ConfigError(
                "PBEM_TRUSTED_PROXIES must be a number of proxies (as 1) or proxy addresses"
                f" and networks separated by commas (as 10.0.0.2, 192.168.0.0/24): {exc}"
            ) from None
    return tuple(networks)


@dataclass(frozen=True)
class DatabaseSettings:
    """How a process talks to PostgreSQL: its pool, a statement time limit, the pooler."""

    pool_size: int = 5
    max_overflow: int = 10
    statement_timeout_ms: int = 0  # 0: no limit
    pooler: str = "none"


def database_settings(config: dict[str, Any]) -> DatabaseSettings:
    """The database settings in `config`, checked (ConfigError names the bad one)."""

    def whole(key: str, least: int) -> int:
        value = config[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ConfigError(f"PBEM_{key} must be a whole number of at least {least}.")
        return value

    pooler = str(config["DATABASE_POOLER"]).strip().lower()
    if pooler not in POOLERS:
        raise ConfigError("PBEM_DATABASE_POOLER must be 'none' or 'transaction'.")
    settings = DatabaseSettings(
        pool_size=whole("DATABASE_POOL_SIZE", 1),
        max_overflow=whole("DATABASE_MAX_OVERFLOW", 0),
        statement_timeout_ms=whole("DATABASE_STATEMENT_TIMEOUT", 0),
        pooler=pooler,
    )
    if settings.statement_timeout_ms and pooler == "transaction":
        # The limit rides on the connection's startup options, which PgBouncer refuses (or
        # drops, with ignore_startup_parameters): the role's own setting reaches every
        # server connection the pooler opens.
        raise ConfigError(
            "PBEM_DATABASE_STATEMENT_TIMEOUT cannot pass through a transaction pooler; set"
            " it on the database role instead (ALTER ROLE ... SET statement_timeout = ...)"
            " and leave PBEM_DATABASE_STATEMENT_TIMEOUT at 0."
        )
    return settings


def start_logging() -> None:
    """INFO lines to stderr, for the long-running commands (clock, inbound, serve): without
    a handler their lines (mail sent, sweeps, verdicts on received mail) went nowhere."""
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # APScheduler says "Running job" at INFO every few seconds: only its warnings.
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
