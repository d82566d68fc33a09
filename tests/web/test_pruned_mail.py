"""What a player or operator still gets from a mail whose text was pruned (issue 33): its
settings link signs in, an old sign-in link says it expired, the local mailbox shows it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pbem import create_app
from pbem.clock.scheduler import prune_old
from tests.conftest import FormClient
from tests.settings import app_settings
from tests.web.helpers import deliver, start_game, text_of
from tests.web.test_signin import ask, press, signin_link


def test_links_in_pruned_mail_still_work_or_say_why_not(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    app.config["KEEP_DAYS"] = 7  # the settings link is good for 30 days: it outlives the text
    links, first = start_game(client, app, smtpd)
    mail = smtpd.messages[first]
    settings = next(
        line.split(": ", 1)[1] for line in text_of(mail).splitlines() if "which mails" in line
    )
    ask(client, "zoe@example.org")
    deliver(app)
    asked = signin_link(smtpd.messages[-1])
    clock.advance(days=8)
    assert prune_old(app)["mails"] >= 2
    fresh = app.test_client()
    response = press(fresh, settings.removeprefix("http://pbem.test"))
    assert response.status_code == 303
    email = str(mail["To"]).split("<")[1].rstrip(">")
    assert response.headers["Location"] == links[email] + "/settings"
    late = app.test_client().get(asked)
    assert late.status_code == 410 and "expired" in late.get_data(as_text=True)


def test_the_local_mailbox_shows_mail_whose_row_was_pruned(
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
    clock.advance(days=31)
    assert prune_old(app)["mails"] == len(list(Path(app.config["MAIL_DIR"]).glob("*.eml")))
    box = client.get("/mailbox/?to=leo").get_data(as_text=True)
    assert "Ana invites you to a game" in box
    name = re.findall(r'href="/mailbox/([^"?]+)"', box)[0]
    shown = client.get(f"/mailbox/{name}")
    assert shown.status_code == 200 and "http://pbem.test/p/" in shown.get_data(as_text=True)
    app.extensions["pbem"]["engine"].dispose()
