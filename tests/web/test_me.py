"""/me, a signed-in player's games: my move first (most urgent first, with the deadline), then
waiting for others (whom, and their time left), invitations (join from there), finished games
with the result; and "next game" on a seat page once the player has moved."""

from __future__ import annotations

import re
from typing import Any

from sqlmodel import select

from pbem.models import Game, Seat
from pbem.storage.db import read_session, write_session
from tests.web.helpers import (
    ANA,
    LEO,
    ZOE,
    deliver,
    form_with,
    headline,
    hidden,
    new_game,
    play_turn,
    sign_in,
    state_of,
)


def section(html: str, name: str) -> str:
    return re.search(rf'<section id="{name}".*?</section>', html, re.S).group(0)


def test_my_games_sorted_by_what_they_need(client: Any, app: Any, smtpd: Any) -> None:
    slow = new_game(client, app, smtpd, [ANA, LEO])  # game 1: 3 days a move
    fast = new_game(client, app, smtpd, [ANA, ZOE], days_per_move="1")  # game 2: 1 day
    waiting = new_game(client, app, smtpd, [ZOE, ANA], days_per_move="2")  # game 3: Zoé first
    new_game(client, app, smtpd, [LEO, ANA, ZOE], join=False)  # game 4: an invitation
    assert client.get("/me").status_code == 303  # not signed in: to /signin
    sign_in(client, app, smtpd, ANA[1])
    html = client.get("/me").get_data(as_text=True)
    mine = section(html, "my-move")
    # The game with one day left comes before the one with three.
    assert mine.index(fast[ANA[1]]) < mine.index(slow[ANA[1]])
    assert "You must move by Tuesday 3 March 2026, 09:00 (UTC) (24 hours left)." in mine
    assert "You must move by Thursday 5 March 2026, 09:00 (UTC) (3 days left)." in mine
    others = section(html, "waiting")
    assert waiting[ANA[1]] in others
    assert "Zoé must move by Wednesday 4 March 2026, 09:00 (UTC) (2 days left)." in others
    invitations = section(html, "invitations")
    assert "Léo invites you to play with Zoé." in invitations
    # Join from /me, in one press, giving the share the page's script made (issue 48).
    join = form_with(invitations, "/join")
    assert hidden(join)["share"] == "" and 'src="/static/deal.js"' in invitations
    data = {**hidden(join), "share": "ana-share-from-me"}
    assert client.post(join["action"], data=data).status_code == 303
    with read_session(app.extensions["pbem"]["engine"]) as session:
        seat = session.exec(select(Seat).where(Seat.game_id == 4, Seat.seat == 1)).one()
        assert seat.status == "joined" and seat.share == "ana-share-from-me"
    home = client.get("/me").get_data(as_text=True)
    assert "Waiting for Zoé to join." in section(home, "waiting")


def test_next_game_goes_to_the_most_urgent_move_then_home(
    client: Any, app: Any, smtpd: Any
) -> None:
    slow = new_game(client, app, smtpd, [ANA, LEO])
    fast = new_game(client, app, smtpd, [ANA, ZOE], days_per_move="1")
    page = client.get(fast[ANA[1]]).get_data(as_text=True)
    assert "Next game" not in page  # Ana has not moved here yet
    play_turn(client, fast[ANA[1]])
    page = client.get(fast[ANA[1]] + "?done=1").get_data(as_text=True)
    assert f'href="{slow[ANA[1]]}">Next game where it is your move' in page
    play_turn(client, slow[ANA[1]])
    page = client.get(slow[ANA[1]]).get_data(as_text=True)
    assert 'href="/me">My games' in page


def test_finished_games_show_the_result(client: Any, app: Any, smtpd: Any) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO])
    seen = len(smtpd.messages)
    play_turn(client, links[ANA[1]])
    deliver(app)
    for _ in range(40):
        if state_of(app, 1).status == "over":
            break
        (mover,) = [m for m in smtpd.messages[seen:] if headline(m).startswith("your move")]
        seen = len(smtpd.messages)
        play_turn(client, links[str(mover["To"]).split("<")[1].rstrip(">")])
        deliver(app)
    game = state_of(app, 1)
    assert game.status == "over"
    sign_in(client, app, smtpd, ANA[1])
    finished = section(client.get("/me").get_data(as_text=True), "finished")
    assert links[ANA[1]] in finished
    score = game.outcome["scores"][0]
    if game.outcome["ranks"][0] == 1:
        assert f"You won, with {score} points." in finished
    else:
        assert f"Léo won. You came 2nd, with {score} points." in finished


def test_finished_games_name_your_place_and_whom_you_tied_with(
    client: Any, app: Any, smtpd: Any
) -> None:
    """Issue 31: "you came 2nd" ("vous avez fini 2e"), and a tie names the others in it."""
    new_game(client, app, smtpd, [ANA, LEO, ZOE])
    sign_in(client, app, smtpd, ANA[1])
    cases = [
        ([2, 1, 3], "Léo won. You came 2nd, with 10 points.",
         "Léo a gagné. Vous avez fini 2e, avec 10 points."),
        ([3, 1, 2], "Léo won. You came 3rd, with 10 points.",
         "Léo a gagné. Vous avez fini 3e, avec 10 points."),
        ([1, 1, 3], "You shared 1st with Léo, with 10 points.",
         "Vous avez fini 1er ex æquo avec Léo, avec 10 points."),
        ([2, 1, 2], "Léo won. You shared 2nd with Zoé, with 10 points.",
         "Léo a gagné. Vous avez fini 2e ex æquo avec Zoé, avec 10 points."),
        ([3, 1, 1], "Léo and Zoé shared the win. You came 3rd, with 10 points.",
         "Léo et Zoé ont partagé la victoire. Vous avez fini 3e, avec 10 points."),
    ]  # fmt: skip
    engine = app.extensions["pbem"]["engine"]
    for ranks, english, french in cases:
        with write_session(engine) as session:
            game = session.get(Game, 1)
            assert game is not None
            game.status, game.outcome = "over", {"ranks": ranks, "scores": [10, 12, 8]}
            session.add(game)
        for lang, words in (("en", english), ("fr", french)):
            page = client.get(f"/me?lang={lang}").get_data(as_text=True)
            shown = " ".join(re.sub(r"<[^>]+>", "", section(page, "finished")).split())
            assert words in shown, shown
