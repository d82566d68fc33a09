"""Playing days: no clock runs on the game's days off, midnight to midnight in each
player's own time zone, across a change of daylight saving time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from pbem.models import Game, Player
from pbem.storage.db import write_session
from pbem.timing.clocks import advance, counted, retreat
from pbem.timing.deadlines import plan
from tests.clock.helpers import new_game, run_sweep
from tests.web.helpers import play_turn, seat_row, state_of

WEEKEND = [5, 6]
AUCKLAND, LOS_ANGELES = "Pacific/Auckland", "America/Los_Angeles"
DAY = timedelta(days=1)


def weekends_off() -> Game:
    return Game(slug="colour-bazaar", seed=1, watch_key="k", days_off=WEEKEND,
                created_at=datetime(2026, 3, 1, tzinfo=UTC),
                updated_at=datetime(2026, 3, 1, tzinfo=UTC))  # fmt: skip


def test_saturdays_differ_across_the_date_line() -> None:
    game = weekends_off()
    friday = datetime(2026, 3, 6, 18, 0, tzinfo=UTC)  # already Saturday 07:00 in Auckland
    # Auckland: nothing counts until Monday 00:00 local, Sunday 11:00 UTC.
    assert advance(game, AUCKLAND, friday, DAY) == datetime(2026, 3, 9, 11, 0, tzinfo=UTC)
    # Los Angeles: Friday 10:00 local, 14 hours of Friday count; the weekend holds the
    # change to summer time, so Monday starts at 07:00 UTC, not 08:00; 10 hours more.
    assert advance(game, LOS_ANGELES, friday, DAY) == datetime(2026, 3, 9, 17, 0, tzinfo=UTC)
    for zone in (AUCKLAND, LOS_ANGELES):
        deadline = advance(game, zone, friday, 3 * DAY)
        assert counted(game, zone, friday, deadline) == 3 * DAY
        assert retreat(game, zone, deadline, 3 * DAY) <= deadline - 3 * DAY
        assert counted(game, zone, retreat(game, zone, deadline, 3 * DAY), deadline) == 3 * DAY


def test_without_days_off_every_hour_counts() -> None:
    game = weekends_off()
    game.days_off = []
    friday = datetime(2026, 3, 6, 18, 0, tzinfo=UTC)
    assert advance(game, AUCKLAND, friday, DAY) == friday + DAY
    assert counted(game, AUCKLAND, friday, friday + 2 * DAY) == 2 * DAY


def test_a_game_with_weekends_off_stops_each_players_clock_on_their_own_weekend(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    links = new_game(
        client,
        app,
        smtpd,
        [("Ana", "ana@example.org"), ("Léo", "leo@example.org")],
        **{"opt_colour-bazaar_first": "0", "days_per_move": "5", "off_5": "1", "off_6": "1"},
    )
    assert state_of(app).days_off == WEEKEND
    # Monday 2 March 09:00 UTC, Ana in UTC: Monday to Friday give 4 days 15 hours, the
    # rest falls on the next Monday.
    assert seat_row(app, 1, 0).deadline == datetime(2026, 3, 9, 9, 0, tzinfo=UTC)
    with write_session(app.extensions["pbem"]["engine"]) as session:
        leo = session.get(Player, seat_row(app, 1, 1).player_id)
        assert leo is not None
        leo.tz = LOS_ANGELES
        session.add(leo)
    play_turn(client, links["ana@example.org"])
    # Léo's turn begins Monday 01:00 in Los Angeles: 4 days 23 hours to Saturday, then one
    # hour of Monday 9 March, which starts at 07:00 UTC after the change to summer time.
    assert seat_row(app, 1, 1).deadline == datetime(2026, 3, 9, 8, 0, tzinfo=UTC)
    page = client.get(links["leo@example.org"]).get_data(as_text=True)
    assert "no clock runs on Saturday and Sunday" in page


def test_reminders_wait_out_the_weekend(client: Any, app: Any, smtpd: Any, clock: Any) -> None:
    clock.advance(days=4, hours=3)  # Friday 6 March, 12:00 UTC
    new_game(
        client,
        app,
        smtpd,
        [("Ana", "ana@example.org"), ("Léo", "leo@example.org")],
        **{"opt_colour-bazaar_first": "0", "days_per_move": "3", "off_5": "1", "off_6": "1"},
    )
    ana = seat_row(app, 1, 0)
    # 12 hours of Friday count, then Monday and Tuesday, and half of Wednesday.
    assert ana.deadline == datetime(2026, 3, 11, 12, 0, tzinfo=UTC)
    game = state_of(app)
    assert [r.at for r in plan(game, ana)] == [
        datetime(2026, 3, 9, 12, 0, tzinfo=UTC),  # 24 hours of playing time: Monday noon
        datetime(2026, 3, 10, 21, 36, tzinfo=UTC),  # 80 % of three days
    ]
    clock.advance(days=2)  # Sunday noon: a day has passed, but not a day of playing time
    assert run_sweep(app)["reminders"] == 0
    clock.advance(days=1)
    assert run_sweep(app)["reminders"] == 1
