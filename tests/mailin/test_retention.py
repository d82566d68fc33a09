"""Retention (issue 33): after PBEM_KEEP_DAYS, sent mail and received mail drop their text
and keep what threading, duplicate checks and links read; nothing still needed is touched."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

from sqlmodel import select

from pbem import play, seat_choices
from pbem.clock.computers import sweep_computers
from pbem.clock.scheduler import prune_old
from pbem.models import InboundMail, Move, Outbox
from pbem.storage.db import make_engine, read_session, write_session
from pbem.storage.retention import prune
from tests.mailin.conftest import PLAYERS
from tests.mailin.helpers import addr, answer, example_in, game_row, send, turn_mail
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
            seat_choices.leave(session, site, game_id, seat, clock())
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


def test_old_mail_loses_its_text_and_keeps_what_threads_and_dedupes(
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
    pruned = len(sent_before)
    assert result.output == (
        f"Pruned after 30 days: {pruned} sent mails, 0 webhook deliveries, 1 received mails.\n"
    )

    after = _outbox(app)
    for row_id, before in sent_before.items():
        row = after[row_id]
        assert (row.body_text, row.body_html) == ("", "")
        # What threading, the unique index, links and the operator read stays as it was.
        kept = ("message_id", "thread_id", "to_addr", "to_name", "subject", "headers", "event")
        assert [getattr(row, k) for k in kept] == [getattr(before, k) for k in kept]
        assert (row.game_id, row.seat, row.player_id, row.sent_at) == (
            before.game_id, before.seat, before.player_id, before.sent_at,
        )  # fmt: skip
        assert row.extra == ({} if row.event != "signin" else before.extra)
    unsent = [row for row in after.values() if row.game_id == waiting]
    assert unsent and all(row.sent_at is None for row in unsent)
    (tried,) = [row for row in unsent if row.attempts]  # rendered, refused: keeps its mail
    assert tried.body_text and tried.body_text == tried_before.body_text
    # The finished game and its log are whole.
    assert _moves(app, game) == log_before and game_row(app, game).state == state_before
    # The reply in the finished game keeps its Message-ID and verdict, not its move or sender;
    # the one in the game still played keeps all (a resend of it is known by its move).
    received = _received(app)
    done = received[str(reply["Message-ID"])]
    assert (done.status, done.game_id, done.sender, done.move) == ("applied", game, "", None)
    going = received[str(other_reply["Message-ID"])]
    assert going.sender == addr(other_mail["To"]) and going.move is not None

    # A copy of a reply to a pruned mail is still a duplicate, a resend of it (a new
    # Message-ID) is still known and ignored; nothing is played twice. (A copy to the
    # finished game's seats is refused at RCPT, as before: computers hold them.)
    assert send(inbound, reply)[0] == 550
    assert send(inbound, other_reply)[0] == 250
    assert len(_received(app)) == 2
    assert send(inbound, answer(other_mail, example_in(other_mail)))[0] == 250
    assert len(_received(app)) == 3
    assert _received(app)[str(reply["Message-ID"])].status == "applied"
    assert [r.reason for r in _received(app).values() if r.game_id == other][1:] == ["resend"]
    assert game_row(app, other).ply == 1
    # A reply to a pruned turn mail still plays; the mail it causes goes in the same thread
    # as the pruned ones, and the waiting mail is sent as it was rendered.
    assert send(inbound, answer(next_mail, example_in(next_mail))) == (250, "2.0.0 Move played")
    assert game_row(app, other).ply == 2
    smtpd.clear()
    deliver(app)
    (thread,) = {row.thread_id for row in after.values() if row.game_id == other}
    news = [m for m in smtpd.messages if f".g{other}@" in str(m["Message-ID"])]
    assert news and {str(m["In-Reply-To"]) for m in news} == {thread}
    assert all(row.sent_at is not None for row in _outbox(app).values() if row.game_id == waiting)
    assert all(m.get_body(preferencelist=("plain",)).get_content() for m in smtpd.messages)
    # Run again: nothing left to prune.
    assert prune_old(app, since=None) == {"mails": 0, "webhooks": 0, "received": 0}


def test_keep_days_zero_keeps_everything(app, smtpd, game, clock):
    app.config["KEEP_DAYS"] = 0
    clock.advance(days=400)
    result = app.test_cli_runner().invoke(args=["prune"])
    assert result.output == "PBEM_KEEP_DAYS is 0: everything is kept, nothing pruned.\n"
    assert all(row.body_text for row in _outbox(app).values())


def test_the_clock_prunes_the_last_week_and_the_command_everything(app, smtpd, game, clock):
    """The daily job looks only at mail that passed the cutoff in the last week (it never
    reads the pruned history again); `pbem prune` looks at everything."""
    clock.advance(days=40)  # the game's mail passed the cutoff ten days ago
    assert prune_old(app) == {"mails": 0, "webhooks": 0, "received": 0}
    assert prune_old(app, since=None)["mails"] == len(_outbox(app))


def test_two_prunes_at_once_end_as_one(app, smtpd, game, clock, database_url):
    """Two clock processes (each its own engine) pruning at once, in small pages: every
    sent mail is pruned once, no error, and the rows are as after one prune."""
    for _ in range(3):  # more mail: a few games, all sent
        _second_game(app, clock)
    deliver(app)
    rows = len(_outbox(app))
    assert rows >= 10
    clock.advance(days=31)
    engines = [make_engine(database_url) for _ in range(2)]
    barrier = threading.Barrier(2)
    counts: list[int] = []
    failures: list[BaseException] = []

    def one(engine: Any) -> None:
        barrier.wait()
        try:
            counts.append(prune(engine, clock(), 30, batch=3)["mails"])
        except BaseException as exc:  # noqa: BLE001 - the test reports it
            failures.append(exc)

    threads = [threading.Thread(target=one, args=(engine,)) for engine in engines]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for engine in engines:
        engine.dispose()
    assert failures == []
    assert sum(counts) == rows  # each row pruned by one of them
    after = _outbox(app)
    assert all(row.body_text == "" and row.message_id for row in after.values())
    assert prune(app.extensions["pbem"]["engine"], clock(), 30)["mails"] == 0
