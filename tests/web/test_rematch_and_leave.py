"""Rematch from the results page (same players, game and options; the others join in one
press; computer seats stay computers, a player who left is invited back), and leaving a game
(asked first; a computer player takes the seat, the log and the results say so)."""

from __future__ import annotations

import re
from typing import Any

from sqlmodel import select

from pbem.clock.scheduler import computer_moves
from pbem.games import GAMES, fairdeal
from pbem.models import Game
from pbem.storage.db import read_session
from tests.clock.helpers import moves, run_sweep
from tests.web.helpers import (
    ANA,
    LEO,
    ZOE,
    deliver,
    finish,
    forget_session,
    form_with,
    headline,
    hidden,
    link_in,
    new_game,
    play_turn,
    seat_row,
    sign_in_as,
    state_of,
    text_of,
)


def test_rematch_same_players_and_options_joined_in_one_press(
    client: Any, app: Any, smtpd: Any
) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO, ZOE], **{
        "opt_colour-bazaar_courts": "1", "days_per_move": "5"})  # fmt: skip
    play_turn(client, links[ANA[1]])
    deliver(app)
    finish(client, app, smtpd, links)
    page = client.get(links[LEO[1]]).get_data(as_text=True)
    form = form_with(page, "/rematch")
    smtpd.clear()
    response = client.post(form["action"], data=hidden(form))
    assert response.status_code == 303
    again = state_of(app, 2)
    old = state_of(app, 1)
    assert again.rematch_of == 1 and again.slug == old.slug
    assert again.options["courts"] is True and again.days_per_move == 5
    # Asking again, from another seat, leads to the same rematch.
    assert "Go to the rematch" in client.get(links[ZOE[1]]).get_data(as_text=True)
    twice = client.post(links[ZOE[1]] + "/rematch")
    assert twice.status_code == 303 and twice.headers["Location"].startswith("/p/")
    with read_session(app.extensions["pbem"]["engine"]) as session:
        assert len(session.exec(select(Game)).all()) == 2  # one rematch, not two
    deliver(app)
    invited = {str(m["To"]).split("<")[1].rstrip(">") for m in smtpd.messages}
    assert invited == {ANA[1], LEO[1], ZOE[1]}
    for email in (ANA[1], ZOE[1]):
        (mail,) = smtpd.to(email)
        assert "léo invites you to a game of colour bazaar" in headline(mail)
        assert client.post(link_in(mail) + "/join").status_code == 303  # one press
    assert state_of(app, 2).status == "active"
    # The results page now leads to the rematch.
    assert "Go to the rematch" in client.get(links[ANA[1]]).get_data(as_text=True)


def test_leaving_asks_first_then_a_computer_takes_the_seat(
    client: Any, app: Any, smtpd: Any
) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO])
    leo = links[LEO[1]]
    page = client.get(leo).get_data(as_text=True)
    assert f'href="{leo}/leave"' in page
    ask = client.get(f"{leo}/leave")
    assert ask.status_code == 200 and "You cannot come back" in ask.get_data(as_text=True)
    assert state_of(app, 1).ply == 0  # asking changes nothing
    form = form_with(ask.get_data(as_text=True), "/leave")
    assert client.post(form["action"], data=hidden(form)).status_code == 303
    deliver(app)
    smtpd.clear()  # from here on, what Léo is sent after leaving
    # The game's takeover level (casual, the default) now plays Léo's seat.
    assert seat_row(app, 1, 1).computer == "casual" and seat_row(app, 1, 1).left
    play_turn(client, links[ANA[1]])  # now Léo's turn: no deadline, the computer's move
    assert seat_row(app, 1, 1).deadline is None
    assert run_sweep(app)["timeouts"] == 0
    assert "will move in a moment" in client.get(links[ANA[1]]).get_data(as_text=True)
    app.config["CLOCK"].advance(seconds=5)
    assert computer_moves(app) == 1
    assert state_of(app, 1).ply == 2 and [m.source for m in moves(app)] == ["web", "left"]
    page = client.get(links[ANA[1]]).get_data(as_text=True)
    assert "the player left: a computer plays the seat" in page
    # On Léo's own /me the game no longer counts as his move, even when the seat is due.
    sign_in_as(client, app, seat_row(app, 1, 1).player_id)
    play_turn(client, links[ANA[1]])
    assert 1 in GAMES["colour-bazaar"].to_act(state_of(app, 1).state)
    me = client.get("/me").get_data(as_text=True)
    my_move = me.split('id="my-move"')[1].split("</section>")[0]
    assert "Colour Bazaar #1" not in my_move and "Colour Bazaar #1" in me
    forget_session(client)
    app.config["CLOCK"].advance(seconds=5)
    assert computer_moves(app) == 1
    assert "Léo left the game: a computer player plays their seat." in page
    # Léo's page shows no move form, and a move he sends is refused.
    assert 'action="' + leo + '/move"' not in client.get(leo).get_data(as_text=True)
    deliver(app)
    finish(client, app, smtpd, links)
    assert "Léo (left)" in client.get(links[ANA[1]]).get_data(as_text=True)
    over = [m for m in smtpd.to(ANA[1]) if headline(m).startswith("game over")]
    assert over and "Léo (left)" in text_of(over[-1])
    # Léo, who left, hears nothing of the game but its result.
    since_leaving = [headline(m) for m in smtpd.to(LEO[1])]
    assert len(since_leaving) == 1 and since_leaving[0].startswith("game over")
    assert "Léo (left)" in text_of(smtpd.to(LEO[1])[0])
    assert re.search(r"Léo \(left\)", client.get(leo).get_data(as_text=True))


