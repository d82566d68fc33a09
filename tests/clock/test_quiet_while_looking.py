"""Quiet while you look (issue 31): a player whose seat page is open gets the page's live
update, not a "your move" mail, when a computer or another player makes them due; the mail
goes a few minutes later unless they move first, and their move cancels it. Mails are
counted at the test SMTP server."""

from __future__ import annotations

import logging
import re
import threading
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import pytest
from sqlmodel import col, select

from pbem import play
from pbem.clock.scheduler import computer_moves
from pbem.mailout.claims import LEASE, claim_next
from pbem.models import Outbox, Seat
from pbem.players.presence import SEEN_EVERY
from pbem.storage.db import read_session, write_session
from tests.clock.helpers import new_game
from tests.web.helpers import deliver, headline, link_in, play_turn, seat_row, state_of

ANA, LEO = ("Ana", "ana@example.org"), ("Léo", "leo@example.org")
DELAY = timedelta(minutes=5)  # the default TURN_MAIL_DELAY


def url_path(url: str) -> str:
    """The path of a link."""
    return urlsplit(url).path


def turn_mails(smtpd: Any, email: str) -> int:
    """How many "your move" mails the SMTP server got for `email`."""
    return sum("your move" in headline(m) for m in smtpd.to(email))


def against_the_computer(client: Any, app: Any, smtpd: Any) -> str:
    """Ana against one computer, Ana first, made as `pbem new-game` makes it (her first
    "your move" mail goes, as it does to a player who is not looking); her link."""
    ext = app.extensions["pbem"]
    invitees = [play.Invitee(*ANA), play.Invitee("Casual", "", "en", "casual")]
    with write_session(ext["engine"]) as session:
        game = play.create_game(
            session, ext["site"], "colour-bazaar", invitees, {"first": 0}, clock_of(app)
        )
        seat = session.exec(select(Seat).where(Seat.game_id == game.id, Seat.seat == 0)).one()
        link = url_path(ext["site"].seat_url(seat))
    deliver(app)
    assert turn_mails(smtpd, ANA[1]) == 1 and link_in(smtpd.to(ANA[1])[-1]) == link
    return link


def clock_of(app: Any) -> Any:
    """The test's clock, now."""
    return app.config["CLOCK"]()


def play_with_the_page_open(client: Any, link: str) -> None:
    """A turn played on the page, whose script then looks at the game (its poll)."""
    play_turn(client, link)
    look(client, link)


def look(client: Any, link: str) -> dict[str, Any]:
    """The page's poll: how far the game has gone (and the seat marked as looking)."""
    answer = client.get(f"{link}/ply")
    assert answer.status_code == 200
    return dict(answer.get_json())


def computer_replies(app: Any, clock: Any) -> None:
    """The clock's computer sweep, once the computer's delay is over; one move made."""
    clock.advance(seconds=4)
    assert computer_moves(app) == 1


def pending_turn_mails(app: Any) -> list[Outbox]:
    """The "your move" rows of the outbox not yet sent."""
    with read_session(app.extensions["pbem"]["engine"]) as session:
        query = select(Outbox).where(Outbox.event == "your_turn", col(Outbox.sent_at).is_(None))
        return list(session.exec(query).all())


