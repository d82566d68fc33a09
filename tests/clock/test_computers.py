"""Computer players at the table: a game alone against the computer, by mail, and a
computer taking the seat of a player marked absent until they are back."""

from __future__ import annotations

import json
from typing import Any

from pbem.clock.scheduler import computer_moves
from tests.clock.helpers import moves, new_game, run_sweep
from tests.web.helpers import deliver, headline, link_in, play_turn, seat_row, state_of, text_of

ANA, LEO = ("Ana", "ana@example.org"), ("Léo", "leo@example.org")


def test_one_person_and_two_computers_play_a_whole_game_by_mail(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    form = {
        "game": "colour-bazaar",
        "name_0": ANA[0],
        "email_0": ANA[1],
        "computer_1": "casual",
        "name_2": "Robot",
        "computer_2": "beginner",
        "opt_colour-bazaar_first": "1",
    }
    made = client.post("/games", data=form)
    assert made.status_code == 303
    # With one person and computers, the game starts at once: no invitations to accept.
    # A computer seat's name (hidden on the form) is not read: it is named by its level.
    assert state_of(app).status == "active"
    assert seat_row(app, 1, 1).computer == "casual" and seat_row(app, 1, 2).name == "Beginner 3"
    deliver(app)
    link = made.headers["Location"]  # the seat page opens at once (issue 31)
    turns = 0
    while state_of(app).status == "active":
        game = state_of(app)
        if game.state["turn"] == 0:
            mail = smtpd.to(ANA[1])[-1]
            assert "your move" in headline(mail) and link_in(mail) == link
            play_turn(client, link)
            turns += 1
            continue
        # A computer's turn: the page says so, keeps itself up to date (its stream, its
        # poll when the stream is down), and offers a reload link without JavaScript.
        page = client.get(link).get_data(as_text=True)
        assert "will move in a moment" in page and f'data-poll="{link}/ply"' in page
        assert f'data-stream="/live{link}"' in page
        assert "live.js" in page and f'href="{link}"' in page
        poll = client.get(f"{link}/ply")
        facts = json.loads(poll.data)
        assert facts == {"ply": game.ply, "status": "active", "version": game.version}
        # Ana leaves the page (its script says so): the reply is mailed, not held for it
        # (tests/clock/test_quiet_while_looking.py).
        assert client.post(f"{link}/away").status_code == 204
        # Not inside a request, not before the delay: only the clock's sweep moves.
        assert computer_moves(app) == 0
        clock.advance(seconds=4)
        assert computer_moves(app) == 1
        assert state_of(app).ply == game.ply + 1
        assert turns <= 10
    assert turns == 10
    deliver(app)
    made = moves(app)
    assert len(made) == 30
    assert {m.source for m in made if m.seat != 0} == {"computer"}
    assert {m.source for m in made if m.seat == 0} == {"web"}
    # Every mail went to the one person; the log and the mails say what the computer did.
    assert {str(m["To"]) for m in smtpd.messages} == {f"{ANA[0]} <{ANA[1]}>"}
    over = smtpd.to(ANA[1])[-1]
    assert "game over" in headline(over)
    assert "(computer)" in text_of(smtpd.to(ANA[1])[1])
    assert "(computer)" in client.get(link).get_data(as_text=True)


def test_a_computer_plays_for_an_absent_player_until_they_are_back(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    links = new_game(
        client,
        app,
        smtpd,
        [ANA, LEO],
        **{"opt_colour-bazaar_first": "0", "absent_after": "1", "takeover": "casual"},
    )
    ana, leo = links[ANA[1]], links[LEO[1]]
    assert state_of(app).takeover == "casual"
    clock.advance(days=3, seconds=1)
    assert run_sweep(app)["timeouts"] == 1  # Ana's first timeout marks her absent
    assert seat_row(app, 1, 0).absent
    deliver(app)
    play_turn(client, leo)
    # Ana's turn now belongs to the computer: no timeout, no deadline, a short delay.
    assert seat_row(app, 1, 0).deadline is None
    assert run_sweep(app)["timeouts"] == 0
    assert "will move in a moment" in client.get(leo).get_data(as_text=True)
    assert computer_moves(app) == 0
    clock.advance(seconds=4)
    assert computer_moves(app) == 1
    assert [m.source for m in moves(app)] == ["timeout", "web", "computer"]
    assert seat_row(app, 1, 0).absent  # a computer move does not bring her back
    deliver(app)
    turn_mail = smtpd.to(LEO[1])[-1]
    assert "your move" in headline(turn_mail) and "(computer)" in text_of(turn_mail)
    # Ana is back: her next turn waits for her, with a deadline, and no computer moves.
    assert client.post(f"{ana}/back").status_code == 303
    play_turn(client, leo)
    clock.advance(seconds=10)
    assert computer_moves(app) == 0
    assert seat_row(app, 1, 0).deadline is not None and not seat_row(app, 1, 0).absent
    play_turn(client, ana)
    assert [m.source for m in moves(app)][-1] == "web"


def test_the_creator_must_be_a_person_and_levels_are_checked(client: Any, app: Any) -> None:
    form = {"game": "colour-bazaar", "name_0": ANA[0], "email_0": ANA[1]}
    bad_level = client.post("/games", data={**form, "computer_1": "grandmaster"})
    assert bad_level.status_code == 400 and b"Choose a computer level" in bad_level.data
    bad_takeover = client.post("/games", data={**form, "computer_1": "casual", "takeover": "x"})
    assert bad_takeover.status_code == 400
    # Nobody can pose as a computer player by its address.
    posing = {**form, "name_1": "X", "email_1": "casual@computer.invalid"}
    assert client.post("/games", data=posing).status_code == 400
    assert state_of_none(app)


def state_of_none(app: Any) -> bool:
    """No game was stored."""
    from pbem.models import Game
    from pbem.storage.db import read_session

    with read_session(app.extensions["pbem"]["engine"]) as session:
        return session.get(Game, 1) is None


def test_the_cli_seats_computer_players(app: Any, runner: Any, smtpd: Any) -> None:
    result = runner.invoke(
        args=["new-game", "--player", "Ana <ana@example.org>", "--computer", "strong"]
    )
    assert result.exit_code == 0, result.output
    assert state_of(app).status == "active"
    assert seat_row(app, 1, 1).computer == "strong"
    assert state_of(app).takeover == "casual"
