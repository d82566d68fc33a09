"""Promise 3: mail is written with the move and sent at least once, with a stable Message-ID."""

from __future__ import annotations

import json
import random
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import select

from pbem.config import settings_of
from pbem.games import GAMES
from pbem.games.message import Message
from pbem.mailout import sender
from pbem.mailout.claims import LEASE, claim_next
from pbem.mailout.mailer import SmtpBackend, make_backend
from pbem.mailout.notify import decode, encode
from pbem.models import Game, Move, Outbox, Player
from pbem.present import presenter, rounds_viewed
from pbem.present.fantasy_business import mail_view, mail_view_then
from pbem.present.text import render
from pbem.present.timefmt import format_short, format_when
from pbem.storage.db import read_session, write_session
from tests.web.helpers import PLAYERS, deliver, headline, play_turn, start_game, text_of


def create(client: Any) -> None:
    form = {"game": "colour-bazaar"}
    for row, (name, email) in enumerate(PLAYERS):
        form[f"name_{row}"], form[f"email_{row}"] = name, email
    assert client.post("/games", data=form).status_code == 303


def rows(app: Any) -> list[Outbox]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return list(session.exec(select(Outbox).order_by(Outbox.id)))


def test_mail_waits_in_the_outbox_until_the_sender_runs(client: Any, app: Any, smtpd: Any) -> None:
    create(client)
    assert len(rows(app)) == 3 and smtpd.messages == []  # the request did not talk to SMTP
    assert deliver(app) == {"sent": 3, "failed": 0}
    assert deliver(app) == {"sent": 0, "failed": 0}
    assert len(smtpd.messages) == 3
    assert {str(m["Message-ID"]) for m in smtpd.messages} == {r.message_id for r in rows(app)}


