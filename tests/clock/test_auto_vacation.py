"""Automatic vacation: a missed deadline takes vacation days while the allowance lasts,
with a mail that says so; then timeouts come as usual."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlmodel import select

from pbem.models import Player, Vacation
from pbem.storage.db import read_session, write_session
from tests.clock.helpers import moves, new_game, run_sweep, subjects
from tests.web.helpers import api, deliver, seat_row, text_of

ANA, LEO = ("Ana", "ana@example.org"), ("Léo", "leo@example.org")


def test_vacation_days_are_taken_instead_of_timeouts_until_none_are_left(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    links = new_game(
        client, app, smtpd, [ANA, LEO], **{"opt_colour-bazaar_first": "0", "days_per_move": "1"}
    )
    ana = links[ANA[1]]
    saved = client.post(
        f"{ana}/settings", data={"lang": "en", "tz": "UTC", "notify": "every", "auto_vacation": "1"}
    )
    assert saved.status_code == 303
    assert 'name="auto_vacation" value="1" checked' in client.get(f"{ana}/settings").get_data(
        as_text=True
    )
    engine = app.extensions["pbem"]["engine"]
    with write_session(engine) as session:
        player = session.get(Player, seat_row(app, 1, 0).player_id)
        assert player is not None
        player.vacation_days = 2
        session.add(player)
    start = clock()
    for left in (1, 0):
        clock.advance(days=1)
        swept = run_sweep(app)
        # The sweep's log line counts a vacation taken, not a timeout (issue 48).
        assert (swept["timeouts"], swept["auto_vacations"]) == (0, 1)
        deliver(app)
        assert moves(app) == []  # no timeout move
        assert (
            subjects(smtpd, ANA[1])[-1]
            == "pbem: a deadline passed, 1 day of your vacation was used"
        )
        body = text_of(smtpd.to(ANA[1])[-1])
        assert "instead of a timeout, 1 day of your vacation was used" in body
        assert f"Days of vacation left this year: {left}." in body
        assert seat_row(app, 1, 0).deadline == clock() + timedelta(days=1)
    with read_session(engine) as session:
        assert len(session.exec(select(Vacation)).all()) == 2
    page = client.get(links[LEO[1]]).get_data(as_text=True)
    assert "Ana is away until" in page  # the others see the vacation the server took
    clock.advance(days=1)
    assert run_sweep(app)["timeouts"] == 1
    deliver(app)
    assert [m.source for m in moves(app)] == ["timeout"]  # none left: the usual timeout
    assert "your time ran out" in text_of(smtpd.to(ANA[1])[-1]).lower()
    assert clock() - start == timedelta(days=3)


def test_without_the_setting_a_deadline_is_a_timeout(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    new_game(
        client, app, smtpd, [ANA, LEO], **{"opt_colour-bazaar_first": "0", "days_per_move": "1"}
    )
    clock.advance(days=1)
    assert run_sweep(app)["timeouts"] == 1
    assert [m.source for m in moves(app)] == ["timeout"]


def test_the_api_sets_automatic_vacation_and_shows_the_clocks(
    client: Any, app: Any, smtpd: Any
) -> None:
    links = new_game(
        client,
        app,
        smtpd,
        [ANA, LEO],
        **{"days_per_move": "2", "clock": "fischer", "clock_add": "1", "clock_cap": "4"},
    )
    path = api(links[ANA[1]])
    answer = client.post(f"{path}/settings", json={"auto_vacation": True}, raw=True)
    assert (answer.status_code, answer.get_json()) == (200, {"auto_vacation": True})
    with read_session(app.extensions["pbem"]["engine"]) as session:
        player = session.get(Player, seat_row(app, 1, 0).player_id)
        assert player is not None and player.auto_vacation
    assert client.post(f"{path}/settings", json={}, raw=True).get_json() == {"auto_vacation": True}
    refused = client.post(f"{path}/settings", json={"auto_vacation": "yes"}, raw=True)
    assert refused.status_code == 400
    game = client.get(path).get_json()["game"]
    assert (game["clock"], game["clock_add"], game["clock_cap"], game["days_off"]) == (
        "fischer",
        1,
        4,
        [],
    )
    assert [seat["banked"] for seat in game["seats"]] == [2 * 86400, 2 * 86400]
