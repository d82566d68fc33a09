"""Fantasy Business standing orders through the one move path: a seat whose orders decide
its input at a step is not waited for (its move is logged "played by standing order" with
the move that came before it); set while the step waits on it, they play at once; a seat
that cancels them is waited for again."""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from pbem.games.fantasy_business import engine
from pbem.models import Outbox
from pbem.plans import seat_orders
from pbem.storage.db import read_session
from pbem.storage.store import seat_of
from tests.plans.orders_game import RULES, logged, move, order, started, state_of


def turn_mails_to(app: Any, game_id: int, seat: int) -> int:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        rows = session.exec(
            select(Outbox).where(
                Outbox.game_id == game_id, Outbox.event == "your_turn", Outbox.seat == seat
            )
        )
        return len(rows.all())


def test_orders_decide_a_seat_s_moves_and_it_is_not_waited_for(app: Any, clock: Any) -> None:
    game_id = started(app, clock, {"auction": "open"})
    # Pass on every lot above 0: every lot costs more, so seat 2 never bids.
    order(app, clock, game_id, 2, {"pass_above": 0, "base_prices": True})
    mails_before = turn_mails_to(app, game_id, 2)
    for _ in range(60):
        state = state_of(app, game_id)
        acting = engine.to_act(state)
        if not acting or state["round"] > 1:
            break
        assert 2 not in acting  # the table never waits on seat 2
        seat = acting[0]
        move(app, clock, game_id, seat, RULES.legal_moves(state, seat)[-1])
    by_order = [m for m in logged(app, game_id) if m.source == "standing"]
    assert by_order and all(m.seat == 2 for m in by_order)
    assert {m.move["action"] for m in by_order} == {"pass"}  # it owns nothing to price
    line_keys = [line["key"] for line in by_order[0].lines["0"]]
    assert "standing.log.played" in line_keys
    assert turn_mails_to(app, game_id, 2) == mails_before  # no mail for what orders decide


def test_orders_set_while_waited_on_play_at_once_and_cancelled_wait_again(
    app: Any, clock: Any
) -> None:
    game_id = started(app, clock, {"auction": "open"})
    state = state_of(app, game_id)
    while engine.step_name(state) != "open":
        seat = engine.to_act(state)[0]
        move(app, clock, game_id, seat, RULES.legal_moves(state, seat)[0])
        state = state_of(app, game_id)
    seat = engine.to_act(state)[0]
    assert order(app, clock, game_id, seat, {"pass_above": 0})
    assert logged(app, game_id)[-1].source == "standing"
    assert seat not in engine.to_act(state_of(app, game_id))
    # Cancelled: the next lot waits on the seat again.
    assert not order(app, clock, game_id, seat, {})
    with read_session(app.extensions["pbem"]["engine"]) as session:
        assert seat_orders.orders_of(seat_of(session, game_id, seat)) == {}