def test_the_clocks_drains_keep_one_smtp_connection_until_it_is_idle(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    create(client)
    assert deliver(app) == {"sent": 3, "failed": 0}
    assert len(smtpd.peers) == 3 and len(set(smtpd.peers)) == 1  # one connection, one login
    create(client)
    assert deliver(app) == {"sent": 3, "failed": 0}
    assert len(set(smtpd.peers)) == 1  # the next drain goes on the same connection
    clock.advance(seconds=SmtpBackend.IDLE.total_seconds() + 1)
    assert deliver(app) == {"sent": 0, "failed": 0}  # no mail for a while: it is closed
    create(client)
    assert deliver(app) == {"sent": 3, "failed": 0}
    assert len(set(smtpd.peers)) == 2  # on a new one


def test_a_kept_connection_broken_between_drains_sends_each_mail_once(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    """The server hangs up on the connection the clock keeps between two drains (an idle
    timeout, a restart): the next mail goes on a new one, once, and none is lost."""
    create(client)
    assert deliver(app) == {"sent": 3, "failed": 0}
    smtpd.close_after_each = True  # the kept connection is hung up after the next mail
    create(client)
    assert deliver(app)["sent"] == 3
    smtpd.close_after_each = False
    create(client)  # the connection the clock kept is dead by now
    assert deliver(app) == {"sent": 3, "failed": 0}
    assert all(r.sent_at is not None for r in rows(app))
    assert sorted(str(m["Message-ID"]) for m in smtpd.messages) == sorted(
        r.message_id for r in rows(app)
    )  # each once


def test_a_kept_connection_the_server_closed_costs_no_mail(
    client: Any, app: Any, smtpd: Any
) -> None:
    create(client)
    smtpd.close_after_each = True  # the kept connection is dead when the next mail goes
    assert deliver(app) == {"sent": 3, "failed": 0}
    assert len(set(smtpd.peers)) == 3  # each on a new connection, none lost, none twice
    assert sorted(str(m["Message-ID"]) for m in smtpd.messages) == sorted(
        r.message_id for r in rows(app)
    )


def test_a_server_that_takes_no_more_on_a_connection_costs_no_mail(
    client: Any, app: Any, smtpd: Any
) -> None:
    create(client)
    smtpd.per_connection = 2  # then it answers 421 to the next MAIL FROM on that connection
    assert deliver(app) == {"sent": 3, "failed": 0}
    assert sorted(Counter(smtpd.peers).values()) == [1, 2]  # the third went on a new one
    assert sorted(str(m["Message-ID"]) for m in smtpd.messages) == sorted(
        r.message_id for r in rows(app)
    )


def test_a_mail_taken_just_before_the_server_failed_is_marked_sent(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    """A mail is marked sent with the next one's claim; when the next is not taken, the
    drain still marks the one that was, and it never goes twice."""
    create(client)
    smtpd.busy_after = 1  # takes the first mail, then answers 451 to the next
    assert deliver(app) == {"sent": 1, "failed": 1}
    (taken,) = smtpd.messages
    marked = {r.message_id: r for r in rows(app)}
    assert marked[str(taken["Message-ID"])].sent_at is not None
    assert sum(1 for r in marked.values() if r.sent_at is None and r.attempts == 1) == 1
    smtpd.busy_after = None
    clock.advance(minutes=1)  # past the failed one's backoff
    assert deliver(app) == {"sent": 2, "failed": 0}
    assert sorted(Counter(str(m["Message-ID"]) for m in smtpd.messages).values()) == [1, 1, 1]
    assert all(r.sent_at is not None for r in rows(app))


def test_a_sender_that_died_after_claiming_loses_nothing(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    """A sender holds only the mail it claimed, and only for its lease: another sends the
    rest at once, and that mail once the lease is over."""
    create(client)
    engine = app.extensions["pbem"]["engine"]
    queued = rows(app)
    claimed = claim_next(engine, clock(), clock(), LEASE)  # ...and then the process is killed
    assert claimed and claimed.id == queued[0].id  # the oldest
    assert deliver(app) == {"sent": 2, "failed": 0}  # not the one the dead sender holds
    assert claimed.message_id not in {str(m["Message-ID"]) for m in smtpd.messages}
    clock.advance(seconds=LEASE.total_seconds() - 1)
    assert deliver(app) == {"sent": 0, "failed": 0}  # its lease still holds
    clock.advance(seconds=2)
    assert deliver(app) == {"sent": 1, "failed": 0}
    assert sorted(str(m["Message-ID"]) for m in smtpd.messages) == sorted(
        r.message_id for r in queued
    )  # each once


def test_smtp_down_then_back_sends_each_mail_with_its_message_id(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    create(client)
    port = smtpd.port
    settings_of(app).smtp_port = 1  # nothing listens there: connection refused
    assert deliver(app)["failed"] == 1
    failed = rows(app)
    assert failed[0].attempts == 1 and failed[0].last_error
    assert all(r.sent_at is None for r in failed)
    settings_of(app).smtp_port = port
    assert deliver(app)["sent"] == 2  # the failed one waits for its backoff
    clock.advance(minutes=1)
    assert deliver(app)["sent"] == 1
    assert sorted(str(m["Message-ID"]) for m in smtpd.messages) == sorted(
        r.message_id for r in failed
    )


def test_headers_thread_and_cannot_be_injected(client: Any, app: Any, smtpd: Any) -> None:
    form = {
        "game": "colour-bazaar",
        "name_0": "Ana\r\nBcc: evil@example.org",
        "email_0": "ana@example.org",
        "name_1": "Léo",
        "email_1": "leo@example.org",
    }
    assert client.post("/games", data=form).status_code == 303
    deliver(app)
    for msg in smtpd.messages:
        assert msg["Bcc"] is None
        assert str(msg["References"]) == str(msg["In-Reply-To"]) == "<game-1@pbem.test>"
        assert str(msg["Message-ID"]).endswith("@pbem.test>")


def test_a_mail_rendered_late_says_what_it_said_when_queued(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    """The sender renders after commit, maybe moves later: the mail tells its own moment."""
    links, first = start_game(client, app, smtpd)
    seat_links = list(links.values())
    emails = list(links)
    engine = app.extensions["pbem"]["engine"]
    queued_at = clock()
    for _ in range(2):  # two turns played before the sender runs at all
        with read_session(engine) as session:
            (mover,) = GAMES["colour-bazaar"].to_act(session.get(Game, 1).state)
        play_turn(client, seat_links[mover])
        clock.advance(hours=5)
    with read_session(engine) as session:
        moves = list(session.exec(select(Move).order_by(Move.ply)))
    second = moves[1].seat  # got "your move" at ply 1, then moved before any mail went out
    smtpd.clear()
    deliver(app)
    (mail,) = [m for m in smtpd.to(emails[second]) if headline(m).startswith("your move")]
    body = text_of(mail)
    # Its first line gives the time left and the deadline as they were when it was queued.
    until = format_short(queued_at + timedelta(days=3), "UTC", "en")
    assert body.strip().splitlines()[0] == (
        f"Your move, {PLAYERS[second][0]}: 3 days left (until {until})"
    )
    names = [name for name, _ in PLAYERS]

    def line(move: Move) -> str:
        return " ".join(render(Message.from_json(x), "en", names) for x in move.lines[str(second)])

    assert line(moves[0]) in body  # the move before it: news
    assert line(moves[1]) not in body  # its reader's own later move: not in it
    # The deadline it gives is the one set when it was queued (three days from then), though
    # that seat's clock has stopped since.
    assert format_when(queued_at + timedelta(days=3), "UTC", "en") in body


def test_rendered_mail_is_kept_for_a_resend(client: Any, app: Any, smtpd: Any) -> None:
    create(client)
    port = smtpd.port
    settings_of(app).smtp_port = 1
    deliver(app)
    first = {r.id: (r.subject, r.body_text) for r in rows(app) if r.rendered_at}
    assert first and all(subject and text for subject, text in first.values())
    settings_of(app).smtp_port = port
    deliver(app)
    assert {r.id: (r.subject, r.body_text) for r in rows(app) if r.id in first} == first


class Killed(BaseException):
    """The sender's process ends here, as by SIGKILL: nothing after this point runs."""


def killed(*_args: Any, **_kwargs: Any) -> Any:
    """Be killed at once."""
    raise Killed


def test_a_mail_is_rendered_only_by_the_sender_that_claims_it(
    client: Any, app: Any, smtpd: Any, clock: Any, monkeypatch: Any
) -> None:
    """A sender renders a mail only after claiming it: a mail another sender holds is
    neither rendered nor sent, and a mail stored by another sender is the one that goes."""
    create(client)
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    renders: list[int] = []
    real_render = sender.render_row

    def counted(session: Any, site: Any, row: Outbox, *args: Any, **kwargs: Any) -> Any:
        renders.append(row.id or 0)
        return real_render(session, site, row, *args, **kwargs)

    monkeypatch.setattr(sender, "render_row", counted)
    first, second, third = (r.id for r in rows(app))
    held = claim_next(engine, clock(), clock(), LEASE)  # another sender holds it
    assert held and held.id == first
    # The second mail: claimed, rendered and stored by a sender after its reader chose
    # French, and that sender died before it sent it; the mail stored is the one that goes,
    # not rendered again.
    with write_session(engine) as session:
        for player in session.exec(select(Player)):
            player.lang = "fr"
            session.add(player)
    settings = settings_of(app)
    with pytest.MonkeyPatch.context() as dying:
        dying.setattr(sender, "build_message", killed)  # once the rendering is stored
        with pytest.raises(Killed):
            sender.drain(engine, site, make_backend(settings), settings, clock())
    stored = rows(app)[1]
    assert " avec " in stored.subject and renders == [second]
    assert deliver(app) == {"sent": 1, "failed": 0}  # the third: the others are held
    assert renders == [second, third]
    clock.advance(seconds=LEASE.total_seconds() + 1)  # both senders died: their claims lapse
    assert deliver(app) == {"sent": 2, "failed": 0}
    assert renders == [second, third, first]
    sent = [m for m in smtpd.messages if str(m["Message-ID"]) == stored.message_id]
    assert [str(m["Subject"]) for m in sent] == [stored.subject]  # in French, as stored


def test_a_queued_fantasy_business_view_gives_back_the_view_of_its_moment() -> None:
    """The outbox keeps a seat's view without its finished rounds (they never change); with
    the view at render time, the sender gets back exactly the view of the queued moment."""
    rules = GAMES["fantasy-business"]
    for seed, players, options in ((3, 4, {}), (4, 5, {"specials": "standard"})):
        pick = random.Random(seed)
        state = rules.setup(players, options, seed)
        kept: list[tuple[int, dict[str, Any], dict[str, Any]]] = []
        while rules.outcome(state) is None:
            seat = rules.to_act(state)[0]
            viewer = len(kept) % players
            view = rules.view(state, viewer)
            # notify.queue keeps it from a view of the rounds the game's mails declare.
            rounds = rounds_viewed(presenter("fantasy-business"), "mail")
            trimmed = mail_view(rules.view(state, viewer, rounds=rounds))
            queued = decode(json.loads(json.dumps(encode(trimmed))))
            assert all(r["income"] is None for r in queued["history"])
            kept.append((viewer, view, queued))
            state = rules.apply(state, seat, pick.choice(rules.legal_moves(state, seat)))
        for viewer, view, queued in kept:
            assert mail_view_then(queued, rules.view(state, viewer)) == view
