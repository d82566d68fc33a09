"""The live pages' settings (issue 47): PBEM_LIVE_URL and PBEM_LIVE_KEEPALIVE are checked at
start; `pbem live` refuses a LISTEN address the settings name as a transaction pooler, and
says to set PBEM_LIVE_DATABASE_URL; `pbem serve` runs the streams on the next port and points
the pages there, unless PBEM_LIVE_URL names a `pbem live` of its own or is off."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.cli import _live_beside
from pbem.config import ConfigError, load_settings, settings_of
from pbem.devservers import free_port
from pbem.live.serve import listen_database, refuse_pooler
from tests.app import make_test_app


@pytest.mark.parametrize(
    "value, fine",
    [
        ("/live/", True),
        ("https://live.example.org/live/", True),
        ("http://127.0.0.1:5001/live/", True),
        ("off", True),
        ("live", False),
        ("ftp://live.example.org/live/", False),
    ],
)
def test_the_live_url_is_a_path_a_full_url_or_off(value: str, fine: bool) -> None:
    config = {"DEBUG": True, "LIVE_URL": value}
    if fine:
        load_settings(config)
    else:
        with pytest.raises(ConfigError, match="PBEM_LIVE_URL"):
            load_settings(config)


def test_the_keepalive_is_above_zero() -> None:
    with pytest.raises(ConfigError, match="PBEM_LIVE_KEEPALIVE"):
        load_settings({"DEBUG": True, "LIVE_KEEPALIVE": 0})


def test_live_refuses_a_listen_address_named_a_pooler() -> None:
    pooled = "postgresql+psycopg://pbem@pgbouncer.example.org:6432/pbem"
    config = {"DEBUG": True, "DATABASE_URL": pooled, "DATABASE_POOLER": "transaction"}
    with pytest.raises(ConfigError, match="PBEM_LIVE_DATABASE_URL"):
        refuse_pooler(load_settings(config))  # said by the settings: no connection tried
    straight = "postgresql+psycopg://pbem@db.example.org:5432/pbem"
    assert listen_database(load_settings(config | {"LIVE_DATABASE_URL": straight})) == straight
    defaults = load_settings({"DEBUG": True})
    assert listen_database(defaults) == defaults.database_url
    refuse_pooler(defaults)  # SQLite: nothing to refuse


def test_serve_runs_the_streams_on_a_port_of_their_own(
    database_url: str, clock: Any, smtpd: Any, tmp_path: Any
) -> None:
    app = make_test_app(database_url, clock, smtpd, tmp_path, BASE_URL="http://127.0.0.1:5000")
    port = free_port()
    streams = _live_beside(app, "0.0.0.0", port)
    try:
        assert streams is not None
        assert settings_of(app).live_url == f"http://127.0.0.1:{port}/live/"
        page = app.test_client().get("/")
        policy = page.headers["Content-Security-Policy"]
        assert policy.endswith(f"; connect-src 'self' http://127.0.0.1:{port}")
    finally:
        if streams is not None:
            streams.stop()
        app.extensions["pbem"]["engine"].dispose()
    off = make_test_app(database_url, clock, smtpd, tmp_path, LIVE_URL="off")
    assert _live_beside(off, "127.0.0.1", free_port()) is None
    off.extensions["pbem"]["engine"].dispose()