def test_a_player_looking_gets_no_mail_for_the_computers_reply_and_their_move_cancels_it(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    link = against_the_computer(client, app, smtpd)
    for _ in range(3):
        play_with_the_page_open(client, link)
        computer_replies(app, clock)
        deliver(app)
        assert turn_mails(smtpd, ANA[1]) == 1  # still only the first
        assert seat_row(app, 1, 0).held_mail
        (held,) = pending_turn_mails(app)
        assert held.next_attempt_at == clock() + DELAY
        # Her poll sees the reply within seconds; she moves before the delay is over.
        assert look(client, link)["ply"] == state_of(app).ply
        clock.advance(minutes=1)
    play_turn(client, link)
    assert pending_turn_mails(app) == [] and not seat_row(app, 1, 0).held_mail
    clock.advance(minutes=30)
    deliver(app)
    assert turn_mails(smtpd, ANA[1]) == 1  # none of the held mails ever went


def test_the_held_mail_goes_after_the_delay_when_the_player_does_not_move(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    link = against_the_computer(client, app, smtpd)
    play_with_the_page_open(client, link)
    computer_replies(app, clock)
    clock.advance(seconds=DELAY.total_seconds() - 1)
    deliver(app)
    assert turn_mails(smtpd, ANA[1]) == 1  # not a second early
    clock.advance(seconds=1)
    deliver(app)
    assert turn_mails(smtpd, ANA[1]) == 2
    mail = smtpd.to(ANA[1])[-1]
    assert "your move" in headline(mail) and link_in(mail) == link
    # Moving now cancels nothing that was sent, and the next reply is mailed as usual.
    clock.advance(minutes=2)  # her page closed long ago (no poll since)
    play_turn(client, link)  # from the mail's link, the page's script not run
    clock.advance(minutes=2)
    computer_replies(app, clock)
    deliver(app)
    assert turn_mails(smtpd, ANA[1]) == 3


def test_leaving_the_page_sends_the_mail_held_while_it_was_open(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    link = against_the_computer(client, app, smtpd)
    play_with_the_page_open(client, link)
    computer_replies(app, clock)
    deliver(app)
    assert turn_mails(smtpd, ANA[1]) == 1  # held: her page is open
    clock.advance(seconds=5)
    assert client.post(f"{link}/away").status_code == 204  # she closes it without moving
    deliver(app)
    assert turn_mails(smtpd, ANA[1]) == 2  # at once, not at the end of the delay
    clock.advance(seconds=DELAY.total_seconds())
    deliver(app)
    assert turn_mails(smtpd, ANA[1]) == 2  # and once


def test_a_player_not_looking_is_mailed_at_once(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    link = against_the_computer(client, app, smtpd)
    play_with_the_page_open(client, link)
    clock.advance(seconds=61)  # a minute without a look: the page is closed
    computer_replies(app, clock)
    deliver(app)
    assert turn_mails(smtpd, ANA[1]) == 2
    assert not seat_row(app, 1, 0).held_mail
    # A page that says it is hidden or left stops the holding at once.
    play_with_the_page_open(client, link)
    assert client.post(f"{link}/away").status_code == 204
    assert seat_row(app, 1, 0).seen_at is None
    computer_replies(app, clock)
    deliver(app)
    assert turn_mails(smtpd, ANA[1]) == 3
    # A page without JavaScript (no poll) is not looking: the page's load records nothing.
    play_turn(client, link)
    assert seat_row(app, 1, 0).seen_at is None
    computer_replies(app, clock)
    deliver(app)
    assert turn_mails(smtpd, ANA[1]) == 4


def test_another_players_move_is_quiet_for_a_player_looking_also_through_a_planned_move(
    client: Any, app: Any, smtpd: Any, clock: Any, caplog: Any
) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO], **{"opt_colour-bazaar_first": "0"})
    ana, leo = links[ANA[1]], links[LEO[1]]
    look(client, leo)  # Léo's page is open on the table
    caplog.set_level(logging.INFO, logger="pbem.moves")
    play_turn(client, ana)  # a web move: its writes are planned before the lock
    deliver(app)
    assert turn_mails(smtpd, LEO[1]) == 0
    assert seat_row(app, 1, 1).held_mail
    clock.advance(seconds=30)
    look(client, ana)  # Ana's page too, after her move
    play_turn(client, leo)  # also planned: the plan deletes his held mail
    assert [row.seat for row in pending_turn_mails(app)] == [0]  # Ana's, held
    assert not seat_row(app, 1, 1).held_mail and seat_row(app, 1, 0).held_mail
    assert "planned again" not in caplog.text  # both moves were written as planned
    deliver(app)
    assert turn_mails(smtpd, ANA[1]) == 1  # her first, at the start
    clock.advance(minutes=10)  # Ana does not move: her mail goes; Léo's never does
    deliver(app)
    assert (turn_mails(smtpd, ANA[1]), turn_mails(smtpd, LEO[1])) == (2, 0)


def test_the_sender_never_sends_a_held_mail_early_even_twice_at_once(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    link = against_the_computer(client, app, smtpd)
    play_with_the_page_open(client, link)
    computer_replies(app, clock)
    (held,) = pending_turn_mails(app)
    engine = app.extensions["pbem"]["engine"]
    assert unsent(app) == [held.id]  # the only mail waiting
    # A sender that reads it as due (a stale read, a fast clock) still cannot claim it: the
    # claim checks the time again as it takes the row.
    assert claim_next(engine, held.next_attempt_at, clock(), LEASE) is None
    assert claim_next(engine, clock(), clock(), LEASE) is None
    (still,) = pending_turn_mails(app)
    assert still.claimed_until is None and still.next_attempt_at == held.next_attempt_at
    # Two senders at once, a second before its time: nothing; after it: it goes once.
    clock.advance(seconds=DELAY.total_seconds() - 1)
    two_senders(app)
    assert turn_mails(smtpd, ANA[1]) == 1
    clock.advance(seconds=1)
    two_senders(app)
    assert turn_mails(smtpd, ANA[1]) == 2


def unsent(app: Any) -> list[int]:
    """The ids of the outbox rows not yet sent."""
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return list(session.exec(select(Outbox.id).where(col(Outbox.sent_at).is_(None))))


def two_senders(app: Any) -> None:
    """Two senders drain the outbox at the same time, as two clock processes would."""
    runs = [threading.Thread(target=deliver, args=(app,)) for _ in range(2)]
    for run in runs:
        run.start()
    for run in runs:
        run.join()


@pytest.mark.parametrize("cancelled", [True, False])
def test_two_senders_after_the_delay_never_send_a_cancelled_mail(
    client: Any, app: Any, smtpd: Any, clock: Any, cancelled: bool
) -> None:
    link = against_the_computer(client, app, smtpd)
    play_with_the_page_open(client, link)
    computer_replies(app, clock)
    if cancelled:
        play_turn(client, link)
    clock.advance(minutes=6)
    two_senders(app)
    assert turn_mails(smtpd, ANA[1]) == (1 if cancelled else 2)


def test_the_poll_marks_the_seat_seen_at_most_every_20_s_and_a_spectator_not_at_all(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    link = against_the_computer(client, app, smtpd)
    watch = url_path(str(re.search(r"http://pbem\.test/w/[\w.\-]+", client.get(link).text)[0]))
    assert seat_row(app, 1, 0).seen_at is None  # the page alone records nothing
    started = {"ply": 0, "status": "active", "version": 1}  # raised once, by the start
    assert client.get(f"{watch}/ply").get_json() == started
    assert seat_row(app, 1, 0).seen_at is None  # a spectator is nobody's seat
    assert look(client, link) == started
    first = seat_row(app, 1, 0).seen_at
    assert first == clock()
    clock.advance(seconds=SEEN_EVERY.total_seconds() - 1)
    client.get(f"{link}/ply")
    assert seat_row(app, 1, 0).seen_at == first  # no write: a poll is a read
    clock.advance(seconds=1)
    client.get(f"{link}/ply")
    assert seat_row(app, 1, 0).seen_at == clock()
    # A wrong link is refused, and marks nothing.
    assert client.get(f"{link}x/ply").status_code == 404
    assert client.get(f"{watch}x/ply").status_code == 404
