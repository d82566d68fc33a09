"""Reminders at the right times, once each; timeouts play the engine's move; absences."""

from __future__ import annotations

from typing import Any

from pbem.games import GAMES
from tests.clock.helpers import headlines, moves, new_game, run_sweep
from tests.web.helpers import deliver, headline, link_in, play_turn, seat_row, state_of, text_of

ANA, LEO = ("Ana", "ana@example.org"), ("Léo", "leo@example.org")


def two_players(client: Any, app: Any, smtpd: Any, **form: str) -> tuple[str, str]:
    """A game where Ana moves first; return Ana's and Léo's links."""
    links = new_game(client, app, smtpd, [ANA, LEO], **{"opt_colour-bazaar_first": "0", **form})
    return links[ANA[1]], links[LEO[1]]


def sweep_and_deliver(app: Any, smtpd: Any) -> list[str]:
    """Sweep, send, and return the first lines (previews) of the mail that arrived."""
    before = len(smtpd.messages)
    run_sweep(app)
    deliver(app)
    return [headline(m) for m in smtpd.messages[before:]]


def test_reminders_come_at_24h_and_80_percent_once_each(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    two_players(client, app, smtpd)  # 3 days per move: deadline Thursday 5 March 09:00 UTC
    clock.advance(hours=23, minutes=59)
    assert sweep_and_deliver(app, smtpd) == []
    clock.advance(minutes=1)
    (subject,) = sweep_and_deliver(app, smtpd)
    assert subject == "still your move, ana: 2 days left (until thu 5 mar, 09:00)"
    assert sweep_and_deliver(app, smtpd) == []
    clock.advance(hours=33, minutes=35)  # 57h35: not yet 80 % of 72 h
    assert sweep_and_deliver(app, smtpd) == []
    clock.advance(minutes=1)
    (subject,) = sweep_and_deliver(app, smtpd)
    assert subject == "only 14 hours left for your move, ana (until thu 5 mar, 09:00), urgent"
    body = text_of(smtpd.to(ANA[1])[-1])
    assert "Thursday 5 March 2026, 09:00 (UTC)" in body
    assert sweep_and_deliver(app, smtpd) == []
    assert headlines(smtpd, LEO[1])[-1].startswith("everyone has joined")  # Léo got none


def test_after_downtime_only_the_latest_reminder_goes_out(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    two_players(client, app, smtpd)
    clock.advance(hours=60)  # the clock was down through both reminder times
    (subject,) = sweep_and_deliver(app, smtpd)
    assert "left for your move" in subject
    assert sweep_and_deliver(app, smtpd) == []


def test_a_timeout_plays_the_engines_move_and_tells_everyone(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    two_players(client, app, smtpd)
    before = state_of(app).state
    expected = GAMES["colour-bazaar"].timeout_move(before, 0)
    clock.advance(hours=71, minutes=59)
    run_sweep(app)
    assert moves(app) == []
    clock.advance(minutes=1)
    assert run_sweep(app)["timeouts"] == 1
    (move,) = moves(app)
    assert (move.source, move.seat, move.move) == ("timeout", 0, expected)
    deliver(app)
    assert "your time ran out" in headlines(smtpd, ANA[1])[-1]
    to_leo = smtpd.to(LEO[1])[-1]
    assert "your move" in headline(to_leo)
    assert "(time ran out)" in text_of(to_leo)
    assert run_sweep(app)["timeouts"] == 0
    assert seat_row(app, 1, 0).timeouts_in_row == 1


def test_third_timeout_in_a_row_marks_the_seat_absent(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    # No computer takes the absent seat over here: its turns are timeout moves.
    ana, leo = two_players(client, app, smtpd, takeover="none")
    for round_ in range(3):
        clock.advance(days=3)
        assert run_sweep(app)["timeouts"] == 1
        deliver(app)
        if round_ < 2:
            assert not seat_row(app, 1, 0).absent
            play_turn(client, leo)
    assert seat_row(app, 1, 0).absent
    assert "you are marked absent" in headlines(smtpd, ANA[1])[-1]
    assert "ana let the time run out" in headlines(smtpd, LEO[1])[-1]
    assert f'action="{ana}/back"' in client.get(ana).get_data(as_text=True)
    # Léo moves; Ana's turn is played at once, with no time passing.
    play_turn(client, leo)
    assert run_sweep(app)["timeouts"] == 1
    assert [m.source for m in moves(app)][-1] == "timeout"
    assert state_of(app).state["turn"] == 1
    # Ana comes back: her next turn waits for her again.
    assert client.post(f"{ana}/back").status_code == 303
    play_turn(client, leo)
    assert run_sweep(app)["timeouts"] == 0
    assert seat_row(app, 1, 0).deadline is not None and not seat_row(app, 1, 0).absent


def test_no_time_limit_means_no_timeout(client: Any, app: Any, smtpd: Any, clock: Any) -> None:
    two_players(client, app, smtpd, days_per_move="none", reminders="24h")
    clock.advance(days=30)
    result = run_sweep(app)
    assert result["timeouts"] == 0 and result["reminders"] == 1
    assert run_sweep(app)["reminders"] == 0


def test_the_creator_adds_time(client: Any, app: Any, smtpd: Any, clock: Any) -> None:
    ana, leo = two_players(client, app, smtpd)
    deadline = seat_row(app, 1, 0).deadline
    assert client.post(f"{leo}/extend", data={"seat": "0", "days": "2"}).status_code == 400
    assert client.post(f"{ana}/extend", data={"seat": "0", "days": "2"}).status_code == 303
    assert (seat_row(app, 1, 0).deadline - deadline).days == 2
    assert client.post(f"{ana}/extend", data={"seat": "1", "days": "2"}).status_code == 400
    clock.advance(days=3, hours=1)
    assert run_sweep(app)["timeouts"] == 0


def test_deadlines_show_in_the_players_time_zone(client: Any, app: Any, smtpd: Any) -> None:
    ana, leo = two_players(client, app, smtpd)
    form = {"lang": "en", "tz": "Europe/Paris", "notify": "every"}
    assert client.post(f"{leo}/settings", data=form).status_code == 303
    page = client.get(leo).get_data(as_text=True)
    assert "Ana must move by Thursday 5 March 2026, 10:00 (Europe/Paris) (3 days left)." in page
    assert "Thursday 5 March 2026, 09:00 (UTC)" in client.get(ana).get_data(as_text=True)
    bad = client.post(f"{leo}/settings", data={**form, "tz": "Mars/Olympus"})
    assert bad.status_code == 400 and "Choose a time zone from the list" in bad.get_data(
        as_text=True
    )
    assert link_in(smtpd.to(LEO[1])[-1]) == leo
