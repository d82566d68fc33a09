"""A move POST works out its clocks and mails before the write lock (play.plan_move): the
rows it writes are the rows the ordinary path writes, and a plan made before a seat
changed is dropped for the ordinary path."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import text, update
from sqlmodel import col, select

from pbem import play
from pbem.games import GAMES
from pbem.models import Game, Move, Outbox, Player, Seat
from pbem.players import account
from pbem.storage.db import read_session, write_session
from pbem.storage.store import table_of
from pbem.storage.writeplan import NotCaptured, capturing

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
        moves = session.exec(
            select(Move).where(Move.game_id == game_id).order_by(col(Move.ply))
        ).all()
        return (
            [(*(getattr(m, name) for name in MAIL_FIELDS), m.thread_id is None) for m in mails],
            [tuple(getattr(s, name) for name in SEAT_FIELDS) for s in seats],
            [tuple(getattr(m, name) for name in MOVE_FIELDS) for m in moves],
        )


def _planned(app: Any, game_id: int, seat: int, move: dict[str, Any], token: str, now: Any) -> bool:
    """The move as the move POST makes it: prepared and planned outside the lock."""
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    with read_session(engine) as session:
        game = session.get(Game, game_id)
        assert game is not None
        table = table_of(session, game_id, now)
        prepared = play.prepare_move(game, len(table), seat, move, token, "web")
        plan = play.plan_move(session, site, prepared, now, table)
    with write_session(engine) as session:
        return play.write_move(session, site, prepared, now, plan)


def _ordinary(
    app: Any, game_id: int, seat: int, move: dict[str, Any], token: str, now: Any
) -> None:
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    with write_session(engine) as session:
        play.submit_move(session, site, game_id, seat, move, token, now)


def test_planned_moves_write_what_the_ordinary_path_writes(app: Any, clock: Any) -> None:
    """Two Fantasy Business games from one seed, one played through plan_move and one
    through submit_move: after every move the same mails are queued with the same facts
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
    moves = 0
    leo_deadlines = set()
    while rules.to_act(state) and moves < 60:
        seat = rules.to_act(state)[0]
        move = rng.choice(rules.legal_moves(state, seat))
        token = rules.turn_token(state, seat)
        clock.advance(minutes=7)
        assert _planned(app, planned, seat, move, token, clock()), "the plan was dropped"
        _ordinary(app, ordinary, seat, move, token, clock())
        state = rules.apply(state, seat, move)
        moves += 1
        assert _written(app, planned) == _written(app, ordinary), f"after move {moves}"
        leo_deadlines.add(_written(app, planned)[1][1][0])
    assert back + limit in leo_deadlines  # a turn of Léo's began while he was away
    mails, _, _ = _written(app, planned)
    turns = [m for m in mails if m[0] == "your_turn"]
    assert moves == 60 and len(turns) >= 30  # the script went far, with turn mails all along
    assert all("view" in m[4] for m in turns)  # Fantasy Business mails carry the seat's view


def test_a_plan_made_before_a_seat_changed_is_dropped(app: Any, clock: Any) -> None:
    """Léo leaves (a computer takes his seat) between Ana's plan and its write: the move
    is written the ordinary way, so Léo's seat is due to the computer, with no deadline
    and no turn mail, as if the plan had never been made."""
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    rules = GAMES["colour-bazaar"]
    game_id = _started(app, "colour-bazaar", 2, 5, clock)
    with read_session(engine) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.state is not None
        (seat,) = rules.to_act(game.state)
        state = game.state
        move = rules.legal_moves(state, seat)[0]
        prepared = play.prepare_move(game, 2, seat, move, rules.turn_token(state, seat), "web")
        plan = play.plan_move(session, site, prepared, clock(), table_of(session, game_id, clock()))
    other = 1 - seat
    mails = [
        params if isinstance(params, dict) else dict(zip(statement.names, params, strict=True))
        for statement, rows in plan.writes
        if statement.sql.startswith("INSERT INTO outbox ")
        for params in rows
    ]
    assert [(m["event"], m["seat"]) for m in mails] == [("your_turn", other)]  # it would mail Léo
    with write_session(engine) as session:
        play.leave(session, site, game_id, other, clock())
    with write_session(engine) as session:
        assert not play.write_move(session, site, prepared, clock(), plan)  # worked out again
    with read_session(engine) as session:
        left = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == other)).one()
        turn_mails = session.exec(
            select(Outbox).where(
                Outbox.game_id == game_id, Outbox.seat == other, Outbox.event == "your_turn"
            )
        ).all()
    assert left.left and left.computer_due_at is not None and left.deadline is None
    assert turn_mails == []


