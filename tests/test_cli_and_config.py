"""The command line (new game, list, log, replay check), the configuration, the mailbox page."""

from __future__ import annotations

from typing import Any

import pytest

from pbem import create_app
from pbem.config import ConfigError
from pbem.db import write_session
from pbem.models import Game
from tests.conftest import FormClient
from tests.web.helpers import deliver, link_in, play_turn, start_game


def test_refuses_default_secret_outside_debug(database_url: str) -> None:
    with pytest.raises(ConfigError, match="PBEM_SECRET_KEY"):
        create_app({"DATABASE_URL": database_url})
    assert create_app({"DATABASE_URL": database_url, "DEBUG": True})
    assert create_app({"DATABASE_URL": database_url, "SECRET_KEY": "a-real-secret"})


def test_environment_overrides_defaults(monkeypatch: Any, database_url: str) -> None:
    monkeypatch.setenv("PBEM_SECRET_KEY", "from-the-environment")
    monkeypatch.setenv("PBEM_SMTP_PORT", "2525")
    monkeypatch.setenv("PBEM_BASE_URL", "https://pbem.example.org")
    app = create_app({"DATABASE_URL": database_url})
    assert app.config["SECRET_KEY"] == "from-the-environment"
    assert app.config["SMTP_PORT"] == 2525
    assert app.config["BASE_URL"] == "https://pbem.example.org"


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
    mover = next(m for m in smtpd.messages if "your move" in str(m["Subject"]))
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
    mover = next(m for m in smtpd.messages[first:] if "your move" in str(m["Subject"]))
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


def test_local_mailbox_shows_mail_and_its_links(database_url: str, tmp_path: Any) -> None:
    app = create_app(
        {
            "TESTING": True,
            "DATABASE_URL": database_url,
            "MAIL_BACKEND": "file",
            "MAIL_DIR": str(tmp_path / "mail"),
            "BASE_URL": "http://pbem.test",
        }
    )
    app.test_client_class = FormClient
    client = app.test_client()
    form = {
        "game": "colour-bazaar",
        "name_0": "Ana",
        "email_0": "ana@example.org",
        "name_1": "Léo",
        "email_1": "leo@example.org",
    }
    assert client.post("/games", data=form).status_code == 201
    assert "No mail yet" in client.get("/mailbox/").get_data(as_text=True)
    deliver(app)
    box = client.get("/mailbox/?to=leo").get_data(as_text=True)
    assert "invites you to play" in box and "ana@example.org" not in box
    name = box.split('href="/mailbox/')[1].split('"')[0]
    mail = client.get(f"/mailbox/{name}").get_data(as_text=True)
    assert '<a href="http://pbem.test/p/' in mail
    html = client.get(f"/mailbox/{name}/html")
    assert "sandbox" in html.headers["Content-Security-Policy"]
    assert client.get("/mailbox/../../etc/passwd").status_code == 404
    assert client.get("/mailbox/0123456789abcdef.eml").status_code == 404


def test_mailbox_is_absent_with_smtp(client: Any) -> None:
    assert client.get("/mailbox/").status_code == 404
