"""Senders in several clock processes at once (issue 33): each mail is rendered once and
received once, and on PostgreSQL each sender sends a share (2 and 3 senders used to render
183 and 204 mails for 160 sent: they read the same due rows and rendered before claiming)."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import pytest
from sqlmodel import select

from pbem.config import settings_of
from pbem.mailout import sender
from pbem.mailout.mailer import make_backend
from pbem.models import Outbox
from pbem.storage.db import is_sqlite, read_session
from tests.clock.several import at_once, many_games


@pytest.mark.parametrize("senders", [2, 3])
def test_senders_at_once_render_and_send_each_mail_once(
    app: Any, smtpd: Any, clock: Any, database_url: str, monkeypatch: Any, senders: int
) -> None:
    many_games(app, 36, 3, clock)
    with read_session(app.extensions["pbem"]["engine"]) as session:
        queued = {row.id: row.message_id for row in session.exec(select(Outbox))}
    assert len(queued) >= 100
    renders: list[int] = []
    lock = threading.Lock()
    real_render = sender.render_row

    def counted(session: Any, site: Any, row: Outbox, *args: Any, **kwargs: Any) -> Any:
        with lock:
            renders.append(row.id or 0)
        return real_render(session, site, row, *args, **kwargs)

    monkeypatch.setattr(sender, "render_row", counted)
    site, settings, now = app.extensions["pbem"]["site"], settings_of(app), clock()

    def drain(engine: Any) -> dict[str, int]:
        return sender.drain(engine, site, make_backend(settings), settings, now)

    results = at_once(database_url, [drain] * senders)
    assert sum(r["sent"] for r in results) == len(queued)
    assert all(r["failed"] == 0 for r in results)
    if not is_sqlite(app.extensions["pbem"]["engine"]):
        # Each took a share. (SQLite has one writer, and its busy wait is not fair.)
        assert all(r["sent"] > 0 for r in results), results
    assert sorted(renders) == sorted(queued)  # each rendered once, by the sender that sent it
    received = Counter(str(m["Message-ID"]) for m in smtpd.messages)
    assert received == Counter(queued.values())  # each received once
    with read_session(app.extensions["pbem"]["engine"]) as session:
        assert all(row.sent_at is not None for row in session.exec(select(Outbox)))
