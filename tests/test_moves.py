"""One path for a move (pbem.moves): a move planned from rows read before the write lock
writes what one read under the lock writes; the plan is made without the database; a
plan made before a seat changed is made again under the lock."""

from __future__ import annotations

import logging
import random
from datetime import timedelta
from typing import Any

from sqlalchemy import event
from sqlmodel import col, select

from pbem import moves, play
from pbem.games import GAMES
from pbem.models import Game, Move, Outbox, Player, Seat
from pbem.players import account
from pbem.seats import leave
from pbem.storage.db import read_session, write_session
from pbem.storage.store import table_of
from pbem.webhooks.events import hooks_of_game

PEOPLE = [
    play.Invitee("Ana", "ana@example.org", "en"),
    play.Invitee("Léo", "leo@example.org", "fr"),
    play.Invitee("Zoé", "zoe@example.org", "en"),
    play.Invitee("Max", "max@example.org", "en"),
]
SEAT_FIELDS = (
    "deadline", "turn_started_at", "next_reminder_at", "reminders_sent", "computer_due_at",
    "told_ply", "told_talk", "timeouts_in_row", "absent", "left",
)  # fmt: skip


def _started(app: Any, slug: str, players: int, seed: int, clock: Any) -> int:
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    with write_session(engine) as session:
        game = play.create_game(session, site, slug, PEOPLE[:players], {}, clock(), seed=seed)
        game_id = game.id
    assert game_id is not None
    with write_session(engine) as session:
        for seat in range(1, players):
            play.join(session, site, game_id, seat, clock())
    return game_id


# Every column of a queued mail and of a logged move but those that name the row or its
# game (ids, the random Message-ID, the game's thread).
MAIL_FIELDS = [
    c.key
    for c in Outbox.__table__.columns
    if c.key not in ("id", "game_id", "message_id", "thread_id")
]  # type: ignore[attr-defined]  # noqa: E501
MOVE_FIELDS = [c.key for c in Move.__table__.columns if c.key not in ("id", "game_id")]  # type: ignore[attr-defined]  # noqa: E501


def _written(app: Any, game_id: int) -> tuple[list[Any], list[Any], list[Any]]:
    """The game's outbox rows, seats and moves, as what they say (no ids or keys)."""
    with read_session(app.extensions["pbem"]["engine"]) as session:
        mails = session.exec(
            select(Outbox).where(Outbox.game_id == game_id).order_by(col(Outbox.id))
        ).all()
        seats = session.exec(
            select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.seat))
        ).all()
        logged = session.exec(
            select(Move).where(Move.game_id == game_id).order_by(col(Move.ply))
        ).all()
        return (
            [(*(getattr(m, name) for name in MAIL_FIELDS), m.thread_id is None) for m in mails],
            [tuple(getattr(s, name) for name in SEAT_FIELDS) for s in seats],
            [tuple(getattr(m, name) for name in MOVE_FIELDS) for m in logged],
        )


def _read(app: Any, game_id: int, now: Any) -> moves.TableRead:
    """What the move POST reads before the lock: the game, its table, its webhooks."""
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None
        table = table_of(session, game_id, now)
        return moves.table_read(game, table, hooks_of_game(session, game_id))


def _planned(app: Any, game_id: int, seat: int, move: dict[str, Any], token: str, now: Any) -> bool:
    """The move as the move POST makes it: prepared and planned outside the lock."""
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    read = _read(app, game_id, now)
    prepared = moves.prepare_move(read.game, len(read.seats), seat, move, token, "web")
    plan = moves.plan_move(site, read, prepared, now)
    with write_session(engine) as session:
        return moves.write_move(session, site, prepared, plan, now)


def _ordinary(
    app: Any, game_id: int, seat: int, move: dict[str, Any], token: str, now: Any
) -> None:
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    with write_session(engine) as session:
        moves.submit_move(session, site, game_id, seat, move, token, now)


def test_a_move_read_before_the_lock_writes_what_one_read_under_it_writes(
    app: Any, clock: Any
) -> None:
    """Two Fantasy Business games from one seed, one played as the page plays (read, then
    planned, before the lock) and one as a reply by mail (submit_move: read under the
    lock): after every move the same mails are queued with the same facts
    (views of the simultaneous steps included) and the seats' clocks are equal. Léo is on
    vacation all along: the clocks of his turns start when he is back, on both paths."""
    rules = GAMES["fantasy-business"]
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    planned = _started(app, "fantasy-business", 4, 11, clock)
    ordinary = _started(app, "fantasy-business", 4, 11, clock)
    with write_session(engine) as session:
        leo = session.exec(select(Player).where(Player.email == "leo@example.org")).one()
        back = account.start_vacation(session, site, leo, 2, clock()).ends_at
    with read_session(engine) as session:
        game = session.get(Game, planned)
        assert game is not None and game.state is not None
        state = game.state
        limit = timedelta(days=game.days_per_move or 0)
    rng = random.Random(3)
    made = 0
    leo_deadlines = set()
    while rules.to_act(state) and made < 60:
        seat = rules.to_act(state)[0]
        move = rng.choice(rules.legal_moves(state, seat))
        token = rules.turn_token(state, seat)
        clock.advance(minutes=7)
        assert _planned(app, planned, seat, move, token, clock()), "the plan was dropped"
        _ordinary(app, ordinary, seat, move, token, clock())
        state = rules.apply(state, seat, move)
        made += 1
        assert _written(app, planned) == _written(app, ordinary), f"after move {made}"
        leo_deadlines.add(_written(app, planned)[1][1][0])
    assert back + limit in leo_deadlines  # a turn of Léo's began while he was away
    mails, _, _ = _written(app, planned)
    turns = [m for m in mails if m[0] == "your_turn"]
    assert made == 60 and len(turns) >= 30  # the script went far, with turn mails all along
    assert all("view" in m[4] for m in turns)  # Fantasy Business mails carry the seat's view


