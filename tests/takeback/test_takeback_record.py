"""Take backs on the record and within limits: one request per seat and move (a refusal is
final), each allowed one in the API's log and `pbem log`, and webhooks hear of them."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import col, select

from pbem.models import Webhook, WebhookDelivery
from pbem.storage.db import read_session, write_session
from pbem.takeback import consent
from pbem.webhooks.events import render
from tests.takeback.helpers import (
    PEOPLE,
    answer,
    ask,
    game_of,
    mails,
    move,
    requests,
    started,
    to_act,
)
from tests.webhooks.helpers import add_hook


def test_a_refused_request_is_not_asked_again(app: Any, clock: Any) -> None:
    game_id = started(app, clock)
    mover = to_act(app, game_id)
    move(app, game_id, clock)
    nxt = to_act(app, game_id)
    ask(app, game_id, mover, clock)
    answer(app, game_id, nxt, False, clock)
    # Eight ask-and-refuse rounds were eight mails to the next player: now one is all.
    for _ in range(7):
        with pytest.raises(consent.Pending) as again:
            ask(app, game_id, mover, clock)
        assert again.value.key == "takeback.error.asked" and again.value.status == 409
    assert len(mails(app, game_id, "takeback_asked")) == 1
    assert [r.answer for r in requests(app, game_id)] == ["refused"]


def test_a_move_taken_back_and_played_again_is_not_taken_back_twice(app: Any, clock: Any) -> None:
    game_id = started(app, clock)
    mover = to_act(app, game_id)
    move(app, game_id, clock)
    nxt = to_act(app, game_id)
    ask(app, game_id, mover, clock)
    answer(app, game_id, nxt, True, clock)
    move(app, game_id, clock, pick=1)  # the mover plays the turn again
    with pytest.raises(consent.Pending):
        ask(app, game_id, mover, clock)
    # The next move is a new ply: its mover may ask once, as anyone.
    move(app, game_id, clock)
    ask(app, game_id, nxt, clock)


def test_the_page_offers_no_second_request(client: Any, app: Any, clock: Any) -> None:
    game_id = started(app, clock)
    mover = to_act(app, game_id)
    move(app, game_id, clock)
    nxt = to_act(app, game_id)
    names = [p.name for p in PEOPLE[:2]]
    with read_session(app.extensions["pbem"]["engine"]) as session:
        offer = consent.for_page(session, game_of(app, game_id), mover, names)
    assert offer["takeback_offer"] is True
    ask(app, game_id, mover, clock)
    answer(app, game_id, nxt, False, clock)
    with read_session(app.extensions["pbem"]["engine"]) as session:
        offer = consent.for_page(session, game_of(app, game_id), mover, names)
    assert offer["takeback_offer"] is False


def _taken_back_once(app: Any, clock: Any) -> tuple[int, int, int]:
    """A game whose first move was taken back and played again: its id, mover, next."""
    game_id = started(app, clock)
    mover = to_act(app, game_id)
    move(app, game_id, clock)
    nxt = to_act(app, game_id)
    ask(app, game_id, mover, clock)
    clock.advance(hours=2)
    answer(app, game_id, nxt, True, clock)
    move(app, game_id, clock, pick=1)
    return game_id, mover, nxt


def test_the_api_log_lists_each_move_taken_back(client: Any, app: Any, clock: Any) -> None:
    game_id, mover, nxt = _taken_back_once(app, clock)
    site = app.extensions["pbem"]["site"]
    token = site.watch_url(game_of(app, game_id)).rsplit("/", 1)[1]
    watch = client.get(f"/api/v1/watch/{token}").get_json()
    assert watch["taken_back"] == [
        {"ply": 0, "seat": mover, "agreed_by": nxt, "at": clock().isoformat()}
    ]
    # The move taken back stays unsaid: no card, no line of it.
    assert set(watch["taken_back"][0]) == {"ply", "seat", "agreed_by", "at"}


def test_pbem_log_tells_the_take_back_at_its_ply(runner: Any, app: Any, clock: Any) -> None:
    game_id, mover, nxt = _taken_back_once(app, clock)
    out = runner.invoke(args=["log", str(game_id)])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    said = f"[takeback] {PEOPLE[mover].name} took back a move ({PEOPLE[nxt].name} agreed)"
    assert said in lines[0] and lines[0].startswith("  1 ")
    assert "[web]" in lines[1] and lines[1].startswith("  1 ")


def test_webhooks_hear_of_asking_refusing_and_taking_back(app: Any, clock: Any) -> None:
    game_id = started(app, clock)
    add_hook(app, game_id, 0, "table", "https://chat.example.org/hook", "generic")
    mover = to_act(app, game_id)
    move(app, game_id, clock)
    nxt = to_act(app, game_id)
    ask(app, game_id, mover, clock)
    answer(app, game_id, nxt, False, clock)
    move(app, game_id, clock)
    ask(app, game_id, nxt, clock)
    answer(app, game_id, mover, True, clock)
    engine = app.extensions["pbem"]["engine"]
    with write_session(engine) as session:
        rows = list(session.exec(select(WebhookDelivery).order_by(col(WebhookDelivery.id))))
        hook = session.exec(select(Webhook)).one()
        said = [
            (row.event, row.facts["seat"], render(session, row, hook))
            for row in rows
            if row.event.startswith("take")
        ]
    names = [p.name for p in PEOPLE[:2]]
    assert [(event, seat) for event, seat, _ in said] == [
        ("takeback_asked", nxt),
        ("takeback_refused", mover),
        ("takeback_asked", mover),
        ("taken_back", nxt),
    ]
    texts = [text for _, _, text in said]
    assert f"{names[nxt]} is asked to let the last move be taken back" in texts[0]
    assert f"{names[mover]} may not take back their move" in texts[1]
    assert f"{names[nxt]} took back their move and plays it again" in texts[3]