def _player_renamed_in(session: Any, seats: list[Any]) -> None:
    """A write of the kind a plan cannot carry: an UPDATE of a player, run in the session."""
    session.execute(
        update(Player).where(col(Player.id) == seats[0].player_id).values(name="Renamed")
    )


def test_capture_refuses_every_write_it_cannot_carry(app: Any, clock: Any) -> None:
    """While a plan is made, a statement other than a SELECT (an UPDATE through the session
    or its connection, a flush) or a change to a row other than the seats raises; the
    session is left empty."""
    engine = app.extensions["pbem"]["engine"]
    game_id = _started(app, "colour-bazaar", 2, 5, clock)

    def renamed_attribute(session: Any, seats: list[Any]) -> None:
        player = session.get(Player, seats[0].player_id)
        player.name = "Renamed"

    def flushed(session: Any, seats: list[Any]) -> None:
        seats[0].reminders_sent += 1
        session.flush()

    def raw_update(session: Any, seats: list[Any]) -> None:
        session.connection().execute(text("UPDATE player SET name = 'Renamed'"))

    def deleted(session: Any, seats: list[Any]) -> None:
        session.delete(session.get(Player, seats[0].player_id))

    for write in (_player_renamed_in, renamed_attribute, flushed, raw_update, deleted):
        with read_session(engine) as session:
            seats = list(session.exec(select(Seat).where(Seat.game_id == game_id)).all())
            with pytest.raises(NotCaptured), capturing(session, seats, []):
                write(session, seats)
            assert list(session) == [], write.__name__
            assert session.exec(select(Player.name)).all()  # reads go on afterwards
    with read_session(engine) as session:
        assert "Renamed" not in session.exec(select(Player.name)).all()


def test_a_write_the_plan_cannot_carry_is_made_not_dropped(
    app: Any, clock: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Code run after a move (here the clocks' update, wrapped to rename a player) that
    writes what a plan cannot carry gets no plan: the move and that write are both made,
    the ordinary way, and the log says so. It used to be dropped with the read session,
    and write_move said the plan was written as made."""
    engine = app.extensions["pbem"]["engine"]
    rules = GAMES["colour-bazaar"]
    game_id = _started(app, "colour-bazaar", 2, 5, clock)
    clocks = play.update_clocks

    def clocks_and_rename(session: Any, game: Any, seats: list[Any], *args: Any) -> None:
        _player_renamed_in(session, seats)
        clocks(session, game, seats, *args)

    monkeypatch.setattr(play, "update_clocks", clocks_and_rename)
    with read_session(engine) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.state is not None
        (seat,) = rules.to_act(game.state)
        move = rules.legal_moves(game.state, seat)[0]
        token = rules.turn_token(game.state, seat)
    with caplog.at_level("ERROR", logger="pbem.play"):
        assert not _planned(app, game_id, seat, move, token, clock())
    assert "no plan, written the ordinary way" in caplog.text
    with read_session(engine) as session:
        assert session.exec(select(Move).where(Move.game_id == game_id)).all()
        names = session.exec(select(Player.name).order_by(col(Player.id))).all()
    assert names[0] == "Renamed"
