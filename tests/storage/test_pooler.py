"""Behind a transaction pooler the settings do not name, nothing starts (issue 45): the
probe tells a real PgBouncer in pool_mode=transaction from PostgreSQL itself, the app
refuses to be built, and every long-running process stops at its start saying why."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

from pbem import create_app
from pbem.devservers import free_port
from pbem.storage.pooler import Probe, UnannouncedPooler, probe
from tests.live.server import ROOT, procfile_options
from tests.settings import BASE_URL, PG_URL, SECRET_KEY, app_settings
from tests.storage.bouncer import POSTGRES_ONLY, pgbouncer

PBEM = [sys.executable, "-c", "from pbem.console import main; main()"]
# The web process as the Procfile starts it, and the other long-running processes.
PROCESSES = {
    "web": [sys.executable, "-m", "gunicorn", *procfile_options(), "pbem:create_app()"],
    "serve": [*PBEM, "serve", "--port", "0"],
    "clock": [*PBEM, "clock"],
    "computers": [*PBEM, "computers"],
    "inbound": [*PBEM, "inbound"],
}


def test_connections_straight_to_postgresql_are_sessions_of_their_own(database_url: str) -> None:
    if not PG_URL:
        pytest.skip(POSTGRES_ONLY)
    assert [probe(database_url) for _ in range(5)] == [Probe(False)] * 5


def test_a_transaction_pooler_serves_two_open_connections_from_one_process(
    database_url: str,
) -> None:
    """PgBouncer lends the server connection released last: the probe sees it every time."""
    with pgbouncer(pool_size=4) as url:
        assert [probe(url) for _ in range(20)] == [Probe(True)] * 20


def test_no_answer_is_no_verdict(tmp_path: Any) -> None:
    assert probe(f"sqlite:///{tmp_path / 'x.sqlite3'}") == Probe(None, "not PostgreSQL")
    found = probe(f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/nowhere", timeout=2)
    assert found.pooled is None and "refused" in found.error


def test_the_app_refuses_to_be_built_behind_an_unannounced_pooler(
    database_url: str, tmp_path: Any
) -> None:
    with pgbouncer() as url:
        with pytest.raises(UnannouncedPooler, match="Set PBEM_DATABASE_POOLER=transaction"):
            create_app(app_settings(url, tmp_path))
        announced = create_app(app_settings(url, tmp_path, DATABASE_POOLER="transaction"))
        announced.extensions["pbem"]["engine"].dispose()


def test_a_database_that_does_not_answer_refuses_nothing(tmp_path: Any) -> None:
    """The app is built as before; its requests say the database is down (a 503)."""
    url = f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/nowhere"
    app = create_app(app_settings(url, tmp_path))
    assert app.test_client().get("/games/open").status_code == 503


@pytest.mark.parametrize("process", sorted(PROCESSES))
def test_every_process_stops_at_its_start_saying_why(
    process: str, database_url: str, tmp_path: Any
) -> None:
    with pgbouncer() as url:
        env = {
            **os.environ,
            "PBEM_SECRET_KEY": SECRET_KEY,
            "PBEM_DATABASE_URL": url,
            "PBEM_BASE_URL": BASE_URL,
            "PBEM_MAIL_DIR": str(tmp_path / "mail"),
            "PBEM_REPLY_DOMAIN": "in.pbem.test",
            "PBEM_INBOUND_PORT": str(free_port()),
        }
        command = PROCESSES[process]
        if process == "web":
            command = [*command[:-1], "--bind", f"127.0.0.1:{free_port()}", command[-1]]
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, timeout=120)
    said = (done.stdout + done.stderr).decode(errors="replace")
    assert done.returncode != 0, said[-2000:]
    assert "PBEM_DATABASE_POOLER is 'none'" in said, said[-2000:]
    assert "Set PBEM_DATABASE_POOLER=transaction" in said
