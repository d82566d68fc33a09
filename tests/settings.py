"""The test app's settings, written once: the app a test builds in process, the browser
tests' server, and the pbem processes tests start all take them from here."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import SecretStr
from sqlalchemy.engine import make_url

from pbem.config import settings_of

SECRET_KEY = "test-secret-key-of-at-least-32-bytes"
BASE_URL = "http://pbem.test"
# PostgreSQL for the database tests when set (CI's second pass); SQLite files otherwise.


def worker_database(url: str) -> str:
    """The database this pytest process uses on the server `url` names: `url` itself, or
    under pytest-xdist a database of the worker's own beside it (pbem_test_gw0, ...), so
    that one worker's TRUNCATE, NOTIFY or migration never meets another's tests."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not url or not worker:
        return url
    shared = make_url(url)
    return shared.set(database=f"{shared.database}_{worker}").render_as_string(False)


SHARED_PG_URL = os.environ.get("PBEM_TEST_DATABASE_URL", "")
PG_URL = worker_database(SHARED_PG_URL)
# What a pbem process started by a test reads from PBEM_* variables, as the Procfile's do.
PASSED_ON = (
    "SECRET_KEY",
    "DATABASE_URL",
    "BASE_URL",
    "MAIL_FROM",
    "MAIL_BACKEND",
    "MAIL_DIR",
    "SMTP_HOST",
    "SMTP_PORT",
)


def app_settings(database_url: str, tmp_path: Path, **extra: Any) -> dict[str, Any]:
    """The settings of a test app on `database_url`, mail kept under `tmp_path`; `extra`
    adds or overrides settings (the mail backend, DEBUG, a reply domain...)."""
    return {
        "TESTING": True,
        "SECRET_KEY": SECRET_KEY,
        "DATABASE_URL": database_url,
        "BASE_URL": BASE_URL,
        "MAIL_DIR": str(tmp_path / "mail"),
        **extra,
    }


def process_env(app: Any, **extra: Any) -> dict[str, str]:
    """The PBEM_* variables that give a pbem process the settings of `app`; `extra` adds
    or overrides some (a process of its own may keep its mail elsewhere, say)."""
    typed = settings_of(app)
    settings = {key: getattr(typed, key.lower()) for key in PASSED_ON} | extra
    return {f"PBEM_{key}": _text(value) for key, value in settings.items()}


def _text(value: Any) -> str:
    """A setting as a PBEM_* variable spells it (a secret's own text)."""
    return value.get_secret_value() if isinstance(value, SecretStr) else str(value)
