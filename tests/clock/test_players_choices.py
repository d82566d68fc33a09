"""Vacations, daily digests, notification choices and one-click unsubscribe."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlmodel import select

from pbem.models import Player
from pbem.storage.db import read_session
from tests.clock.helpers import headlines, moves, new_game, run_sweep, subjects
from tests.web.helpers import deliver, headline, play_turn, seat_row, text_of

ANA, LEO, ZOE = ("Ana", "ana@example.org"), ("Léo", "leo@example.org"), ("Zoé", "zoe@example.org")
EVERY = {"lang": "en", "tz": "UTC", "notify": "every"}


def player(app: Any, email: str) -> Player:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return session.exec(select(Player).where(Player.email == email)).one()


def test_a_vacation_moves_deadlines_and_shows_to_others(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO], **{"opt_colour-bazaar_first": "0"})
    ana, leo = links[ANA[1]], links[LEO[1]]
    deadline = seat_row(app, 1, 0).deadline
    clock.advance(hours=1)
    assert client.post(f"{ana}/vacation", data={"days": "5"}).status_code == 303
    assert seat_row(app, 1, 0).deadline == deadline + timedelta(days=5)
    deliver(app)
    assert subjects(smtpd, ANA[1])[-1].startswith("pbem: your vacation is set, until")
    assert "Ana is away until Saturday 7 March 2026, 10:00 (UTC)." in client.get(leo).get_data(
        as_text=True
    )
    clock.advance(days=3)  # the old deadline has passed
    assert run_sweep(app)["timeouts"] == 0
    clock.advance(days=2)  # the vacation is over
    assert run_sweep(app)["vacations"] == 1
    assert run_sweep(app)["vacations"] == 0
    deliver(app)
    assert subjects(smtpd, ANA[1])[-1] == "pbem: welcome back, your clocks run again"
    clock.advance(days=3)
    assert run_sweep(app)["timeouts"] == 1


def test_a_turn_starting_during_a_vacation_waits_for_its_end(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO], **{"opt_colour-bazaar_first": "0"})
    assert client.post(f"{links[LEO[1]]}/vacation", data={"days": "4"}).status_code == 303
    play_turn(client, links[ANA[1]])
    assert seat_row(app, 1, 1).deadline == clock() + timedelta(days=4 + 3)


def test_the_vacation_allowance_is_kept(client: Any, app: Any, smtpd: Any, clock: Any) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO])
    ana = links[ANA[1]]
    assert client.post(f"{ana}/vacation", data={"days": "10"}).status_code == 303
    again = client.post(f"{ana}/vacation", data={"days": "2"})
    assert again.status_code == 400 and "already have a vacation" in again.get_data(as_text=True)
    clock.advance(days=2)
    assert client.post(f"{ana}/vacation/end").status_code == 303  # 8 unused days come back
    too_long = client.post(f"{ana}/vacation", data={"days": "13"})
    assert too_long.status_code == 400
    assert "more than the 12 days of vacation you have left" in too_long.get_data(as_text=True)
    assert client.post(f"{ana}/vacation", data={"days": "12"}).status_code == 303


def test_digest_lists_the_games_waiting_for_the_player(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    first = {"opt_colour-bazaar_first": "0"}
    second = {"opt_colour-bazaar_first": "1"}
    g1 = new_game(client, app, smtpd, [ANA, LEO], **first)  # Ana to move
    assert (
        client.post(
            f"{g1[ANA[1]]}/settings", data={**EVERY, "notify": "digest", "tz": "Europe/Paris"}
        ).status_code
        == 303
    )
    smtpd.clear()
    g2 = new_game(client, app, smtpd, [ANA, ZOE], **first)  # Ana to move
    g3 = new_game(client, app, smtpd, [ANA, LEO], **second)  # Léo to move
    assert not [s for s in headlines(smtpd, ANA[1]) if "your move" in s]  # no turn mails
    smtpd.clear()
    clock.now = clock.now.replace(hour=6, minute=59) + timedelta(days=1)  # 07:59 in Paris
    assert run_sweep(app)["digests"] == 0
    clock.advance(minutes=1)
    assert run_sweep(app)["digests"] == 1
    assert run_sweep(app)["digests"] == 0
    deliver(app)
    (digest,) = smtpd.to(ANA[1])
    assert str(digest["Subject"]) == "pbem: 2 games waiting for your move"
    body = text_of(digest)
    assert g1[ANA[1]] in body and g2[ANA[1]] in body and g3[ANA[1]] not in body
    assert digest["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    clock.advance(days=1)
    assert run_sweep(app)["digests"] == 1


def test_reminders_only_sends_no_turn_mail(client: Any, app: Any, smtpd: Any, clock: Any) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO], **{"opt_colour-bazaar_first": "0"})
    assert (
        client.post(f"{links[LEO[1]]}/settings", data={**EVERY, "notify": "reminders"}).status_code
        == 303
    )
    smtpd.clear()
    play_turn(client, links[ANA[1]])
    deliver(app)
    assert smtpd.to(LEO[1]) == []
    clock.advance(hours=24)
    run_sweep(app)
    deliver(app)
    assert "still your move" in headlines(smtpd, LEO[1])[-1]


def test_one_click_unsubscribe(client: Any, app: Any, smtpd: Any, clock: Any) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO], **{"opt_colour-bazaar_first": "0"})
    turn_mail = [m for m in smtpd.to(ANA[1]) if "your move" in headline(m)][-1]
    assert turn_mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    url = str(turn_mail["List-Unsubscribe"]).strip("<>").replace("http://pbem.test", "")
    assert url.startswith("/u/")
    # A GET (a mail scanner, a preview) only shows the page.
    assert "Stop them" in client.get(url).get_data(as_text=True)
    assert player(app, ANA[1]).notify == "every"
    # The mail client's one-click POST: no cookie, no form token, just this body.
    fresh = app.test_client()
    response = fresh.post(url, data={"List-Unsubscribe": "One-Click"}, raw=True)
    assert response.status_code == 200
    assert player(app, ANA[1]).notify == "none"
    smtpd.clear()
    play_turn(client, links[ANA[1]])
    play_turn(client, links[LEO[1]])
    clock.advance(hours=30)
    run_sweep(app)
    deliver(app)
    assert smtpd.to(ANA[1]) == []
    assert client.get(url[:-2] + "xx").status_code == 404
    assert client.post(url.replace("/u/", "/p/")).status_code in (404, 405)
    assert len(moves(app)) == 2  # the seat links still work for playing
