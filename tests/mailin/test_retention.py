"""Retention (issues 33, 45): past PBEM_KEEP_DAYS a finished game's sent mail and received
replies are deleted; a game still played keeps what its duplicate checks and links read, and
its mails stay in one thread; nothing still needed is touched."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlmodel import select

from pbem import play
from pbem.clock.computer_play import sweep_computers
from pbem.clock.scheduler import prune_old
from pbem.config import settings_of
from pbem.models import InboundMail, Move, Outbox
from pbem.seats import leave
from pbem.storage.db import read_session, write_session
from tests.mailin.helpers import PLAYERS, addr, answer, example_in, game_row, send, turn_mail
from tests.web.helpers import deliver


def _outbox(app: Any) -> dict[int, Outbox]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return {row.id or 0: row for row in session.exec(select(Outbox))}


def _received(app: Any) -> dict[str, InboundMail]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        rows = session.exec(select(InboundMail).order_by(InboundMail.id))  # type: ignore[arg-type]
        return {row.message_id: row for row in rows}


def _moves(app: Any, game_id: int) -> list[tuple[int, dict[str, Any], str]]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        rows = session.exec(select(Move).where(Move.game_id == game_id).order_by(Move.ply))
        return [(m.ply, m.move, m.source) for m in rows]


def _finish_by_computers(app: Any, clock: Any, game_id: int) -> None:
    """Every player leaves; the computers that take their seats play the game to its end."""
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    for seat in range(len(PLAYERS)):
        with write_session(engine) as session:
            leave.leave(session, site, game_id, seat, clock())
    for _ in range(500):
        clock.advance(minutes=1)
        sweep_computers(engine, site, clock(), timedelta(seconds=3))
        if game_row(app, game_id).status == "over":
            break
    assert game_row(app, game_id).status == "over"
    deliver(app)


def _second_game(app: Any, clock: Any) -> int:
    """Another game, still forming: its invitations queued, not yet sent."""
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    invitees = [play.Invitee(p.name, p.email, p.lang) for p in PLAYERS]
    with write_session(engine) as session:
        return play.create_game(session, site, "colour-bazaar", invitees, {}, clock(), seed=8).id


def test_a_finished_games_rows_go_and_a_running_games_keep_what_is_read(
    app, smtpd, inbound, game, clock
):
    engine = app.extensions["pbem"]["engine"]
    mail = turn_mail(smtpd)
    reply = answer(mail, example_in(mail))
    assert send(inbound, reply) == (250, "2.0.0 Move played")
    deliver(app)
    # A second game goes on; its first turn mail is answered by mail too.
    other = _second_game(app, clock)
    with write_session(engine) as session:
        for seat in (1, 2):
            play.join(session, app.extensions["pbem"]["site"], other, seat, clock())
    deliver(app)
    other_mail = turn_mail(smtpd)
    other_reply = answer(other_mail, example_in(other_mail))
    assert send(inbound, other_reply) == (250, "2.0.0 Move played")
    deliver(app)
    next_mail = turn_mail(smtpd)  # the next turn in the game going on
    assert f".g{other}@" in str(next_mail["Message-ID"])
    _finish_by_computers(app, clock, game)
    log_before = _moves(app, game)
    state_before = game_row(app, game).state
    sent_before = _outbox(app)
    assert all(row.sent_at is not None and row.body_text for row in sent_before.values())
    # The SMTP server takes no more: the mail queued now waits to be sent again.
    smtpd.busy_after = len(smtpd.messages)
    clock.advance(days=29)
    waiting = _second_game(app, clock)
    assert deliver(app)["failed"] == 1
    (tried_before,) = [row for row in _outbox(app).values() if row.attempts]
    smtpd.busy_after = None

    clock.advance(days=1, hours=1)  # past PBEM_KEEP_DAYS (30) for all but the waiting mail
    result = app.test_cli_runner().invoke(args=["prune"])
    assert result.exit_code == 0, result.output
    going = {i for i, row in sent_before.items() if row.game_id == other}
    assert result.output == (
        f"Pruned after 30 days: deleted {len(sent_before) - len(going)} sent mails,"
        f" 0 webhook deliveries, 1 received mails, 0 bounce reports;"
        f" emptied {len(going)} sent mails kept for now.\n"
    )

    after = _outbox(app)
    # The finished game's mail is gone; the game going on keeps its mail without its text,
    # with what its settings links read (player, game, seat, time).
    assert {i for i, row in after.items() if row.sent_at is not None} == going
    for row_id in going:
        row, before = after[row_id], sent_before[row_id]
        assert (row.body_text, row.body_html, row.extra) == ("", "", {})
        kept = ("message_id", "thread_id", "player_id", "game_id", "seat", "created_at")
        assert [getattr(row, k) for k in kept] == [getattr(before, k) for k in kept]
    unsent = [row for row in after.values() if row.game_id == waiting]
    assert unsent and all(row.sent_at is None for row in unsent)
    (tried,) = [row for row in unsent if row.attempts]  # rendered, refused: keeps its mail
    assert tried.body_text and tried.body_text == tried_before.body_text
    # The finished game and its log are whole, and it replays.
    assert _moves(app, game) == log_before and game_row(app, game).state == state_before
    checked = app.test_cli_runner().invoke(args=["check"])
    assert checked.exit_code == 0 and "All games replay exactly." in checked.output
    # The reply in the finished game is gone; the one in the game still played is whole
    # (a resend of it is known by its move).
    received = _received(app)
    assert str(reply["Message-ID"]) not in received
    kept_reply = received[str(other_reply["Message-ID"])]
    assert kept_reply.sender == addr(other_mail["To"]) and kept_reply.move is not None

    # A copy of a reply in the game going on is still a duplicate, a resend of it (a new
    # Message-ID) still known and ignored; nothing is played twice. (A copy to the finished
    # game's seats is refused at RCPT, as before: computers hold them.)
    assert send(inbound, reply)[0] == 550
    assert send(inbound, other_reply)[0] == 250
    assert len(_received(app)) == 1
    assert send(inbound, answer(other_mail, example_in(other_mail)))[0] == 250
    assert [r.reason for r in _received(app).values()] == ["", "resend"]
    assert game_row(app, other).ply == 1
    # A reply to an emptied turn mail still plays; the mail it causes goes in the same
    # thread as the old ones, and the waiting mail is sent as it was rendered.
    assert send(inbound, answer(next_mail, example_in(next_mail))) == (250, "2.0.0 Move played")
    assert game_row(app, other).ply == 2
    smtpd.clear()
    deliver(app)
    (thread,) = {row.thread_id for row in after.values() if row.game_id == other}
    news = [m for m in smtpd.messages if f".g{other}@" in str(m["Message-ID"])]
    assert news and {str(m["In-Reply-To"]) for m in news} == {thread}
    assert all(row.sent_at is not None for row in _outbox(app).values() if row.game_id == waiting)
    assert all(m.get_body(preferencelist=("plain",)).get_content() for m in smtpd.messages)
    # Run again: nothing left to do.
    assert prune_old(app, since=None) == {
        "mails": 0,
        "emptied": 0,
        "webhooks": 0,
        "received": 0,
        "bounces": 0,
    }

    # The other game ends weeks later: the clock's next daily run deletes its old mail and
    # replies, though they were sent long before the week it reads.
    clock.advance(days=10)
    _finish_by_computers(app, clock, other)
    clock.advance(hours=1)
    done = prune_old(app)
    assert done["mails"] >= len(going) and done["received"] == 1
    cutoff = clock() - timedelta(days=30)
    assert all(row.sent_at > cutoff for row in _outbox(app).values() if row.game_id == other)
    assert str(other_reply["Message-ID"]) not in _received(app)
    assert all(row.created_at > cutoff for row in _received(app).values())
    checked = app.test_cli_runner().invoke(args=["check"])
    assert checked.exit_code == 0 and "All games replay exactly." in checked.output


def test_keep_days_zero_keeps_everything(app, smtpd, game, clock):
    settings_of(app).keep_days = 0
    clock.advance(days=400)
    result = app.test_cli_runner().invoke(args=["prune"])
    assert result.output == "PBEM_KEEP_DAYS is 0: everything is kept, nothing pruned.\n"
    assert all(row.body_text for row in _outbox(app).values())


def test_the_clock_prunes_the_last_week_and_the_command_everything(app, smtpd, game, clock):
    """The daily job looks only at mail that passed the cutoff in the last week (it never
    reads the pruned history again); `pbem prune` looks at everything."""
    clock.advance(days=40)  # the game's mail passed the cutoff ten days ago
    assert prune_old(app) == {"mails": 0, "emptied": 0, "webhooks": 0, "received": 0, "bounces": 0}
    assert prune_old(app, since=None)["emptied"] == len(_outbox(app))  # the game goes on
