"""Starting a game: the form, its errors, joining, declining and calling off."""

from __future__ import annotations

from typing import Any

from sqlmodel import func, select

from pbem import create_app
from pbem.models import Game
from pbem.storage.db import read_session
from tests.app import FormClient
from tests.settings import app_settings
from tests.web.helpers import PLAYERS, deliver, headline, link_in, snapshot


def form_for(players: list[tuple[str, str]], **extra: str) -> dict[str, str]:
    form = {"game": "colour-bazaar", **extra}
    for row, (name, email) in enumerate(players):
        form[f"name_{row}"], form[f"email_{row}"] = name, email
    return form


def test_home_page_offers_the_games(client: Any) -> None:
    page = client.get("/").get_data(as_text=True)
    assert "Colour Bazaar" in page and 'name="opt_colour-bazaar_courts"' in page
    assert "Envoyer les invitations" in client.get("/?lang=fr").get_data(as_text=True)


def test_form_errors_are_readable_and_create_nothing(client: Any) -> None:
    cases = [
        (form_for([("Ana", "ana@example.org")]), "2 to 3 players, not 1"),
        (
            form_for([("Ana", "ana@example.org"), ("Léo", "not-an-address")]),
            "The email address of player 2 does not look right",
        ),
        (form_for([("Ana", "ana@example.org"), ("", "leo@example.org")]), "Player 2 needs a name"),
        (form_for([("Ana", "ana@example.org"), ("Léo", "ANA@example.org")]), "appears twice"),
        (form_for(PLAYERS + [("Max", "max@example.org")]), "2 to 3 players, not 4"),
        (form_for(PLAYERS[:2], game="chess"), "Choose one of the games offered"),
        (form_for(PLAYERS[:2], **{"opt_colour-bazaar_first": "2"}), "must be from 0 to 1"),
    ]
    for form, message in cases:
        response = client.post("/games", data=form)
        assert response.status_code == 400, message
        assert message in response.get_data(as_text=True), message
    # The form keeps what was typed.
    response = client.post("/games", data=cases[1][0])
    assert 'value="not-an-address"' in response.get_data(as_text=True)


def test_decline_calls_the_game_off_and_tells_the_others(client: Any, app: Any, smtpd: Any) -> None:
    assert client.post("/games", data=form_for(PLAYERS)).status_code == 303
    deliver(app)
    leo = link_in(smtpd.to("leo@example.org")[0])
    zoe = link_in(smtpd.to("zoe@example.org")[0])
    smtpd.clear()
    assert client.post(f"{leo}/decline").status_code == 303
    deliver(app)
    told = sorted(str(m["To"]) for m in smtpd.messages)
    assert len(told) == 2 and all("will not take place" in headline(m) for m in smtpd.messages)
    assert "leo@" not in " ".join(told)
    assert "called off" in client.get(leo).get_data(as_text=True)
    before = snapshot(app)
    assert client.post(f"{zoe}/join").status_code == 409
    assert snapshot(app) == before


def test_only_the_creator_can_cancel(client: Any, app: Any, smtpd: Any) -> None:
    client.post("/games", data=form_for(PLAYERS))
    deliver(app)
    ana = link_in(smtpd.to("ana@example.org")[0])
    leo = link_in(smtpd.to("leo@example.org")[0])
    assert "Call the game off" in client.get(ana).get_data(as_text=True)
    assert "Call the game off" not in client.get(leo).get_data(as_text=True)
    assert client.post(f"{leo}/cancel").status_code == 400
    assert client.post(f"{ana}/cancel").status_code == 303
    assert "called off" in client.get(ana).get_data(as_text=True)


def test_game_starts_when_the_last_player_joins(client: Any, app: Any, smtpd: Any) -> None:
    client.post("/games", data=form_for(PLAYERS))
    deliver(app)
    for _, email in PLAYERS[1:]:
        link = link_in(smtpd.to(email)[0])
        assert client.post(f"{link}/join").status_code == 303
        assert client.post(f"{link}/join").status_code == 303  # a second click is harmless
    smtpd.clear()
    deliver(app)
    subjects = sorted(headline(m) for m in smtpd.messages)
    assert len(subjects) == 3
    assert sum("your move" in s for s in subjects) == 1
    assert sum("everyone has joined" in s for s in subjects) == 2


def test_creating_redirects_and_a_resent_form_creates_nothing(
    client: Any, app: Any, smtpd: Any
) -> None:
    page = client.get("/").get_data(as_text=True)
    token = page.split('name="csrf" value="')[1].split('"')[0]
    form = {**form_for(PLAYERS), "csrf": token}
    first = client.post("/games", data=form, raw=True)
    # POST/redirect/GET: the answer is a redirect to a page a reload only reads.
    assert first.status_code == 303
    location = first.headers["Location"]
    shown = client.get(location).get_data(as_text=True)
    assert "Invitations sent" in shown and "Léo" in shown and "zoe@example.org" in shown
    assert "Invitations envoyées" in client.get(f"{location}?lang=fr").get_data(as_text=True)
    before = snapshot(app)
    # The browser sends the same form again (reload, back button, double tap).
    again = client.post("/games", data=form, raw=True)
    assert again.status_code == 303 and again.headers["Location"] == location
    assert snapshot(app) == before and games_in(app) == 1
    deliver(app)
    assert len(smtpd.to("leo@example.org")) == 1  # invited once
    # A new page gives a new form, which makes a new game.
    fresh = client.get("/").get_data(as_text=True).split('name="csrf" value="')[1].split('"')[0]
    assert fresh != token
    other = client.post("/games", data={**form_for(PLAYERS), "csrf": fresh}, raw=True)
    assert other.status_code == 303 and other.headers["Location"] != location
    assert games_in(app) == 2
    assert client.get(location[:-3] + "xyz").status_code == 404


def games_in(app: Any) -> int:
    """How many games the database holds."""
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return session.exec(select(func.count()).select_from(Game)).one()


def test_the_invitations_page_links_the_local_mailbox_only_where_there_is_one(
    client: Any, database_url: str, tmp_path: Any, clock: Any
) -> None:
    """`make run` (the file backend, debug) links the local mailbox from the page after the
    invitations; a server that mails by SMTP has no mailbox to show."""
    local = create_app(
        app_settings(database_url, tmp_path, DEBUG=True, MAIL_BACKEND="file", CLOCK=clock)
    )
    local.test_client_class = FormClient
    for each, linked in ((local.test_client(), True), (client, False)):
        created = each.post("/games", data=form_for(PLAYERS))
        shown = each.get(created.headers["Location"]).get_data(as_text=True)
        assert ("Open the local mailbox" in shown) is linked
        assert ('href="/mail' in shown) is linked
