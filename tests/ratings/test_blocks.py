"""Blocking from a player's page (a plain form), listed and lifted in the settings; a blocked
player's private messages are hidden from the blocker, on the page and in the mail."""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from pbem.models import Block, Game
from pbem.storage.db import read_session
from tests.ratings.helpers import player_id
from tests.web.helpers import (
    PLAYERS,
    deliver,
    form_with,
    hidden,
    play_turn,
    sign_in_as,
    start_game,
    text_of,
)

ANA, LEO, ZOE = (email for _, email in PLAYERS)


def blocks(app: Any) -> list[tuple[int, int]]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return [(b.player_id, b.blocked_id) for b in session.exec(select(Block))]


def press(client: Any, page_url: str, action_end: str) -> Any:
    """Press the page's button whose form posts to …`action_end`, as a browser without
    JavaScript does; the answer after the redirect."""
    form = form_with(client.get(page_url).get_data(as_text=True), action_end)
    posted = client.post(form["action"], data=hidden(form))
    assert posted.status_code == 303, posted.data
    return client.get(posted.headers["Location"])


def turn(app: Any) -> int:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, 1)
        assert game is not None and game.state is not None
        return int(game.state["turn"])


def test_a_blocked_players_private_messages_are_hidden_from_the_blocker(
    client: Any, app: Any, smtpd: Any
) -> None:
    links, _ = start_game(client, app, smtpd)
    ana, leo = player_id(app, ANA), player_id(app, LEO)
    # Not signed in: no block button.
    assert "/block" not in client.get(f"/players/{ana}").get_data(as_text=True)
    sign_in_as(client, app, leo)
    assert "/block" not in client.get(f"/players/{leo}").get_data(as_text=True)  # not oneself
    page = press(client, f"/players/{ana}", f"/players/{ana}/block")
    assert page.status_code == 200 and "Unblock" in page.get_data(as_text=True)
    assert blocks(app) == [(leo, ana)]
    # A post without the form's token does nothing.
    assert client.post(f"/players/{ana}/unblock", raw=True).status_code == 400
    assert blocks(app) == [(leo, ana)]

    for text, to in (("Hello, everyone.", "all"), ("Psst, Leo: a secret deal?", "1")):
        assert client.post(f"{links[ANA]}/talk", data={"text": text, "to": to}).status_code == 303
    assert (
        client.post(f"{links[ZOE]}/talk", data={"text": "Zoe to Leo.", "to": "1"}).status_code
        == 303
    )
    leo_page = client.get(links[LEO]).get_data(as_text=True)
    assert "Hello, everyone." in leo_page and "Zoe to Leo." in leo_page
    assert "secret deal" not in leo_page
    assert "secret deal" in client.get(links[ANA]).get_data(as_text=True)  # its author sees it

    smtpd.clear()
    seat_links = [links[ANA], links[LEO], links[ZOE]]
    for _ in range(6):
        play_turn(client, seat_links[turn(app)])
        deliver(app)
    leo_mail = [text_of(m) for m in smtpd.to(LEO)]
    assert any("Zoe to Leo." in body for body in leo_mail)
    assert any("Hello, everyone." in body for body in leo_mail)
    assert not any("secret deal" in body for body in leo_mail)

    # The settings page lists the block and lifts it: the message shows again.
    settings = f"{links[LEO]}/settings"
    listed = client.get(settings).get_data(as_text=True)
    assert f'href="/players/{ana}">Ana</a>' in listed
    press(client, settings, "/unblock")
    assert blocks(app) == []
    assert "secret deal" in client.get(links[LEO]).get_data(as_text=True)


def test_one_cannot_block_oneself_or_nobody(client: Any, app: Any, smtpd: Any) -> None:
    start_game(client, app, smtpd)
    leo = player_id(app, LEO)
    sign_in_as(client, app, leo)
    page = client.get(f"/players/{player_id(app, ANA)}").get_data(as_text=True)
    token = hidden(form_with(page, "/block"))
    assert client.post(f"/players/{leo}/block", data=token).status_code == 400
    assert client.post("/players/999/block", data=token).status_code == 404
    assert blocks(app) == []
