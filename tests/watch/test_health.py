"""/healthz and /readyz as a reverse proxy and an operator read them: the process answers;
the database answers, its migrations are this code's, a clock beats, mail goes."""

from __future__ import annotations

import json
from typing import Any

from alembic import command
from alembic.config import Config

from pbem import create_app
from pbem.clock.scheduler import beat, make_scheduler
from pbem.resources import folder
from pbem.storage.db import head_revision, migrate
from tests.settings import app_settings
from tests.watch.helpers import clock_beat, new_game
from tests.web.helpers import PLAYERS, deliver


def ready(client: Any) -> tuple[int, dict[str, Any]]:
    """/readyz's status and its checks by name."""
    answer = client.get("/readyz")
    body = answer.get_json()
    assert body["status"] == ("ready" if answer.status_code == 200 else "not ready")
    assert list(body["checks"]) == sorted(["database", "migrations", "clock", "mail"])
    return answer.status_code, body["checks"]


def failing(checks: dict[str, Any]) -> list[str]:
    return [name for name, check in checks.items() if not check["ok"]]


def test_healthz_answers_without_the_database(tmp_path: Any) -> None:
    # Nothing listens on port 1: the database is away, the process still answers.
    url = "postgresql+psycopg://pbem:secret@127.0.0.1:1/pbem"
    app = create_app(app_settings(url, tmp_path))
    client = app.test_client()
    answer = client.get("/healthz")
    assert answer.status_code == 200 and answer.get_json() == {"status": "ok"}
    assert answer.headers["Cache-Control"] == "no-store"
    # /readyz says the database is the trouble, and names neither its address nor its user.
    status, checks = ready(client)
    assert status == 503 and failing(checks) == ["clock", "database", "mail", "migrations"]
    assert checks["database"]["reason"].startswith("no answer (OperationalError)")
    assert checks["clock"]["reason"].startswith("not checked: the database did not answer")
    text = client.get("/readyz").get_data(as_text=True)
    assert "127.0.0.1" not in text and "pbem:" not in text and "secret" not in text


def test_ready_with_a_migrated_database_and_a_fresh_clock_beat(client: Any, app: Any) -> None:
    assert clock_beat(app)
    status, checks = ready(client)
    assert status == 200, checks
    assert checks["database"] == {"ok": True, "reason": "answers"}
    assert checks["migrations"] == {
        "ok": True,
        "reason": f"at {head_revision()}, as this code expects",
    }
    assert checks["clock"] == {"ok": True, "reason": "last beat 0 s ago"}
    assert checks["mail"] == {"ok": True, "reason": "no mail due"}


def test_a_silent_clock_is_not_ready(client: Any, app: Any, clock: Any) -> None:
    status, checks = ready(client)
    assert status == 503 and failing(checks) == ["clock"]
    assert checks["clock"]["reason"] == "no clock has beaten: is pbem clock running?"
    assert clock_beat(app)
    clock.advance(seconds=60)  # two sweep intervals of 30 s: still in time
    assert ready(client)[0] == 200
    clock.advance(seconds=1)
    status, checks = ready(client)
    assert status == 503 and failing(checks) == ["clock"]
    assert checks["clock"]["reason"] == "last beat 61 s ago, over 60 s"
    assert clock_beat(app)  # the clock is back
    assert ready(client)[0] == 200


def test_pbem_serve_counts_as_a_clock(client: Any, app: Any) -> None:
    # `pbem serve` runs the clock beside the pages: its scheduler beats as kind "serve".
    make_scheduler(app, blocking=False)
    assert beat(app)
    assert ready(client)[0] == 200


def test_migrations_behind_are_not_ready(client: Any, app: Any, database_url: str) -> None:
    assert clock_beat(app)
    config = Config()
    config.set_main_option("script_location", str(folder("migrations")))
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    try:
        command.downgrade(config, "0025")  # as before `pbem migrate` of a new release
        status, checks = ready(client)
        assert status == 503, checks
        assert checks["migrations"] == {
            "ok": False,
            "reason": f"at 0025, this code expects {head_revision()}: run pbem migrate",
        }
        # 0025 has no heartbeats: the clock's check says it cannot read them, not a 500.
        unread = ("cannot be read (OperationalError)", "cannot be read (ProgrammingError)")
        assert not checks["clock"]["ok"] and checks["clock"]["reason"] in unread
        assert checks["database"]["ok"] and checks["mail"]["ok"]
    finally:
        migrate(database_url)
    assert clock_beat(app)
    assert ready(client)[0] == 200


def test_stuck_mail_is_not_ready(client: Any, app: Any, clock: Any) -> None:
    new_game(client)  # three invitations, due now; no sender runs
    assert clock_beat(app)
    status, checks = ready(client)
    assert status == 200 and checks["mail"] == {"ok": True, "reason": "3 due, the oldest for 0 s"}
    clock.advance(seconds=901)  # PBEM_READY_MAIL_AGE is 900 s
    assert clock_beat(app)
    status, checks = ready(client)
    assert status == 503 and failing(checks) == ["mail"]
    assert checks["mail"]["reason"] == "3 due, the oldest for 901 s, over 900 s"
    # Nothing of the game or its players is in the answer.
    text = json.dumps(checks)
    assert not any(email in text for _, email in PLAYERS) and "/p/" not in text
    deliver(app)  # the sender is back
    status, checks = ready(client)
    assert status == 200 and checks["mail"]["reason"] == "no mail due"