def test_a_move_is_planned_without_the_database(app: Any, clock: Any) -> None:
    """plan_move works from the rows read and runs no statement: the move's log row, its
    mail to the next seat and the seats' clocks are values until write_move writes them."""
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    rules = GAMES["colour-bazaar"]
    game_id = _started(app, "colour-bazaar", 2, 5, clock)
    read = _read(app, game_id, clock())
    assert read.game.state is not None
    (seat,) = rules.to_act(read.game.state)
    move = rules.legal_moves(read.game.state, seat)[0]
    token = rules.turn_token(read.game.state, seat)
    prepared = moves.prepare_move(read.game, 2, seat, move, token, "web")
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        plan = moves.plan_move(site, read, prepared, clock())
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert statements == []
    assert [row["ply"] for row in plan.writes.added(Move)] == [0]
    assert [(m["event"], m["seat"]) for m in plan.writes.added(Outbox)] == [("your_turn", 1 - seat)]
    with write_session(engine) as session:
        assert moves.write_move(session, site, prepared, plan, clock())
    assert [m[0] for m in _written(app, game_id)[0]][-1] == "your_turn"


def test_a_plan_made_before_a_seat_changed_is_made_again(app: Any, clock: Any, caplog: Any) -> None:
    """Léo leaves (a computer takes his seat) between Ana's plan and its write: the move
    is planned again under the lock, so Léo's seat is due to the computer, with no deadline
    and no turn mail, as if the first plan had never been made."""
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    rules = GAMES["colour-bazaar"]
    game_id = _started(app, "colour-bazaar", 2, 5, clock)
    read = _read(app, game_id, clock())
    state = read.game.state
    assert state is not None
    (seat,) = rules.to_act(state)
    move = rules.legal_moves(state, seat)[0]
    prepared = moves.prepare_move(read.game, 2, seat, move, rules.turn_token(state, seat), "web")
    plan = moves.plan_move(site, read, prepared, clock())
    other = 1 - seat
    mails = plan.writes.added(Outbox)
    assert [(m["event"], m["seat"]) for m in mails] == [("your_turn", other)]  # it would mail Léo
    with write_session(engine) as session:
        leave.leave(session, site, game_id, other, clock())
    with write_session(engine) as session:
        caplog.set_level(logging.INFO, logger="pbem.moves")
        assert not moves.write_move(session, site, prepared, plan, clock())  # planned again
    assert f"game {game_id} ply 0: the table changed since its read" in caplog.text
    _left_to_the_computer(engine, game_id, other)


def test_a_players_move_on_its_own_connection_is_planned_again_when_a_seat_changed(
    app: Any, clock: Any, caplog: Any
) -> None:
    """The page's and the API's path (moves.play: a write transaction on a bare connection,
    an ORM session made on it only to plan again): Léo leaves between Ana's read and her
    move's write, so the move is planned again under the lock: Léo's seat is due to the
    computer, gets no turn mail, and the move is logged once; play says it was planned
    again (None), so the page reads the game anew."""
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    rules = GAMES["colour-bazaar"]
    game_id = _started(app, "colour-bazaar", 2, 5, clock)
    read = _read(app, game_id, clock())
    state = read.game.state
    assert state is not None
    (seat,) = rules.to_act(state)
    other = 1 - seat
    with write_session(engine) as session:
        leave.leave(session, site, game_id, other, clock())
    caplog.set_level(logging.INFO, logger="pbem.moves")
    move = rules.legal_moves(state, seat)[0]
    assert (
        moves.play(engine, site, read, seat, move, rules.turn_token(state, seat), clock()) is None
    )
    assert f"game {game_id} ply 0: the table changed since its read" in caplog.text
    _left_to_the_computer(engine, game_id, other)
    with read_session(engine) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.ply == 1


def _left_to_the_computer(engine: Any, game_id: int, other: int) -> None:
    """The seat that left is due to the computer, with no deadline and no turn mail, and
    the move that was planned again is logged once."""
    with read_session(engine) as session:
        left = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == other)).one()
        turn_mails = session.exec(
            select(Outbox).where(
                Outbox.game_id == game_id, Outbox.seat == other, Outbox.event == "your_turn"
            )
        ).all()
        logged = session.exec(select(Move).where(Move.game_id == game_id)).all()
    assert left.left and left.computer_due_at is not None and left.deadline is None
    assert turn_mails == []
    assert [m.ply for m in logged] == [0]  # the move itself is written once
