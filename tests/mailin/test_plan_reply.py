"""A plan ahead left by mail: "if <their move> then <my move>" lines under the move in a
reply to a turn mail (two-player Colour Bazaar), kept and played ahead; a plan line that
names a move they cannot make refuses the whole reply, and nothing is played."""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from pbem import play
from pbem.games import GAMES
from pbem.models import InboundMail
from pbem.present.colour_bazaar_text import text_of as move_text
from pbem.storage.db import read_session, write_session
from tests.mailin.helpers import answer, game_row, send, turn_mail
from tests.plans.ahead_game import a_play, logged, move, plan_kept
from tests.web.helpers import deliver, text_of

RULES = GAMES["colour-bazaar"]


def two_players(app: Any, clock: Any) -> int:
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    people = [
        play.Invitee("Ana", "ana@example.org", "en"),
        play.Invitee("Léo", "leo@example.org", "en"),
    ]
    with write_session(engine) as session:
        game_id = play.create_game(session, site, "colour-bazaar", people, {}, clock(), seed=7).id
    with write_session(engine) as session:
        play.join(session, site, game_id, 1, clock())
    deliver(app)
    assert game_id is not None
    return game_id


def test_a_reply_leaves_a_plan_that_is_played_ahead(app, smtpd, inbound, clock) -> None:
    game_id = two_players(app, clock)
    state = game_row(app, game_id).state
    me = state["turn"]
    them = 1 - me
    mine = a_play(state, me)
    after = RULES.apply(state, me, mine)
    theirs = a_play(after, them)
    answer_move = a_play(RULES.apply(after, them, theirs), me)
    body = (
        f"{move_text(mine, 'en')}\n"
        f"if {move_text(theirs, 'en')} then {move_text(answer_move, 'en')}\n"
    )
    mail = turn_mail(smtpd)
    assert "if [their move] then [your move]" in text_of(mail).replace("\n", " ")
    code, _ = send(inbound, answer(mail, body))
    assert code == 250
    assert game_row(app, game_id).ply == 1
    kept = plan_kept(app, game_id, me)
    assert kept is not None and kept["tree"] == [{"if": theirs, "then": answer_move}]

    move(app, clock, game_id, them, theirs)
    assert [r.source for r in logged(app, game_id)] == ["mail", "web", "ahead"]
    assert logged(app, game_id)[-1].move == answer_move


def test_a_plan_line_that_cannot_be_kept_refuses_the_reply(app, smtpd, inbound, clock) -> None:
    game_id = two_players(app, clock)
    state = game_row(app, game_id).state
    me = state["turn"]
    mine = a_play(state, me)
    # "If they play" a card of my own hand: I can see they do not hold it.
    own = next(m for m in RULES.legal_moves(state, me) if "card" in m and m["card"] != mine["card"])
    body = f"{move_text(mine, 'en')}\nif {move_text(own, 'en')} then {move_text(own, 'en')}\n"
    code, _ = send(inbound, answer(turn_mail(smtpd), body))
    assert code == 250
    assert game_row(app, game_id).ply == 0
    assert plan_kept(app, game_id, me) is None
    with read_session(app.extensions["pbem"]["engine"]) as session:
        (row,) = session.exec(select(InboundMail)).all()
        assert row.status == "refused"


def _refusal(app: Any, smtpd: Any) -> str:
    deliver(app)
    (mail,) = [m for m in smtpd.messages if "did not play a move" in text_of(m)]
    return " ".join(text_of(mail).split())


def test_a_line_begun_as_a_plan_line_refuses_the_reply(app, smtpd, inbound, clock) -> None:
    # Issue 48, item 5: such a line was passed over and the move played.
    game_id = two_players(app, clock)
    me = game_row(app, game_id).state["turn"]
    mine = move_text(a_play(game_row(app, game_id).state, me), "en")
    code, _ = send(inbound, answer(turn_mail(smtpd), f"{mine}\nIf they play the castle\n"))
    assert code == 250
    assert game_row(app, game_id).ply == 0 and plan_kept(app, game_id, me) is None
    said = _refusal(app, smtpd)
    assert "We read: If they play the castle" in said
    assert 'A plan line reads "if <their move> then <your move>"' in said


def test_the_refusal_names_the_plan_line_at_fault(app, smtpd, inbound, clock) -> None:
    game_id = two_players(app, clock)
    state = game_row(app, game_id).state
    me = state["turn"]
    mine = a_play(state, me)
    after = RULES.apply(state, me, mine)
    theirs = a_play(after, 1 - me)
    mine_then = a_play(RULES.apply(after, 1 - me, theirs), me)
    good = f"if {move_text(theirs, 'en')} then {move_text(mine_then, 'en')}"
    # The same move of theirs answered twice (case does not matter): the second line is at
    # fault, and the mail quotes it, not the first.
    body = f"{move_text(mine, 'en')}\n{good}\n{good.upper()}\n"
    send(inbound, answer(turn_mail(smtpd), body))
    assert game_row(app, game_id).ply == 0 and plan_kept(app, game_id, me) is None
    said = _refusal(app, smtpd)
    assert "Your plan names the same move of theirs twice." in said
    assert f"We read: {good.upper()}" in said
