"""Fantasy Business standing orders through the one move path: a seat whose orders decide
its input at a step is not waited for (its move is logged "played by standing order" with
the move that came before it); set while the step waits on it, they play at once; a seat
that cancels them is waited for again."""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

from pbem import moves, play
from pbem.games import GAMES
from pbem.games.fantasy_business import engine
from pbem.models import Game, Move, Outbox
from pbem.plans import play_orders, seat_orders
from pbem.storage.db import read_session, write_session
from pbem.storage.store import seat_of

PEOPLE = [
    play.Invitee("Ana", "ana@example.org", "en"),
    play.Invitee("Léo", "leo@example.org", "fr"),
    play.Invitee("Zoé", "zoe@example.org", "en"),
]
RULES = GAMES["fantasy-business"]


def started(app: Any, clock: Any, options: dict[str, Any]) -> int:
    engine_, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    with write_session(engine_) as session:
        game = play.create_game(session, site, "fantasy-business", PEOPLE, options, clock(), seed=5)
        game_id = game.id
    assert game_id is not None
    with write_session(engine_) as session:
        for seat in (1, 2):
            play.join(session, site, game_id, seat, clock())
    return game_id


def state_of(app: Any, game_id: int) -> dict[str, Any]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.state is not None
        return game.state


def move(app: Any, clock: Any, game_id: int, seat: int, made: dict[str, Any]) -> None:
    engine_, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    token = RULES.turn_token(state_of(app, game_id), seat)
    with write_session(engine_) as session:
        moves.submit_move(session, site, game_id, seat, made, token, clock(), "web")


def order(app: Any, clock: Any, game_id: int, seat: int, orders: dict[str, Any]) -> bool:
    """Set the seat's orders as the page and the API do; True when a move was played."""
    engine_, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    with write_session(engine_) as session:
        seat_orders.set_orders(session, game_id, seat, orders)
    with write_session(engine_) as session:
        return play_orders.play_standing(session, site, game_id, seat, clock())


def logged(app: Any, game_id: int) -> list[Move]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        rows = session.exec(select(Move).where(Move.game_id == game_id).order_by(col(Move.ply)))
        return list(rows.all())


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
