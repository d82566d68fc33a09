"""What a player or operator still gets from a mail whose text was pruned (issue 33) or whose
row was deleted (issue 45): its settings link signs in for 30 days and says it expired
after while the game goes on, an old sign-in link says it expired, the local mailbox shows
it."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

from pbem import create_app
from pbem.clock.computer_play import sweep_computers
from pbem.clock.scheduler import prune_old
from pbem.config import settings_of
from pbem.models import Game
from pbem.seats import leave
from pbem.storage.db import read_session, write_session
from tests.app import FormClient
from tests.settings import app_settings
from tests.web.helpers import ask, deliver, press, signin_link, start_game, text_of


def _settings_links(mails: list[Any]) -> list[str]:
    return [
        line.split(": ", 1)[1].removeprefix("http://pbem.test")
        for mail in mails
        for line in text_of(mail).splitlines()
        if "which mails" in line
    ]


def test_links_in_pruned_mail_still_work_or_say_why_not(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    settings_of(app).keep_days = 7  # the settings link is good for 30 days: it outlives the text
    links, first = start_game(client, app, smtpd)
    mail = smtpd.messages[first]
    settings, later, last = _settings_links(smtpd.messages[first:])[:3]
    ask(client, "zoe@example.org")
    deliver(app)
    asked = signin_link(smtpd.messages[-1])
    clock.advance(days=8)
    sent = len(smtpd.messages)  # no mail is deleted before its links' 30 days
    assert prune_old(app) == {
        "mails": 0,
        "emptied": sent,
        "webhooks": 0,
        "received": 0,
        "bounces": 0,
    }
    fresh = app.test_client()
    response = press(fresh, settings)
    assert response.status_code == 303
    email = str(mail["To"]).split("<")[1].rstrip(">")
    assert response.headers["Location"] == links[email] + "/settings"
    late = app.test_client().get(asked)
    assert late.status_code == 410 and "expired" in late.get_data(as_text=True)
    # Past 30 days the game still going on keeps its mail's row: its link says it expired.
    clock.advance(days=23)
    assert prune_old(app)["mails"] == 1  # the sign-in mail: no game
    expired = app.test_client().get(later)
    assert expired.status_code == 410 and "expired" in expired.get_data(as_text=True)
    # Once the game is over, its rows go: an old link is then unknown, as a wrong one.
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    with write_session(engine) as session:
        for seat in range(3):
            leave.leave(session, site, 1, seat, clock())
    while sweep_computers(engine, site, clock(), timedelta(0)):
        clock.advance(minutes=1)
    with read_session(engine) as session:
        assert session.get(Game, 1).status == "over"
    assert prune_old(app)["mails"] == sent - 1
    assert app.test_client().get(last).status_code == 404


def test_the_local_mailbox_shows_mail_whose_row_was_deleted(
    database_url: str, tmp_path: Any, clock: Any
) -> None:
    """The mailbox reads the files the file backend wrote, not the outbox rows."""
    app = create_app(
        app_settings(database_url, tmp_path, DEBUG=True, MAIL_BACKEND="file", CLOCK=clock)
    )
    app.test_client_class = FormClient
    client = app.test_client()
    form = {"game": "colour-bazaar", "name_0": "Ana", "email_0": "ana@example.org",
            "name_1": "Léo", "email_1": "leo@example.org"}  # fmt: skip
    assert client.post("/games", data=form).status_code == 303
    deliver(app)
    invitations = len(list(Path(settings_of(app).mail_dir).glob("*.eml")))
    clock.advance(days=31)
    assert prune_old(app)["emptied"] == invitations  # the game is still forming
    for _ in range(2):  # its creator warned, then the game called off, unstarted
        assert app.test_cli_runner().invoke(args=["sweep"]).exit_code == 0
        clock.advance(days=1, minutes=1)
    assert prune_old(app)["mails"] == invitations
    box = client.get("/mailbox/?to=leo").get_data(as_text=True)
    assert "Ana invites you to a game" in box
    shown = [
        client.get(f"/mailbox/{name}") for name in re.findall(r'href="/mailbox/([^"?]+)"', box)
    ]
    assert any("invites you" in m.get_data(as_text=True) for m in shown)  # and the called off
    assert all(m.status_code == 200 for m in shown)
    assert any("http://pbem.test/p/" in m.get_data(as_text=True) for m in shown)
    app.extensions["pbem"]["engine"].dispose()
