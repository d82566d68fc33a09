"""Undo with consent (pbem.takeback.consent): the mover asks, the next player allows or refuses; an
allowed take back puts the game back as it was, the pile shuffled (test_takeback_honest)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from sqlmodel import col, select

from pbem import moves
from pbem.clock.sweeps import sweep_timeouts
from pbem.errors import Gone, PlayError, Stale
from pbem.games import GAMES
from pbem.models import Move, Seat
from pbem.storage.db import read_session, write_session
from pbem.takeback import consent
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


def seats(app: Any, game_id: int) -> list[Seat]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        query = select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.seat))
        return list(session.exec(query))


def as_before(state: Any, before: Any) -> bool:
    """Whether a state is `before` again, but for the order of the pile (shuffled by the take
    back: test_takeback_honest)."""
    same_cards = sorted(state["deck"]) == sorted(before["deck"])
    return bool({**state, "deck": []} == {**before, "deck": []} and same_cards)


def logged(app: Any, game_id: int) -> list[Move]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        query = select(Move).where(Move.game_id == game_id).order_by(col(Move.ply))
        return list(session.exec(query))


def test_allowed_puts_the_game_back_before_the_move(app: Any, clock: Any) -> None:
    game_id = started(app, clock)
    move(app, game_id, clock)
    mover = to_act(app, game_id)
    before = game_of(app, game_id)
    played = move(app, game_id, clock, pick=1)
    after = game_of(app, game_id)
    assert after.state is not None and before.state is not None
    assert after.state["deck"] == before.state["deck"][:-1]  # the move drew the top card
    nxt = to_act(app, game_id)
    ask(app, game_id, mover, clock)
    assert [r.answer for r in requests(app, game_id)] == [""]
    (asked,) = mails(app, game_id, "takeback_asked")
    assert asked.seat == nxt and asked.extra["extra"]["who"] == PEOPLE[mover].name
    clock.advance(hours=5)
    answer(app, game_id, nxt, True, clock)
    back = game_of(app, game_id)
    # The state stored before the move: hand, markets, chips; the pile shuffled by the take
    # back (test_takeback_honest: the card the mover saw goes back to an unknown place).
    assert back.state is not None and back.ply == before.ply
    assert {**back.state, "deck": []} == {**before.state, "deck": []}
    assert sorted(back.state["deck"]) == sorted(before.state["deck"])
    assert back.takebacks == 1
    assert [m.ply for m in logged(app, game_id)] == list(range(before.ply))
    (record,) = requests(app, game_id)
    assert record.answer == "allowed" and record.move == played and record.ply == before.ply
    # The clock is the mover's again, started afresh; the next player's is stopped.
    table = seats(app, game_id)
    assert table[mover].turn_started_at == clock() and table[mover].deadline is not None
    assert table[nxt].deadline is None
    turn_mails = mails(app, game_id, "your_turn")
    assert turn_mails[-1].seat == mover
    # The next player's turn mail, not sent yet, no longer goes: the turn is not theirs.
    assert not [m for m in turn_mails if m.seat == nxt and m.sent_at is None]
    # The same move again draws the card now on top of the pile.
    move(app, game_id, clock, pick=1)
    again = game_of(app, game_id).state
    assert again is not None and again["deck"] == back.state["deck"][:-1]


def test_refused_changes_nothing_and_tells_the_mover(app: Any, clock: Any) -> None:
    game_id = started(app, clock)
    mover = to_act(app, game_id)
    move(app, game_id, clock)
    before = game_of(app, game_id)
    nxt = to_act(app, game_id)
    ask(app, game_id, mover, clock)
    answer(app, game_id, nxt, False, clock)
    after = game_of(app, game_id)
    assert after.state == before.state and after.ply == before.ply and after.takebacks == 0
    assert [r.answer for r in requests(app, game_id)] == ["refused"]
    (told,) = mails(app, game_id, "takeback_refused")
    assert told.seat == mover
    # Refused once: the mover may not be answered twice, nor ask again for this move.
    with pytest.raises(Gone):
        answer(app, game_id, nxt, True, clock)
    with pytest.raises(consent.Pending):
        ask(app, game_id, mover, clock)


def test_the_next_move_lapses_the_request(app: Any, clock: Any) -> None:
    game_id = started(app, clock)
    mover = to_act(app, game_id)
    move(app, game_id, clock)
    nxt = to_act(app, game_id)
    ask(app, game_id, mover, clock)
    move(app, game_id, clock)  # the next player moves instead of answering
    assert [r.answer for r in requests(app, game_id)] == ["lapsed"]
    with pytest.raises(Gone):
        answer(app, game_id, nxt, True, clock)
    with pytest.raises(Gone):
        ask(app, game_id, mover, clock)  # the move is no longer the last one


def test_one_request_at_a_time_and_only_the_mover_asks(app: Any, clock: Any) -> None:
    game_id = started(app, clock)
    mover = to_act(app, game_id)
    with pytest.raises(Gone):
        ask(app, game_id, mover, clock)  # no move yet
    move(app, game_id, clock)
    nxt = to_act(app, game_id)
    with pytest.raises(Gone):
        ask(app, game_id, nxt, clock)  # not their move
    ask(app, game_id, mover, clock)
    with pytest.raises(consent.Pending) as refused:
        ask(app, game_id, mover, clock)
    assert refused.value.status == 409
    with pytest.raises(Gone):
        answer(app, game_id, mover, True, clock)  # the mover cannot answer for the other


def test_three_players_the_next_seat_answers(app: Any, clock: Any) -> None:
    game_id = started(app, clock, players=3)
    mover = to_act(app, game_id)
    before = game_of(app, game_id)
    move(app, game_id, clock)
    nxt = to_act(app, game_id)
    third = ({0, 1, 2} - {mover, nxt}).pop()
    ask(app, game_id, mover, clock)
    with pytest.raises(Gone):
        answer(app, game_id, third, True, clock)
    answer(app, game_id, nxt, True, clock)
    assert as_before(game_of(app, game_id).state, before.state)


def test_timeouts_follow_the_clock_after_a_take_back(app: Any, clock: Any) -> None:
    game_id = started(app, clock)
    mover = to_act(app, game_id)
    move(app, game_id, clock)
    nxt = to_act(app, game_id)
    clock.advance(days=2)
    ask(app, game_id, mover, clock)
    answer(app, game_id, nxt, True, clock)
    deadline = seats(app, game_id)[mover].deadline
    assert deadline is not None and deadline > clock()
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    clock.now = deadline
    clock.advance(minutes=1)
    sweep_timeouts(engine, site, clock(), 100)
    (last,) = logged(app, game_id)
    assert last.seat == mover and last.source == "timeout"
    with pytest.raises(Gone):
        ask(app, game_id, mover, clock)  # a move the server made is nobody's to take back


def test_a_move_and_an_answer_race_one_wins_cleanly(app: Any, clock: Any) -> None:
    """The answer and the next player's move lock the game row: whichever comes second
    finds the ply moved on, and the game is one of the two outcomes, whole."""
    game_id = started(app, clock)
    mover = to_act(app, game_id)
    before = game_of(app, game_id)
    move(app, game_id, clock)
    after = game_of(app, game_id)
    nxt = to_act(app, game_id)
    ask(app, game_id, mover, clock)
    # The next player's move, made for the turn as they saw it before either went in.
    rules = GAMES["colour-bazaar"]
    state = after.state or {}
    chosen = rules.legal_moves(state, nxt)[0]
    token = rules.turn_token(state, nxt)
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]

    def their_move() -> None:
        with write_session(engine) as session:
            moves.submit_move(session, site, game_id, nxt, chosen, token, clock())

    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def run(work: Any) -> None:
        start.wait()
        try:
            work()
        except (PlayError, Stale) as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=run, args=(lambda: answer(app, game_id, nxt, True, clock),)),
        threading.Thread(target=run, args=(their_move,)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    game = game_of(app, game_id)
    (record,) = requests(app, game_id)
    ply = [m.ply for m in logged(app, game_id)]
    if record.answer == "allowed":
        # The take back came first: the move, made for the next player's turn, was stale.
        assert as_before(game.state, before.state)
        assert ply == list(range(before.ply)) and len(errors) == 1
    else:
        assert record.answer == "lapsed" and len(errors) == 1
        assert game.ply == after.ply + 1 and ply == list(range(after.ply + 1))


def test_after_an_allowed_take_back_the_next_players_old_move_is_stale(
    app: Any, clock: Any
) -> None:
    game_id = started(app, clock)
    mover = to_act(app, game_id)
    move(app, game_id, clock)
    after = game_of(app, game_id)
    nxt = to_act(app, game_id)
    rules = GAMES["colour-bazaar"]
    chosen = rules.legal_moves(after.state or {}, nxt)[0]
    token = rules.turn_token(after.state or {}, nxt)
    ask(app, game_id, mover, clock)
    answer(app, game_id, nxt, True, clock)
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    with pytest.raises(Stale), write_session(engine) as session:
        moves.submit_move(session, site, game_id, nxt, chosen, token, clock())
    assert game_of(app, game_id).ply == 0 and to_act(app, game_id) == mover
