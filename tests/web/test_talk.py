"""Table talk: public and private messages, on the pages and in the next mail, never alone."""

from __future__ import annotations

from typing import Any

from sqlmodel import func, select

from pbem.models import Game, Outbox
from pbem.storage.db import read_session
from tests.web.helpers import (
    PLAYERS,
    deliver,
    headline,
    link_in,
    play_turn,
    start_game,
    text_of,
)

ANA, LEO, ZOE = (email for _, email in PLAYERS)


def outbox_size(app: Any) -> int:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return session.exec(select(func.count()).select_from(Outbox)).one()


def turn(app: Any) -> int:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return session.get(Game, 1).state["turn"]


def test_public_and_private_messages(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    seat_links = [links[ANA], links[LEO], links[ZOE]]
    watch = client.get(links[ANA]).get_data(as_text=True).split('href="http://pbem.test')[-1]
    watch = watch.split('"')[0]
    before = outbox_size(app)
    assert (
        client.post(f"{links[ANA]}/talk", data={"text": "Good luck, all!", "to": "all"}).status_code
        == 303
    )
    assert (
        client.post(
            f"{links[ANA]}/talk", data={"text": "Let us keep the Moons low.", "to": "1"}
        ).status_code
        == 303
    )
    assert outbox_size(app) == before  # no mail per message
    for link in seat_links + [watch]:
        assert "Good luck, all!" in client.get(link).get_data(as_text=True)
    for link, sees in ((links[ANA], True), (links[LEO], True), (links[ZOE], False), (watch, False)):
        assert ("Let us keep the Moons low." in client.get(link).get_data(as_text=True)) == sees
    # Play on until every player has had a mail: each gets what they may read, once.
    smtpd.clear()
    for _ in range(6):
        play_turn(client, seat_links[turn(app)])
        deliver(app)
    for email in (LEO, ZOE):
        bodies = [text_of(m) for m in smtpd.to(email) if "your move" in headline(m)]
        assert sum("Good luck, all!" in body for body in bodies) == 1
    leo = [text_of(m) for m in smtpd.to(LEO)]
    assert sum("Ana (to you only): Let us keep the Moons low." in body for body in leo) == 1
    assert not any("Moons low" in text_of(m) for m in smtpd.to(ZOE))
    assert not any("Good luck" in text_of(m) for m in smtpd.to(ANA))  # not her own words


def test_bad_messages_are_refused(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    cases = [
        ({"text": "   "}, "Write something first"),
        ({"text": "x" * 1001}, "at most 1000 characters"),
        ({"text": "hi", "to": "0"}, "one of the other players"),
        ({"text": "hi", "to": "7"}, "one of the other players"),
        ({"text": "hi", "to": "someone"}, "one of the other players"),
    ]
    for data, message in cases:
        response = client.post(f"{links[ANA]}/talk", data=data)
        assert response.status_code == 400 and message in response.get_data(as_text=True)
    assert "Nothing said yet." in client.get(links[LEO]).get_data(as_text=True)
    assert link_in(smtpd.to(LEO)[0]) == links[LEO]