def test_a_rematch_against_a_computer_keeps_the_computer_at_its_level(
    client: Any, app: Any, smtpd: Any
) -> None:
    """The computer seat used to be invited as a person at its own address, and the rematch
    refused (400 "The email address of player 2 does not look right")."""
    form = {"game": "colour-bazaar", "opt_colour-bazaar_first": "0", "name_0": ANA[0],
            "email_0": ANA[1], "computer_1": "beginner"}  # fmt: skip
    made = client.post("/games", data=form)
    assert made.status_code == 303
    deliver(app)
    links = {ANA[1]: made.headers["Location"]}  # her seat page opens at once (issue 31)
    finish(client, app, smtpd, links)
    page = client.get(links[ANA[1]]).get_data(as_text=True)
    rematch = form_with(page, "/rematch")
    smtpd.clear()
    response = client.post(rematch["action"], data=hidden(rematch))
    assert response.status_code == 303, response.get_data(as_text=True)
    again = state_of(app, 2)
    assert again.rematch_of == 1 and again.status == "active"  # a person and a computer
    computer = seat_row(app, 2, 1)
    assert computer.computer == "beginner" and computer.status == "joined"
    assert computer.player_id == seat_row(app, 1, 1).player_id  # the same computer player
    deliver(app)
    # Ana is taken to the rematch's page, where it is her move: no mail tells her so.
    assert smtpd.messages == []
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Your move." in page and "#2" in page
    play_turn(client, response.headers["Location"])  # Ana plays the rematch; the computer answers
    app.config["CLOCK"].advance(seconds=5)
    assert computer_moves(app) == 1 and state_of(app, 2).ply == 2


def test_a_rematch_invites_a_player_who_left_as_a_person(client: Any, app: Any, smtpd: Any) -> None:
    """Zoé left, and a computer took her seat at the same level as the computer seat beside
    her: in the rematch (a new game) the computer seat stays a computer, and Zoé's seat goes
    back to her, invited like any person."""
    form = {"game": "colour-bazaar", "opt_colour-bazaar_first": "0", "name_0": ANA[0],
            "email_0": ANA[1], "computer_1": "casual", "name_2": ZOE[0],
            "email_2": ZOE[1]}  # fmt: skip
    assert client.post("/games", data=form).status_code == 303
    deliver(app)
    links = {email: link_in(smtpd.to(email)[-1]) for email in (ANA[1], ZOE[1])}
    assert client.post(links[ZOE[1]] + "/join").status_code == 303
    assert client.post(links[ZOE[1]] + "/leave").status_code == 303
    left = seat_row(app, 1, 2)
    assert left.left and left.computer == seat_row(app, 1, 1).computer == "casual"
    finish(client, app, smtpd, links)
    smtpd.clear()
    response = client.post(links[ANA[1]] + "/rematch")
    assert response.status_code == 303, response.get_data(as_text=True)
    assert seat_row(app, 2, 1).computer == "casual"
    zoe = seat_row(app, 2, 2)
    assert zoe.computer is None and not zoe.left and zoe.status == "invited"
    assert zoe.player_id == left.player_id and state_of(app, 2).status == "forming"
    deliver(app)
    (mail,) = smtpd.to(ZOE[1])
    assert "ana invites you to a game of colour bazaar" in headline(mail)
    assert client.post(link_in(mail) + "/join").status_code == 303  # one press
    assert state_of(app, 2).status == "active"


def test_the_rematch_asker_gives_a_share_of_its_deal(client: Any, app: Any, smtpd: Any) -> None:
    """The rematch's button carries a share of the new game's deal made by the asker's
    browser (static/deal.js fills its hidden field, as the lobby's): the asker's seat gave
    none before (issue 48, item 8). Against a computer it starts at once, named by no one."""
    form = {"game": "colour-bazaar", "opt_colour-bazaar_first": "0", "name_0": ANA[0],
            "email_0": ANA[1], "computer_1": "beginner"}  # fmt: skip
    made = client.post("/games", data=form)
    links = {ANA[1]: made.headers["Location"]}
    finish(client, app, smtpd, links)
    page = client.get(links[ANA[1]]).get_data(as_text=True)
    rematch = form_with(page, "/rematch")
    fields = hidden(rematch)
    assert fields["share"] == "" and 'src="/static/deal.js"' in page
    response = client.post(rematch["action"], data={**fields, "share": "ana-rematch-share"})
    assert response.status_code == 303
    again = state_of(app, 2)
    assert again.rematch_of == 1 and again.status == "active" and again.deal_secret
    assert seat_row(app, 2, 0).share == "ana-rematch-share"
    shares = ["ana-rematch-share", ""]  # a computer gives none, and is not asked to
    assert again.seed == fairdeal.seed_of(again.deal_secret, shares)
    api = response.headers["Location"].replace("/p/", "/api/v1/seat/")
    assert client.get(api).get_json()["game"]["deal"]["unshared"] == []
