"""A vacation over the API (issue 48): the same allowance, checks, clocks and mail as the
settings page, since both call pbem.players.account."""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from pbem.models import Outbox, Seat
from pbem.storage.db import read_session
from tests.web.helpers import start_game
from tests.web.test_api import acting, api


def deadlines(app: Any) -> list[Any]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return [s.deadline for s in session.exec(select(Seat).order_by(Seat.seat))]


def mails(app: Any, event: str) -> int:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return len(list(session.exec(select(Outbox).where(Outbox.event == event))))


def test_a_vacation_started_and_ended_over_the_api(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    seat = api(acting(client, links))
    before = [d for d in deadlines(app) if d is not None]
    started = client.post(f"{seat}/vacation", json={"days": 3}, raw=True)
    assert started.status_code == 200, started.get_json()
    body = started.get_json()
    assert body["away"] is True and body["days_left"] == 14 - 3
    after = [d for d in deadlines(app) if d is not None]
    assert [(b - a).days for a, b in zip(before, after, strict=True)] == [3]
    assert mails(app, "vacation_start") == 1  # told, as from the page

    again = client.post(f"{seat}/vacation", json={"days": 1}, raw=True)
    assert again.status_code == 400 and again.get_json()["error"] == "vacation"
    french = client.post(f"{seat}/vacation?lang=fr", json={"days": 1}, raw=True)
    assert french.get_json()["message"] != again.get_json()["message"]
    back = client.post(f"{seat}/vacation/end", raw=True)
    assert back.status_code == 200
    ended = back.get_json()
    assert ended["away"] is False and ended["days_left"] == 14  # the unused days return
    assert [d for d in deadlines(app) if d is not None] == before
    none_left = client.post(f"{seat}/vacation/end", raw=True)
    assert none_left.status_code == 400 and none_left.get_json()["error"] == "vacation"
    out_of_range = client.post(f"{seat}/vacation", json={"days": 0}, raw=True)
    assert out_of_range.status_code == 400 and out_of_range.get_json()["error"] == "bad_request"
