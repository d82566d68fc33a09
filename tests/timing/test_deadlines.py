"""Clocks that bank time: a time bank running out, Fischer increments and their cap,
reminders that follow the time a turn allows, the bank shown to everyone, old games as before."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from pbem.timing.deadlines import plan
from tests.clock.helpers import moves, new_game, run_sweep
from tests.web.helpers import deliver, play_turn, seat_row, state_of, text_of

ANA, LEO = ("Ana", "ana@example.org"), ("Léo", "leo@example.org")
HOUR = timedelta(hours=1)


def two_players(client: Any, app: Any, smtpd: Any, **form: str) -> tuple[str, str]:
    """A game where Ana moves first; Ana's and Léo's links."""
    links = new_game(client, app, smtpd, [ANA, LEO], **{"opt_colour-bazaar_first": "0", **form})
    return links[ANA[1]], links[LEO[1]]


def left_for(app: Any, seat: int, clock: Any) -> timedelta:
    """How long the seat has until its deadline, at the test clock's time."""
    deadline = seat_row(app, 1, seat).deadline
    assert deadline is not None
    return deadline - clock()


def test_a_bank_fills_with_unused_time_then_runs_out_to_a_timeout(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    ana, leo = two_players(
        client, app, smtpd, days_per_move="1", clock="bank", clock_cap="2", clock_add="5"
    )
    assert state_of(app).clock_add is None  # a bank adds nothing after a move
    assert left_for(app, 0, clock) == 24 * HOUR  # an empty bank: one day
    clock.advance(hours=2)
    play_turn(client, ana)  # 22 hours unused go to the bank
    assert seat_row(app, 1, 0).banked == 22 * 3600
    page = client.get(leo).get_data(as_text=True)
    assert "Ana has 22 hours in the bank." in page and "Léo has nothing in the bank." in page
    play_turn(client, leo)
    assert left_for(app, 0, clock) == 46 * HOUR  # the day of the move and the bank
    clock.advance(hours=40)  # 16 hours more than the day: the bank pays them
    play_turn(client, ana)
    assert seat_row(app, 1, 0).banked == 6 * 3600
    play_turn(client, leo)
    assert left_for(app, 0, clock) == 30 * HOUR
    clock.advance(hours=29, minutes=59)
    run_sweep(app)
    assert [m.source for m in moves(app)] == ["web"] * 4
    clock.advance(minutes=1)
    assert run_sweep(app)["timeouts"] == 1
    assert moves(app)[-1].source == "timeout"
    assert seat_row(app, 1, 0).banked == 0  # all spent
    play_turn(client, leo)
    assert left_for(app, 0, clock) == 24 * HOUR


def test_a_bank_keeps_no_more_than_its_cap(client: Any, app: Any, smtpd: Any, clock: Any) -> None:
    ana, leo = two_players(client, app, smtpd, days_per_move="3", clock="bank", clock_cap="1")
    play_turn(client, ana)  # three days unused, one kept
    assert seat_row(app, 1, 0).banked == 24 * 3600
    play_turn(client, leo)
    assert left_for(app, 0, clock) == 4 * 24 * HOUR


def test_fischer_adds_time_after_each_move_up_to_its_cap(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    ana, leo = two_players(
        client, app, smtpd, days_per_move="2", clock="fischer", clock_add="1", clock_cap="3"
    )
    assert left_for(app, 0, clock) == 48 * HOUR
    clock.advance(hours=30)
    play_turn(client, ana)  # 18 hours left, and a day more
    assert seat_row(app, 1, 0).banked == 42 * 3600
    page = client.get(leo).get_data(as_text=True)
    assert "Ana has 42 hours on their clock." in page and "Léo has 2 days on their clock." in page
    play_turn(client, leo)
    assert left_for(app, 0, clock) == 42 * HOUR
    # The reminders of this turn: 24 hours in, and the warning at 80 % of its 42 hours.
    game, ana_seat = state_of(app), seat_row(app, 1, 0)
    assert [(r.at - clock(), r.warning) for r in plan(game, ana_seat)] == [
        (24 * HOUR, False),
        (timedelta(hours=33, minutes=36), True),
    ]
    play_turn(client, ana)
    assert seat_row(app, 1, 0).banked == 66 * 3600
    play_turn(client, leo)
    play_turn(client, ana)  # 66 hours and a day: more than the cap of three days
    assert seat_row(app, 1, 0).banked == 72 * 3600
    play_turn(client, leo)
    assert left_for(app, 0, clock) == 72 * HOUR


def test_reminders_follow_the_time_this_turn_allows(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    ana, leo = two_players(
        client, app, smtpd, days_per_move="1", clock="bank", clock_cap="5", reminders="50%"
    )
    start = clock()
    assert seat_row(app, 1, 0).next_reminder_at == start + 12 * HOUR
    play_turn(client, ana)
    play_turn(client, leo)
    # A day and a day in the bank: the warning falls halfway through two days.
    assert seat_row(app, 1, 0).next_reminder_at == start + 24 * HOUR
    clock.advance(hours=24)
    run_sweep(app)
    deliver(app)
    body = text_of(smtpd.to(ANA[1])[-1])
    assert "In the banks: Ana: 24 hours, Léo: 24 hours." in body


def test_a_game_without_the_option_counts_days_per_move_as_before(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    ana, leo = two_players(client, app, smtpd)
    game = state_of(app)
    assert (game.clock, game.clock_add, game.clock_cap, game.days_off) == ("move", None, None, [])
    clock.advance(hours=5)
    play_turn(client, ana)
    assert seat_row(app, 1, 0).banked is None
    play_turn(client, leo)
    assert left_for(app, 0, clock) == 72 * HOUR
    assert "in the bank" not in client.get(leo).get_data(as_text=True)


def test_the_form_refuses_clocks_that_cannot_run(client: Any) -> None:
    base = {"game": "colour-bazaar", "name_0": "Ana", "email_0": "ana@example.org",
            "name_1": "Léo", "email_1": "leo@example.org"}  # fmt: skip
    cases = [
        ({"clock": "sundial"}, "Choose a clock"),
        ({"clock": "bank", "days_per_move": "none"}, "needs days per move"),
        ({"clock": "fischer", "days_per_move": "5", "clock_cap": "3"}, "at least its days"),
        ({"clock": "bank", "clock_cap": "61"}, "from 1 to 60"),
        ({"clock": "fischer", "clock_add": "0"}, "from 1 to 7 days added"),
        ({f"off_{day}": "1" for day in range(7)}, "at least one weekday"),
    ]
    for extra, message in cases:
        response = client.post("/games", data={**base, **extra})
        assert response.status_code == 400, message
        assert message in response.get_data(as_text=True), message


def test_after_a_timeout_a_fischer_clock_holds_the_days_added(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    ana, leo = two_players(
        client, app, smtpd, days_per_move="2", clock="fischer", clock_add="1", clock_cap="4"
    )
    clock.advance(days=2)
    assert run_sweep(app)["timeouts"] == 1
    assert seat_row(app, 1, 0).banked == 24 * 3600  # nothing left, and the day added
    play_turn(client, leo)
    assert left_for(app, 0, clock) == 24 * HOUR
