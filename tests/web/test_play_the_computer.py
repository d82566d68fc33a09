"""Playing the computer (issue 31): a game whose other seats are all computers opens its
creator's seat page at once, and mails them no invitation nor start."""

from __future__ import annotations

from typing import Any

from pbem.clock.scheduler import computer_moves
from tests.web.helpers import ANA, computer_form, deliver, headline, link_in, state_of


def test_the_creator_lands_on_their_seat_and_gets_no_mail(
    client: Any, app: Any, smtpd: Any
) -> None:
    made = client.post("/games", data=computer_form("0"))
    assert made.status_code == 303
    seat = made.headers["Location"]
    assert seat.startswith("/p/")
    page = client.get(seat).get_data(as_text=True)
    assert "Your move" in page and "Check your move" not in page
    assert state_of(app).status == "active"
    deliver(app)
    assert smtpd.to(ANA[1]) == []  # no "your move", no invitation: the page is open


def test_when_a_computer_plays_first_the_next_turn_mails_as_usual(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    seat = client.post("/games", data=computer_form("1")).headers["Location"]
    assert "will move in a moment" in client.get(seat).get_data(as_text=True)
    deliver(app)
    assert smtpd.to(ANA[1]) == []  # no "the game has started" mail either
    for _ in range(2):  # seat 1, then seat 2: then it is Ana's move
        clock.advance(seconds=4)
        assert computer_moves(app) == 1
    deliver(app)
    turn = smtpd.to(ANA[1])
    assert len(turn) == 1 and "your move" in headline(turn[0]) and link_in(turn[0]) == seat


def test_only_the_form_that_made_it_opens_the_seat(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    page = client.get("/").get_data(as_text=True)
    token = page.split('name="csrf" value="')[1].split('"')[0]
    form = {**computer_form("0"), "csrf": token}
    seat = client.post("/games", data=form, raw=True).headers["Location"]
    assert seat.startswith("/p/")
    # A double tap: the same form again, at once, lands on the same seat and makes nothing.
    again = client.post("/games", data=form, raw=True)
    assert again.headers["Location"] == seat and state_of(app).id == 1
    # The same form long after: the page of what was done, which names no seat link.
    clock.advance(minutes=11)
    late = client.post("/games", data=form, raw=True).headers["Location"]
    assert late.startswith("/games/created/")
    shown = client.get(late).get_data(as_text=True)
    assert seat not in shown and "has started" in shown and "Invitations sent" not in shown


def test_a_game_with_friends_still_sends_invitations(client: Any, app: Any, smtpd: Any) -> None:
    form = {**computer_form("0"), "name_2": "Léo", "email_2": "leo@example.org", "computer_2": ""}
    where = client.post("/games", data=form).headers["Location"]
    assert where.startswith("/games/created/")
    deliver(app)
    assert len(smtpd.to(ANA[1])) == 1 and len(smtpd.to("leo@example.org")) == 1
