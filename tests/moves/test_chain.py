"""Conditional moves (plan ahead) in a two-player Colour Bazaar, through the one move path:
an answer is played at once after the move it names, both levels; a move the plan does not
name, or an answer no longer legal, cancels it; one turn mail for the whole chain."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import select

from pbem.games import ahead
from pbem.models import Game, Outbox
from pbem.storage.db import read_session, write_session
from tests.plans.ahead_game import (
    PEOPLE,
    RULES,
    a_play,
    game_of,
    leave_plan,
    logged,
    move,
    plan_kept,
    started,
)
from tests.web.helpers import deliver, text_of


def turn_mails(app: Any, game_id: int) -> list[tuple[int | None, int | None]]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        rows = session.exec(
            select(Outbox).where(Outbox.game_id == game_id, Outbox.event == "your_turn")
        )
        return [(m.seat, m.ply) for m in rows.all()]


def test_an_answer_is_played_ahead_at_both_levels_with_one_mail(app: Any, clock: Any) -> None:
    game_id = started(app, clock)
    state = game_of(app, game_id).state
    assert state is not None
    them = state["turn"]
    me = 1 - them
    theirs = a_play(state, them)
    after = RULES.apply(state, them, theirs)
    mine = a_play(after, me)
    after2 = RULES.apply(after, me, mine)
    theirs2 = a_play(after2, them)
    after3 = RULES.apply(after2, them, theirs2)
    mine2 = next(m for m in RULES.legal_moves(after3, me) if m.get("card") in state["hands"][me])
    leave_plan(app, clock, game_id, me, [
        {"if": theirs, "then": mine, "next": [{"if": theirs2, "then": mine2}]}
    ])  # fmt: skip
    mails_before = turn_mails(app, game_id)

    move(app, clock, game_id, them, theirs)
    rows = logged(app, game_id)
    assert [(r.seat, r.source) for r in rows[-2:]] == [(them, "web"), (me, "ahead")]
    assert rows[-1].move == mine
    assert any(line["key"] == "ahead.log.played" for line in rows[-1].lines[str(them)])
    game = game_of(app, game_id)
    assert game.state is not None and game.state["turn"] == them
    # One mail for the chain: to the seat to move now, none to the seat that planned.
    assert turn_mails(app, game_id)[len(mails_before) :] == [(them, game.ply)]

    move(app, clock, game_id, them, theirs2)
    rows = logged(app, game_id)
    assert [(r.seat, r.source, r.move) for r in rows[-2:]] == [
        (them, "web", theirs2),
        (me, "ahead", mine2),
    ]
    assert plan_kept(app, game_id, me) == {"tree": [], "ply": 0, "note": "used"}


def test_a_move_the_plan_does_not_name_cancels_it(app: Any, clock: Any, smtpd: Any) -> None:
    game_id = started(app, clock)
    state = game_of(app, game_id).state
    assert state is not None
    them = state["turn"]
    me = 1 - them
    theirs = a_play(state, them)
    other = next(m for m in RULES.legal_moves(state, them) if m != theirs)
    mine = a_play(RULES.apply(state, them, theirs), me)
    leave_plan(app, clock, game_id, me, [{"if": theirs, "then": mine}])

    move(app, clock, game_id, them, other, source="timeout")
    assert [r.source for r in logged(app, game_id)] == ["timeout"]
    game = game_of(app, game_id)
    assert game.state is not None and game.state["turn"] == me
    assert plan_kept(app, game_id, me) == {"tree": [], "ply": 0, "note": "cancelled"}
    assert (me, game.ply) in turn_mails(app, game_id)
    # The turn mail says the plan was cancelled (rendered from the outbox as it is sent).
    deliver(app)
    said = ("Your plan was cancelled", "Votre plan est annulé")  # Léo reads French
    (mail,) = [m for m in smtpd.messages if any(s in text_of(m) for s in said)]
    assert mail["To"].addresses[0].addr_spec == PEOPLE[me].email


def test_an_answer_no_longer_legal_cancels_the_plan(app: Any, clock: Any) -> None:
    """The plan was checked when made; the table it meets differs (here: its kept tree is
    one the rules now refuse, as a draw can make an answer wrong), so the usual mail goes."""
    game_id = started(app, clock)
    state = game_of(app, game_id).state
    assert state is not None
    them = state["turn"]
    me = 1 - them
    theirs = a_play(state, them)
    mine = a_play(RULES.apply(state, them, theirs), me)
    leave_plan(app, clock, game_id, me, [{"if": theirs, "then": mine}])
    # The answer's card leaves my hand before their move: the rules refuse it when it comes.
    engine = app.extensions["pbem"]["engine"]
    with write_session(engine) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.state is not None
        hands = [list(h) for h in game.state["hands"]]
        hands[me] = [c for c in hands[me] if c != mine["card"]]
        game.state = {**game.state, "hands": hands, "deck": game.state["deck"] + [mine["card"]]}
        session.add(game)

    move(app, clock, game_id, them, theirs)
    assert [r.source for r in logged(app, game_id)] == ["web"]
    assert plan_kept(app, game_id, me) == {"tree": [], "ply": 0, "note": "cancelled"}
    assert (me, game_of(app, game_id).ply) in turn_mails(app, game_id)


def test_a_plan_is_checked_when_made(app: Any, clock: Any) -> None:
    game_id = started(app, clock)
    state = game_of(app, game_id).state
    assert state is not None
    them = state["turn"]
    me = 1 - them
    theirs = a_play(state, them)
    not_mine = next(c for c in state["hands"][them] if c not in state["hands"][me])
    wrong = {"card": not_mine, "market": 0, "chip": "moons"}
    with pytest.raises(ahead.BadPlan):
        leave_plan(app, clock, game_id, me, [{"if": theirs, "then": wrong}])
    with pytest.raises(ahead.BadPlan):  # my own card is not one they can play
        own = {"card": state["hands"][me][0], "market": 0, "chip": "moons"}
        leave_plan(app, clock, game_id, me, [{"if": own, "then": wrong}])
    with pytest.raises(Exception, match="ahead.error.not_now"):  # not while I am to move
        leave_plan(app, clock, game_id, them, [{"if": wrong, "then": wrong}])
    # One level down, an answer may only play a card I know I will hold: not the card the
    # imagined table draws for me after my first answer.
    mine = a_play(RULES.apply(state, them, theirs), me)
    after = ahead.imagined_after(state, me, theirs, mine)
    theirs2 = ahead.their_moves(after, me)[0]
    drawn = [
        m
        for m in ahead.my_answers(after, me, theirs2)
        if m.get("card") and m["card"] not in state["hands"][me]
    ]
    assert drawn
    with pytest.raises(ahead.BadPlan):
        tree = [{"if": theirs, "then": mine, "next": [{"if": theirs2, "then": drawn[0]}]}]
        leave_plan(app, clock, game_id, me, tree)
    assert plan_kept(app, game_id, me) is None
