"""The command line (new game, list, log, replay check), the configuration, the mailbox page."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pbem import create_app
from pbem.config import ConfigError, settings_of
from pbem.models import Game
from pbem.storage.db import write_session
from tests.app import FormClient
from tests.settings import app_settings
from tests.web.helpers import deliver, headline, link_in, play_turn, start_game

GOOD_KEY = "k" * 32


def test_refuses_default_secret_outside_debug(database_url: str) -> None:
    with pytest.raises(ConfigError, match="PBEM_SECRET_KEY"):
        create_app({"DATABASE_URL": database_url})
    assert create_app({"DATABASE_URL": database_url, "DEBUG": True})
    assert create_app({"DATABASE_URL": database_url, "SECRET_KEY": GOOD_KEY})


@pytest.mark.parametrize("key", ["", "x", "a-real-secret", "k" * 31, "é" * 15])
def test_refuses_an_empty_or_short_key_outside_debug(database_url: str, key: str) -> None:
    with pytest.raises(ConfigError, match="at least 32 bytes"):
        create_app({"DATABASE_URL": database_url, "SECRET_KEY": key})
    assert create_app({"DATABASE_URL": database_url, "SECRET_KEY": key, "DEBUG": True})


@pytest.mark.parametrize("testing", ["0", "1", "yes"])
def test_pbem_testing_does_not_bypass_the_key_check(
    monkeypatch: Any, database_url: str, testing: str
) -> None:
    monkeypatch.setenv("PBEM_TESTING", testing)
    monkeypatch.delenv("PBEM_SECRET_KEY", raising=False)
    monkeypatch.delenv("PBEM_DEBUG", raising=False)
    with pytest.raises(ConfigError, match="PBEM_SECRET_KEY"):
        create_app({"DATABASE_URL": database_url})
    with pytest.raises(ConfigError, match="PBEM_SECRET_KEY"):
        create_app({"DATABASE_URL": database_url, "TESTING": True, "SECRET_KEY": "short"})


def test_environment_overrides_defaults(monkeypatch: Any, database_url: str) -> None:
    monkeypatch.setenv("PBEM_SECRET_KEY", "from-the-environment-" + "x" * 16)
    monkeypatch.setenv("PBEM_SMTP_PORT", "2525")
    monkeypatch.setenv("PBEM_BASE_URL", "https://pbem.example.org")
    app = create_app({"DATABASE_URL": database_url})
    assert app.config["SECRET_KEY"] == "from-the-environment-" + "x" * 16
    assert settings_of(app).smtp_port == 2525
    assert settings_of(app).base_url == "https://pbem.example.org"


def test_cli_new_game_list_and_log(app: Any, runner: Any, smtpd: Any, client: Any) -> None:
    result = runner.invoke(
        args=[
            "new-game",
            "--player",
            "Ana <ana@example.org>",
            "--player",
            "Léo <leo@example.org>",
            "--option",
            "courts=true",
        ]
    )
    assert result.exit_code == 0, result.output
    assert "Game #1 created" in result.output
    listing = runner.invoke(args=["games"])
    assert "#1\tcolour-bazaar\tforming\tply 0\tAna, Léo" in listing.output
    deliver(app)
    leo = link_in(smtpd.to("leo@example.org")[0])
    client.post(f"{leo}/join")
    deliver(app)
    mover = next(m for m in smtpd.messages if "your move" in headline(m))
    play_turn(client, link_in(mover))
    log = runner.invoke(args=["log", "1"])
    assert log.exit_code == 0
    assert "  1 " in log.output and "[web]" in log.output and "took a" in log.output
    bad = runner.invoke(args=["new-game", "--player", "nobody"])
    assert bad.exit_code != 0 and "Name <email>" in bad.output


def test_check_replays_games_and_reports_a_tampered_one(
    app: Any, runner: Any, smtpd: Any, client: Any
) -> None:
    links, first = start_game(client, app, smtpd)
    mover = next(m for m in smtpd.messages[first:] if "your move" in headline(m))
    play_turn(client, link_in(mover))
    good = runner.invoke(args=["check"])
    assert good.exit_code == 0 and "All games replay exactly." in good.output
    with write_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, 1)
        state = dict(game.state)
        state["chips_left"] = {**state["chips_left"], "moons": 0}
        game.state = state
        session.add(game)
    bad = runner.invoke(args=["check"])
    assert bad.exit_code == 1
    assert "#1: replayed state differs from the stored state" in bad.output


def test_check_passes_a_healthy_database_with_games_still_forming(
    app: Any, runner: Any, smtpd: Any, client: Any
) -> None:
    links, first = start_game(client, app, smtpd)
    form = {"game": "colour-bazaar", "name_0": "Ana", "email_0": "ana@example.org"}
    form |= {"name_1": "Bob", "email_1": "bob@example.org"}
    assert client.post("/games", data=form).status_code == 303  # waits for Bob
    result = runner.invoke(args=["check"])
    assert result.exit_code == 0, result.output
    assert "All games replay exactly." in result.output


def test_local_mailbox_shows_mail_and_its_links(database_url: str, tmp_path: Any) -> None:
    app = create_app(app_settings(database_url, tmp_path, DEBUG=True, MAIL_BACKEND="file"))
    app.test_client_class = FormClient
    client = app.test_client()
    form = {
        "game": "colour-bazaar",
        "name_0": "Ana",
        "email_0": "ana@example.org",
        "name_1": "Léo",
        "email_1": "leo@example.org",
    }
    assert client.post("/games", data=form).status_code == 303
    assert "No mail yet" in client.get("/mailbox/").get_data(as_text=True)
    deliver(app)
    box = client.get("/mailbox/?to=leo").get_data(as_text=True)
    # Each mail shows its subject and its first line, as a mail client lists it.
    assert "Colour Bazaar #1 with Ana" in box and "Ana invites you to a game" in box
    assert "ana@example.org" not in box
    name = re.findall(r'href="/mailbox/([^"?]+)"', box)[0]  # a mail, not the EN/FR links
    mail = client.get(f"/mailbox/{name}").get_data(as_text=True)
    assert '<a href="http://pbem.test/p/' in mail
    html = client.get(f"/mailbox/{name}/html")
    assert "sandbox" in html.headers["Content-Security-Policy"]
    assert client.get("/mailbox/../../etc/passwd").status_code == 404
    assert client.get("/mailbox/0123456789abcdef.eml").status_code == 404


def test_mailbox_is_absent_with_smtp(client: Any) -> None:
    assert client.get("/mailbox/").status_code == 404


def test_mailbox_is_served_only_under_debug_and_a_file_backend_warns(
    database_url: str, tmp_path: Any, caplog: Any
) -> None:
    config = {
        "DATABASE_URL": database_url,
        "SECRET_KEY": GOOD_KEY,
        "MAIL_BACKEND": "file",
        "MAIL_DIR": str(tmp_path / "mail"),
    }
    with caplog.at_level("WARNING", logger="pbem"):
        production = create_app(config)
    assert production.test_client().get("/mailbox/").status_code == 404
    production.test_client_class = FormClient
    form = {"game": "colour-bazaar", "name_0": "Ana", "email_0": "ana@example.org"}
    form |= {"name_1": "Léo", "email_1": "leo@example.org"}
    created = production.test_client().post("/games", data=form, follow_redirects=True)
    assert created.status_code == 200 and "/mailbox/" not in created.get_data(as_text=True)
    assert "mail goes nowhere" in caplog.text and str(tmp_path / "mail") in caplog.text
    caplog.clear()
    with caplog.at_level("WARNING", logger="pbem"):
        local = create_app({**config, "DEBUG": True})
    assert local.test_client().get("/mailbox/").status_code == 200
    assert "mail goes nowhere" not in caplog.text


def test_refuses_a_negative_keep_days(database_url: str) -> None:
    with pytest.raises(ConfigError, match="PBEM_KEEP_DAYS"):
        create_app({"DATABASE_URL": database_url, "SECRET_KEY": GOOD_KEY, "KEEP_DAYS": -1})


def test_help_without_settings_lists_the_commands(tmp_path: Any) -> None:
    """Issue 48: `pbem --help` on a machine with no settings yet lists the commands, no
    traceback; a command that needs the app then says in one line what is missing."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(Path(__file__).parents[1])}
    run = 'import sys; from pbem.console import main; sys.argv[0] = "pbem"; main()'

    def pbem(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", run, *args],
            env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    shown = pbem("--help")
    assert shown.returncode == 0
    assert "Traceback" not in shown.stderr + shown.stdout
    for name in ("migrate", "serve", "clock", "sweep", "doctor", "new-game", "verify"):
        assert f"\n  {name} " in shown.stdout
    games = pbem("games")
    assert games.returncode != 0 and "Traceback" not in games.stderr
    assert "PBEM_SECRET_KEY" in games.stderr


def test_a_process_app_is_frozen_out_of_the_collector(tmp_path: Any) -> None:
    """Issue 50: every process (a web worker, the clock, a command) builds its app with no
    test config, then freezes it (gc.freeze): a full collection walks only what requests
    made, not the app, its modules and templates."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(Path(__file__).parents[1]),
        "PBEM_SECRET_KEY": GOOD_KEY,
        "PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'frozen.sqlite3'}",
    }
    run = "import gc; from pbem import create_app; create_app(); print(gc.get_freeze_count())"
    done = subprocess.run(
        [sys.executable, "-c", run], env=env, cwd=tmp_path, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 10_000
