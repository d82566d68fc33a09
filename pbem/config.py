"""Configuration: the typed settings, read from defaults, then PBEM_* environment variables,
then the overrides a test hands to create_app; a malformed one stops the process at start."""

from __future__ import annotations

import ipaddress
import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, Self
from urllib.parse import urlsplit

from flask import Flask
from pydantic import (
    BeforeValidator,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import ErrorDetails
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

DEFAULT_SECRET_KEY = "dev-only-not-secret"
MIN_SECRET_BYTES = 32
MIN_METRICS_TOKEN = 16  # a guessable token would open /metrics to anyone
INSTANCE = Path(os.environ.get("PBEM_INSTANCE", Path.cwd() / "instance"))
NEW_SECRET = "python -c 'import secrets; print(secrets.token_urlsafe(32))'"
# A domain as the right side of a Message-ID may spell it (RFC 5322 dot-atom, lower case).
_DOMAIN = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$")


class ConfigError(RuntimeError):
    """The configuration cannot be used."""


def _blank_is_off(value: object) -> object:
    # An empty PBEM_DEBUG= (as a shell writes an unset one) has always meant off.
    return False if isinstance(value, str) and not value.strip() else value


def _folded(value: object) -> object:
    return value.strip().lower() if isinstance(value, str) else value


def _proxies(value: object) -> object:
    """PBEM_TRUSTED_PROXIES read: a count of proxies (empty: 0, none) or the networks."""
    if not isinstance(value, str):
        return value
    raw = value.strip()
    if not raw or raw.isdigit():
        return int(raw or 0)
    networks = []
    for item in (part.strip() for part in raw.split(",")):
        try:
            # strict: "10.0.0.1/8" is a typo for one address or for a network; say so.
            networks.append(ipaddress.ip_network(item, strict=True))
        except ValueError as exc:
            raise ValueError(
                "PBEM_TRUSTED_PROXIES must be a number of proxies (as 1) or proxy addresses"
                f" and networks separated by commas (as 10.0.0.2, 192.168.0.0/24): {exc}"
            ) from None
    return tuple(networks)


Switch = Annotated[bool, BeforeValidator(_blank_is_off)]
Port = Annotated[int, Field(ge=1, le=65535)]
Seconds = Annotated[float, Field(ge=0)]
Proxies = Annotated[
    Annotated[int, Field(ge=0)] | tuple[Network, ...], NoDecode, BeforeValidator(_proxies)
]


class Settings(BaseSettings):
    """pbem's settings: PBEM_<NAME> sets <name>; a test's overrides name them in capitals.

    Read once when a process starts (load_settings); the comments are the operator's notes."""

    # AnyKey reads them with any key, for what signs nothing.
    key_checked: ClassVar[bool] = True
    model_config = SettingsConfigDict(
        env_prefix="PBEM_", extra="forbid", validate_assignment=True, hide_input_in_errors=True
    )

    secret_key: SecretStr = SecretStr(DEFAULT_SECRET_KEY)
    database_url: str = Field(f"sqlite:///{INSTANCE / 'pbem.sqlite3'}", repr=False)
    base_url: str = "http://127.0.0.1:5000"
    mail_backend: Annotated[Literal["file", "smtp"], BeforeValidator(_folded)] = "file"
    mail_dir: Path = INSTANCE / "mail"  # where the file backend keeps mail (the local mailbox)
    mail_from: str = "pbem@localhost"
    mail_from_name: str = "pbem"
    # Where players' reports of other players go (pbem.players.reports); empty: no report
    # button is shown and no report is taken.
    operator_email: str = ""
    smtp_host: str = "localhost"
    smtp_port: Port = 25
    smtp_user: str = ""
    smtp_password: SecretStr = SecretStr("")
    smtp_security: Annotated[Literal["none", "starttls", "ssl"], BeforeValidator(_folded)] = "none"
    smtp_timeout: Seconds = 10.0
    sender_interval: Seconds = 5.0  # seconds between outbox drains in the clock
    sender_batch: int = Field(50, ge=1)
    sweep_interval: Seconds = 30.0  # seconds between sweeps for timeouts, reminders and digests
    computer_delay: Seconds = 3.0  # seconds a computer player waits before its move
    computer_interval: Seconds = 2.0  # seconds between the clock's looks for computer moves due
    # Whether the clock also makes computer moves; off where `pbem computers` workers run.
    clock_computers: Switch = True
    computer_batch: int = Field(4, ge=1)  # seats a worker claims at a time
    computer_lease: Seconds = 120.0  # seconds a claim holds a seat; then a killed worker's is free
    # Simulations per decision of a game's review (pbem.bots.review); empty: the strong
    # level's own (a whole review is seconds of one core: bench/review.py).
    review_simulations: int | None = Field(None, ge=1)
    review_lease: Seconds = 600.0  # seconds a worker holds a review it works out
    # Seconds a "your move" mail waits when the player is looking at the game's page (seen in
    # the last minute): their move cancels it; 0 sends it at once.
    turn_mail_delay: Seconds = 300.0
    # The domain of every Message-ID and of each new game's thread id: one name on every host,
    # so a game's mails stay one thread; empty: the host of PBEM_BASE_URL.
    thread_domain: str = ""
    reply_domain: str = ""  # replies to turn mails go to play+<token>@ this domain; empty: none
    inbound_host: str = "127.0.0.1"  # pbem inbound listens here (the MTA hands it the domain)
    inbound_port: Port = 8025
    inbound_max_bytes: int = Field(262144, ge=1)  # a bigger mail is refused
    # The live page (pbem.live): where pages open their stream, "<this>p/<token>": a path on
    # the same host (nginx hands /live/ to `pbem live`) or a full URL; "off": pages poll.
    live_url: str = "/live/"
    live_host: str = "127.0.0.1"  # `pbem live` listens here
    live_port: Port = 8001
    # Where `pbem live` LISTENs on PostgreSQL: straight to the server (LISTEN does not pass
    # a transaction pooler); empty: PBEM_DATABASE_URL.
    live_database_url: str = Field("", repr=False)
    # Seconds between comments on an idle stream (proxies time out).
    live_keepalive: float = Field(25.0, gt=0)
    webhook_allow_loopback: Switch = False  # tests only: allow http://127.0.0.1 webhooks
    webhook_timeout: Seconds = 5.0  # seconds before a silent chat server counts as failed
    # Who may say who the client is (X-Forwarded-For/-Proto/-Host): empty, none (the peer
    # is the client); a count of proxies in front, as werkzeug's ProxyFix x_for; or the
    # proxies' addresses and networks, comma-separated. Rate limits key on that client.
    trusted_proxies: Proxies = 0
    # Days after which sent mail, finished webhook deliveries and received mail lose their
    # text, and are deleted once nothing reads them (pbem.storage.retention); 0 keeps all.
    keep_days: int = Field(30, ge=0)
    # Days after which a game that never started is called off (its creator warned a day
    # before: pbem.clock.sweeps.sweep_unstarted); 0 never calls one off.
    forming_days: int = Field(14, ge=0)
    debug: Switch = False
    default_lang: str = "en"
    # PostgreSQL only. Each process opens up to pool size + overflow connections.
    database_pool_size: int = Field(5, ge=1)
    database_max_overflow: int = Field(10, ge=0)
    database_statement_timeout: int = Field(0, ge=0)  # milliseconds a statement may run; 0: none
    # none, or transaction (PgBouncer's pool_mode=transaction)
    database_pooler: Annotated[Literal["none", "transaction"], BeforeValidator(_folded)] = "none"
    # pbem signs its mail with DKIM when both are set (pbem.mailout.dkimkey): the selector and
    # an unencrypted PEM private key, RSA or ed25519. The domain (d=) defaults to MAIL_FROM's.
    dkim_selector: str = ""
    dkim_key_file: str = ""
    dkim_domain: str = ""
    # /metrics answers only a request that carries "Authorization: Bearer <this>"; empty,
    # it answers nobody (pbem.web.health).
    metrics_token: SecretStr = SecretStr("")
    # Seconds a due mail may wait for its sender before /readyz says mail is stuck.
    ready_mail_age: float = Field(900.0, gt=0)
    # The score at which an address is marked bouncing and mail to it stops (pbem.mailfix.score:
    # a soft bounce adds 1, a hard one 2, at most one a day, back to 0 after 30 quiet days).
    bounce_threshold: int = Field(4, ge=1)

    @field_validator("base_url")
    @classmethod
    def _an_address(cls, value: str) -> str:
        parts = urlsplit(value.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(
                "PBEM_BASE_URL must be the address players open, as https://pbem.example.org."
            )
        return value.strip()

    @field_validator("thread_domain")
    @classmethod
    def _a_domain(cls, value: str) -> str:
        if value.strip() and not _DOMAIN.match(value.strip().lower()):
            raise ValueError("PBEM_THREAD_DOMAIN must be a domain name, as pbem.example.org.")
        return value.strip()

    @field_validator("operator_email")
    @classmethod
    def _one_address(cls, value: str) -> str:
        if value and not re.match(r"^[^@\s<>,]+@[^@\s<>,]+\.[^@\s<>,]+$", value):
            raise ValueError(
                "PBEM_OPERATOR_EMAIL must be one address, as ops@example.org, or empty."
            )
        return value

    @field_validator("live_url")
    @classmethod
    def _a_stream_address(cls, value: str) -> str:
        live = value.strip()
        if live.lower() not in ("", "off") and not re.match(r"^(https?://[^/\s]+)?/\S*$", live):
            raise ValueError(
                "PBEM_LIVE_URL must be a path on this host (as /live/), a full URL (as"
                " https://live.example.org/live/), or off."
            )
        return value

    @field_validator("metrics_token")
    @classmethod
    def _a_long_token(cls, value: SecretStr) -> SecretStr:
        if 0 < len(value.get_secret_value()) < MIN_METRICS_TOKEN:
            raise ValueError(
                f"PBEM_METRICS_TOKEN must be at least {MIN_METRICS_TOKEN} characters (for"
                f" example: {NEW_SECRET}), or empty to turn /metrics off."
            )
        return value

    @model_validator(mode="after")
    def _no_limit_through_a_pooler(self) -> Self:
        if self.database_statement_timeout and self.database_pooler == "transaction":
            # The limit rides on the connection's startup options, which PgBouncer refuses
            # (or drops, with ignore_startup_parameters): the role's own setting reaches every
            # server connection the pooler opens.
            raise ValueError(
                "PBEM_DATABASE_STATEMENT_TIMEOUT cannot pass through a transaction pooler; set"
                " it on the database role instead (ALTER ROLE ... SET statement_timeout = ...)"
                " and leave PBEM_DATABASE_STATEMENT_TIMEOUT at 0."
            )
        return self

    @model_validator(mode="after")
    def _a_key_of_its_own(self) -> Self:
        # Only PBEM_DEBUG relaxes this; tests pass their own key to create_app.
        if self.key_checked and not self.debug and weak_key(self.secret_key):
            raise ValueError(
                f"Set PBEM_SECRET_KEY to a random value of at least {MIN_SECRET_BYTES} bytes"
                f" (for example: {NEW_SECRET}); the default key is for local use with"
                " PBEM_DEBUG=1 only."
            )
        return self


class AnyKey(Settings):
    """The settings as every process reads them, any key taken: for pbem doctor (which reports
    on the key on a line of its own) and a migration run outside `pbem migrate`."""

    key_checked = False


def weak_key(key: SecretStr) -> str:
    """What is wrong with `key` as a signing key ("the default", "under 32 bytes"); ""."""
    text = key.get_secret_value()
    if text == DEFAULT_SECRET_KEY:
        return "the default"
    if len(text.encode()) < MIN_SECRET_BYTES:
        return f"under {MIN_SECRET_BYTES} bytes"
    return ""


# What a setting of each kind wants, by pydantic's error type: the sentence of a refusal.
_WANTS = {
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "int_type": "a whole number",
    "float_parsing": "a number of seconds",  # every float setting is a time in seconds
    "float_type": "a number of seconds",
    "bool_parsing": "on or off (1, true, yes, on; 0, false, no, off)",
    "bool_type": "on or off (1, true, yes, on; 0, false, no, off)",
    "string_type": "text",
    "path_type": "a path",
}
_BOUNDS = {
    "greater_than_equal": "of at least",
    "greater_than": "above",
    "less_than_equal": "of at most",
}
# Only these kinds show the value refused: numbers, switches and choices hold no secret.
_SHOWN = {"int_parsing", "int_from_float", "float_parsing", "bool_parsing", "literal_error"}


def _sentence(error: ErrorDetails) -> str:
    """One refusal as the operator reads it: the PBEM_ name and what it wants."""
    kind, ctx = error["type"], error.get("ctx", {})
    if kind == "value_error":
        return str(ctx["error"])  # the validators' own sentences name their setting
    field = next((str(part) for part in error["loc"] if isinstance(part, str)), "")
    name = f"PBEM_{field.upper()}"
    if kind == "extra_forbidden":
        return f"{field.upper()} is no pbem setting (pbem.config.Settings lists them)."
    if kind == "literal_error":
        wants = f"one of {ctx['expected']}"
    elif kind in _BOUNDS:
        known = Settings.model_fields.get(field)
        number = _WANTS["int_type" if known and known.annotation is int else "float_type"]
        limit = next(value for key, value in ctx.items() if key in ("ge", "gt", "le"))
        wants = f"{number} {_BOUNDS[kind]} {limit:g}"
    else:
        wants = _WANTS.get(kind, error["msg"].lower())
    if kind in _SHOWN:
        return f"{name} must be {wants}, not {str(error['input'])[:40]!r}."
    return f"{name} must be {wants}."


def load_settings(
    overrides: Mapping[str, object] | None = None, kind: type[Settings] = Settings
) -> Settings:
    """The settings in force: defaults, PBEM_* variables, then `overrides` (a test's, named
    in capitals as the variables are); ConfigError, in one line, names each bad one."""
    # Any: each value is the class's to check, as a PBEM_* variable's text is.
    given: dict[str, Any] = {key.lower(): value for key, value in (overrides or {}).items()}
    try:
        return kind(**given)
    except ValidationError as exc:
        # One line, each refusal named; never the value of a secret (hide_input_in_errors).
        said: dict[object, str] = {}
        for error in exc.errors():
            said.setdefault(error["loc"][:1], _sentence(error))  # a union's others: same field
        raise ConfigError(" ".join(said.values())) from None


def settings_of(app: Flask) -> Settings:
    """The settings `app` was built with (pbem.app.build_app keeps them)."""
    settings: Settings = app.extensions["pbem"]["settings"]
    return settings


def thread_domain(settings: Settings) -> str:
    """The domain of Message-IDs and of new games' thread ids: PBEM_THREAD_DOMAIN, else the
    host of PBEM_BASE_URL (not the sender's address, which may differ between hosts)."""
    name = settings.thread_domain.strip().lower()
    if not name:
        name = (urlsplit(settings.base_url).hostname or "").lower()
    if ":" in name:
        return f"[{name}]"  # an IPv6 address, written as RFC 5322 writes a literal domain
    return name or "pbem.local"


@dataclass(frozen=True)
class DatabaseSettings:
    """How a process talks to PostgreSQL: its pool, a statement time limit, the pooler."""

    pool_size: int = 5
    max_overflow: int = 10
    statement_timeout_ms: int = 0  # 0: no limit
    pooler: str = "none"


def database_settings(settings: Settings) -> DatabaseSettings:
    """The database part of `settings`, as pbem.storage.db.make_engine takes it."""
    return DatabaseSettings(
        pool_size=settings.database_pool_size,
        max_overflow=settings.database_max_overflow,
        statement_timeout_ms=settings.database_statement_timeout,
        pooler=settings.database_pooler,
    )


def start_logging() -> None:
    """INFO lines to stderr, for the long-running commands (clock, inbound, serve): without
    a handler their lines (mail sent, sweeps, verdicts on received mail) went nowhere."""
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # APScheduler says "Running job" at INFO every few seconds: only its warnings.
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
