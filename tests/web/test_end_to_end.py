"""A whole three-player game played over HTTP, following only the links in delivered mail."""

from __future__ import annotations

from typing import Any

from pbem.games import GAMES
from tests.web.helpers import deliver, form_with, hidden, link_in, radio_values, text_of

PLAYERS = [("Ana", "ana@example.org"), ("Léo", "leo@example.org"), ("Zoé", "zoe@example.org")]


def start_game(
    client: Any, app: Any, smtpd: Any, courts: bool = False
) -> tuple[dict[str, str], int]:
    """Create a game from the lobby form and have everyone join by their mailed link;
    return each player's link and the index of the first mail sent at the start."""
    form = {"game": "colour-bazaar"}
    if courts:
        form["opt_colour-bazaar_courts"] = "1"
    for row, (name, email) in enumerate(PLAYERS):
        form[f"name_{row}"] = name
        form[f"email_{row}"] = email
    response = client.post("/games", data=form)
    assert response.status_code == 201
    deliver(app)
    links = {}
    for name, email in PLAYERS:
        (mail,) = smtpd.to(email)
        links[email] = link_in(mail)
        if name != "Ana":
            assert "invites you" in str(mail["Subject"])
            page = client.get(links[email])
            assert page.status_code == 200 and b"Join the game" in page.data
            assert client.post(f"{links[email]}/join").status_code == 303
    first = len(smtpd.messages)
    deliver(app)
    return links, first


def play_turn(client: Any, link: str) -> None:
    """Open the page, pick the first offered card and chip, review, confirm."""
    page = client.get(link)
    assert page.status_code == 200, page.data
    html = page.get_data(as_text=True)
    form = form_with(html, "/move")
    data = hidden(form)
    data["play"] = radio_values(form, "play")[0]
    data["chip"] = radio_values(form, "chip")[0]
    suits = radio_values(form, "suit")
    if suits:
        data["suit"] = suits[0]
    review = client.post(f"{link}/move", data=data)
    assert review.status_code == 200
    confirm = form_with(review.get_data(as_text=True), "/move")
    data = hidden(confirm)
    assert data["confirm"] == "1"
    sent = client.post(f"{link}/move", data=data)
    assert sent.status_code == 303, sent.data


def test_whole_game_by_mail(client: Any, app: Any, smtpd: Any) -> None:
    links, seen = start_game(client, app, smtpd, courts=True)
    turns = 0
    while True:
        new = smtpd.messages[seen:]
        seen = len(smtpd.messages)
        over = [m for m in new if "game over" in str(m["Subject"])]
        if over:
            break
        movers = [m for m in new if "your move" in str(m["Subject"])]
        assert len(movers) == 1, [str(m["Subject"]) for m in new]
        (mail,) = movers
        email = str(mail["To"]).split("<")[1].rstrip(">")
        assert link_in(mail) == links[email]
        play_turn(client, link_in(mail))
        turns += 1
        deliver(app)
        assert turns <= 30
    assert turns == 30
    assert len(over) == 3

    # The scores in the mails are the engine's scores for the stored final state.
    from pbem.db import read_session
    from pbem.models import Game

    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, 1)
        outcome = GAMES["colour-bazaar"].outcome(game.state)
    assert outcome is not None
    for mail in over:
        body = text_of(mail)
        for seat, (name, _) in enumerate(PLAYERS):
            assert f"{outcome.ranks[seat]}. {name}: {outcome.scores[seat]} points" in body
    # Every mail of the game is in one thread and carries only its recipient's link.
    threads = {str(m["References"]) for m in smtpd.messages}
    assert len(threads) == 1
    for mail in smtpd.messages:
        email = str(mail["To"]).split("<")[1].rstrip(">")
        assert link_in(mail) == links[email]
        others = [link for address, link in links.items() if address != email]
        assert not any(other in text_of(mail) for other in others)
