"""Promise 2 and bad input: a move is applied once; stale, repeated, racing, malformed and
illegal posts change nothing and get a readable 4xx."""

from __future__ import annotations

import threading
from typing import Any

from sqlmodel import func, select

from pbem.models import Game, Move
from pbem.storage.db import read_session
from tests.web.helpers import (
    deliver,
    first_mover,
    form_with,
    headline,
    radio_values,
    snapshot,
)


def test_repeated_post_is_applied_once(client: Any, app: Any, smtpd: Any) -> None:
    link, data, _ = first_mover(client, app, smtpd)
    assert client.post(f"{link}/move", data=data).status_code == 303
    before = snapshot(app)
    again = client.post(f"{link}/move", data=data)
    assert again.status_code == 409
    assert "This turn was already played" in again.get_data(as_text=True)
    # The page shows the game as it stands now.
    assert "Waiting for" in again.get_data(as_text=True)
    assert snapshot(app) == before
    smtpd.clear()
    deliver(app)
    (mail,) = smtpd.messages
    assert headline(mail).startswith("your move, ") and "3 days left" in headline(mail)


def test_racing_posts_give_one_move_and_one_set_of_mails(client: Any, app: Any, smtpd: Any) -> None:
    link, data, _ = first_mover(client, app, smtpd)
    smtpd.clear()
    codes: list[int] = []
    barrier = threading.Barrier(6)

    def post() -> None:
        own = app.test_client()
        barrier.wait()
        codes.append(own.post(f"{link}/move", data=data).status_code)

    threads = [threading.Thread(target=post) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(codes) == [303, 409, 409, 409, 409, 409]
    with read_session(app.extensions["pbem"]["engine"]) as session:
        assert session.exec(select(func.count()).select_from(Move)).one() == 1
    deliver(app)
    assert len(smtpd.messages) == 1 and "your move" in headline(smtpd.messages[0])


def test_other_seat_cannot_move(client: Any, app: Any, smtpd: Any) -> None:
    link, data, links = first_mover(client, app, smtpd)
    other = next(x for x in links.values() if x != link)
    before = snapshot(app)
    del data["csrf"]  # the other seat's page would give its own token
    response = client.post(f"{other}/move", data=data)
    assert response.status_code == 409
    assert "It is not your turn" in response.get_data(as_text=True)
    assert snapshot(app) == before


def test_malformed_and_illegal_moves_are_refused_readably(
    client: Any, app: Any, smtpd: Any
) -> None:
    link, data, _ = first_mover(client, app, smtpd)
    before = snapshot(app)
    hand_card = data["play"].split("@")[0]
    cases = [
        ({"play": ""}, "Choose the card you play"),
        ({"chip": ""}, "Choose the chip you take"),
        ({"play": "castle@x"}, "not understood"),
        ({"play": "no-such-card@0"}, "There is no card called"),
        ({"play": f"{hand_card}@7"}, "Choose a market from 1 to 4"),
        ({"chip": "gold"}, "is not a suit"),
        ({"play": f"discard:{hand_card}"}, "You cannot discard while a card can be played"),
        ({"play": "excuse@0"}, "is not in your hand"),
    ]
    for change, message in cases:
        for confirm in ("", "1"):
            sent = {**data, **change, "confirm": confirm}
            response = client.post(f"{link}/move", data=sent)
            assert response.status_code == 400, (change, response.status_code)
            assert message in response.get_data(as_text=True), change
    assert snapshot(app) == before


def test_a_card_that_fits_no_market_is_refused(client: Any, app: Any, smtpd: Any) -> None:
    link, data, _ = first_mover(client, app, smtpd)
    page = client.get(link).get_data(as_text=True)
    form = form_with(page, "/move")
    offered = {v.split("@")[0] for v in radio_values(form, "play")}
    with read_session(app.extensions["pbem"]["engine"]) as session:
        state = session.get(Game, 1).state
    seat = state["turn"]
    from pbem.games.colour_bazaar import allowed_plays

    fits = set(allowed_plays(state, seat))
    bad = next(((c, m) for c in state["hands"][seat] for m in range(4) if (c, m) not in fits), None)
    assert offered == {c for c, _ in fits}
    if bad is not None:
        response = client.post(f"{link}/move", data={**data, "play": f"{bad[0]}@{bad[1]}"})
        assert response.status_code == 400
        assert "shares no suit with the top of market" in response.get_data(as_text=True)
