"""Retention (issue 45): past PBEM_KEEP_DAYS the rows nothing reads are deleted, in short
transactions of a bounded number of rows, once each even with two prunes at once; what is
still read (mail of games being played, mail and events not yet sent, recent replies) stays.

The rows here are written as the code writes them (the columns a mail, an event and a
reply have), many at once: the end-to-end tests in tests/mailin, tests/web and
tests/webhooks make theirs through the real paths."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, event, func, insert, select, update

from pbem.mailin import receive
from pbem.models import (
    Bounce,
    Game,
    InboundMail,
    Move,
    Outbox,
    Player,
    Webhook,
    WebhookDelivery,
)
from pbem.players import signin
from pbem.storage.db import make_engine
from pbem.storage.retention import COUNTS, LINKED, RETRIED, prune

NOW = datetime.fromisoformat("2026-06-01T09:00:00+00:00")


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


class History:
    """Rows written straight into the tables, shaped like those the code writes."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.serial = 0
        with engine.begin() as conn:
            self.player = self._insert(conn, Player, email="ana@example.org", name="Ana",
                                       created_at=NOW - timedelta(days=400))  # fmt: skip
            self.hook = self._insert(conn, Webhook, player_id=self.player, kind="generic",
                                     url="https://chat.example/hook", secret="s",
                                     created_at=NOW - timedelta(days=400))  # fmt: skip

    def _insert(self, conn: Any, model: Any, **values: Any) -> int:
        return int(conn.execute(insert(model).values(**values).returning(model.id)).scalar_one())

    def _next(self) -> int:
        self.serial += 1
        return self.serial

    def reports(self, received: datetime, count: int = 1, scored: bool = True) -> list[int]:
        """Bounce reports about one address, received at `received`, scored then or not."""
        with self.engine.begin() as conn:
            return [
                self._insert(
                    conn,
                    Bounce,
                    address="bea@example.net",
                    kind="hard",
                    status="5.1.1",
                    reason="user unknown",
                    received_at=received,
                    scored_at=received if scored else None,
                )  # fmt: skip
                for _ in range(count)
            ]

    def game(self, status: str, ended: datetime | None = None, plies: int = 0) -> int:
        """A game (`ended`: when it finished), with `plies` moves in its log."""
        start = NOW - timedelta(days=300)
        with self.engine.begin() as conn:
            game = self._insert(conn, Game, slug="colour-bazaar", options={}, seed=7,
                                state={"ply": plies}, ply=plies, status=status, days_off=[],
                                reminders=[], watch_key=f"w{self._next()}", created_at=start,
                                updated_at=start, started_at=start, finished_at=ended)  # fmt: skip
            for ply in range(plies):
                conn.execute(insert(Move).values(game_id=game, ply=ply, seat=ply % 2,
                                                 move={"n": ply}, lines={},
                                                 created_at=start))  # fmt: skip
        return game

    def mails(
        self,
        game: int | None,
        sent: datetime | None,
        count: int = 1,
        queued: datetime | None = None,
    ) -> list[int]:
        """Mails of `game` (None: a sign-in or league mail) sent at `sent` (None: waiting)."""
        queued = queued or (sent or NOW) - timedelta(minutes=1)
        ids = []
        with self.engine.begin() as conn:
            for _ in range(count):
                n = self._next()
                ids.append(self._insert(
                    conn, Outbox, game_id=game, event="your_turn" if game else "signin",
                    player_id=self.player, seat=0 if game else None, ply=0,
                    extra={"email": "ana@example.org"}, rendered_at=queued,
                    to_addr="ana@example.org", subject="Your move", body_text="text " * 200,
                    body_html="<p>html</p>" * 100, message_id=f"<{n:032x}.g{game or 0}@pbem.test>",
                    thread_id=f"<game-{game}@pbem.test>" if game else None,
                    headers={"List-Unsubscribe": "<https://pbem.test/u/x>"}, created_at=queued,
                    next_attempt_at=queued, attempts=1, sent_at=sent,
                ))  # fmt: skip
        return ids

    def events(
        self, sent: datetime | None, count: int = 1, given_up: bool = False, queued: Any = None
    ) -> list[int]:
        """Webhook deliveries posted (or given up) at `sent`; None: still being retried."""
        queued = queued or (sent or NOW) - timedelta(minutes=1)
        ids = []
        with self.engine.begin() as conn:
            for _ in range(count):
                ids.append(self._insert(
                    conn, WebhookDelivery, webhook_id=self.hook, event_id=f"e{self._next()}",
                    event="your_turn", body='{"text": "your move"}', facts={"seat": 0},
                    created_at=queued, next_attempt_at=queued, attempts=1, sent_at=sent,
                    given_up=given_up,
                ))  # fmt: skip
        return ids

    def replies(self, game: int | None, at: datetime, count: int = 1) -> list[int]:
        """Replies received for `game` at `at`, each applied."""
        ids = []
        with self.engine.begin() as conn:
            for _ in range(count):
                n = self._next()
                ids.append(self._insert(
                    conn, InboundMail, message_id=f"<r{n}@example.org>", game_id=game, seat=0,
                    turn="t1", sender="ana@example.org", status="applied", move={"play": 1},
                    created_at=at,
                ))  # fmt: skip
        return ids

    def left(self, model: Any) -> set[int]:
        with self.engine.connect() as conn:
            return set(conn.execute(select(model.id)).scalars())

    def row(self, model: Any, row_id: int) -> Any:
        with self.engine.connect() as conn:
            return conn.execute(select(model).where(model.id == row_id)).one()


@contextmanager
def transactions(engine: Engine) -> Iterator[dict[str, list[int]]]:
    """Count the transactions committed, and the rows each DELETE or UPDATE changed."""
    seen: dict[str, list[int]] = {"commits": [], "changed": []}

    def commit(_conn: Any) -> None:
        seen["commits"].append(1)

    def executed(_conn: Any, cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith(("DELETE", "UPDATE")):
            seen["changed"].append(cursor.rowcount)

    event.listen(engine, "commit", commit)
    event.listen(engine, "after_cursor_execute", executed)
    try:
        yield seen
    finally:
        event.remove(engine, "commit", commit)
        event.remove(engine, "after_cursor_execute", executed)


def test_what_goes_and_what_stays(engine: Engine) -> None:
    h = History(engine)
    long_ago = NOW - timedelta(days=60)
    over = h.game("over", ended=NOW - timedelta(days=40), plies=6)
    called_off = h.game("cancelled", ended=NOW - timedelta(days=50))
    playing = h.game("active", plies=4)
    forming = h.game("forming")
    old_over = h.mails(over, long_ago, 3) + h.mails(called_off, long_ago, 2)
    old_none = h.mails(None, long_ago, 2)  # sign-in and league mails
    old_playing = h.mails(playing, long_ago, 2) + h.mails(forming, long_ago)
    # Not sent yet, for weeks (the mail server refuses them): a retry is the same mail.
    waiting = h.mails(over, None, queued=long_ago) + h.mails(None, None, queued=long_ago)
    young = h.mails(over, NOW - timedelta(days=10))
    h.events(long_ago, 3) + h.events(long_ago, given_up=True)  # posted, or given up
    retried = h.events(None, 2, queued=long_ago)
    young_event = h.events(NOW - timedelta(days=1))
    h.replies(over, long_ago, 2) + h.replies(None, long_ago)
    replies_playing = h.replies(playing, NOW - timedelta(days=29))
    young_reply = h.replies(over, NOW - timedelta(days=2))
    h.reports(long_ago, 2)
    unscored = h.reports(long_ago, scored=False)  # the sweep has not read it yet
    young_report = h.reports(NOW - timedelta(days=10))

    assert prune(engine, NOW, 30) == {
        "mails": 7, "emptied": 3, "webhooks": 4, "received": 3, "bounces": 2
    }  # fmt: skip

    assert h.left(Outbox) == set(old_playing + waiting + young)
    for kept in old_playing:  # kept without its text, for its settings link
        row = h.row(Outbox, kept)
        assert (row.body_text, row.body_html, row.extra) == ("", "", {})
        assert row.message_id and row.thread_id and row.sent_at
    assert all(h.row(Outbox, i).body_text for i in waiting + young)
    assert h.left(WebhookDelivery) == set(retried + young_event)
    assert all(h.row(WebhookDelivery, i).body for i in retried)
    assert h.left(InboundMail) == set(replies_playing + young_reply)
    assert h.row(InboundMail, replies_playing[0]).move == {"play": 1}
    assert h.left(Bounce) == set(unscored + young_report)
    # Games and their logs are history: whole.
    assert h.left(Game) == {over, called_off, playing, forming}
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(Move)).scalar_one() == 10
    # Run again: nothing left to do.
    assert prune(engine, NOW, 30) == dict.fromkeys(COUNTS, 0)
    assert set(old_over + old_none).isdisjoint(h.left(Outbox))


def test_nothing_goes_sooner_than_its_readers_need(engine: Engine) -> None:
    """With PBEM_KEEP_DAYS at 1, a mail stays 30 days (its settings link reads it) and a
    reply 5 (a late copy from an MTA still finds it); a webhook event has no reader."""
    h = History(engine)
    over = h.game("over", ended=NOW - timedelta(days=3))
    linked = h.mails(over, NOW - timedelta(days=29))
    past_link = h.mails(over, NOW - timedelta(days=31))
    past_copies = h.replies(over, NOW - timedelta(days=6))  # received in this order
    copied = h.replies(over, NOW - timedelta(days=4))
    events = h.events(NOW - timedelta(days=2))
    reported = h.reports(NOW - timedelta(days=29))  # kept 30 days for the operator

    assert prune(engine, NOW, 1) == {
        "mails": 1, "emptied": 1, "webhooks": 1, "received": 1, "bounces": 0
    }  # fmt: skip
    assert h.left(Bounce) == set(reported)
    assert h.left(Outbox) == set(linked) and h.row(Outbox, linked[0]).body_text == ""
    assert h.left(InboundMail) == set(copied)
    assert h.left(WebhookDelivery) == set() and events
    assert past_link and past_copies


def test_the_floors_are_those_of_the_readers() -> None:
    assert LINKED == signin.MAILED_TTL  # a mail's settings link reads its row this long
    assert RETRIED <= receive.KEPT  # the sweep's own limit for received mail


def test_the_daily_run_deletes_the_old_mail_of_a_game_that_just_ended(engine: Engine) -> None:
    """A game played for months: its early mail, kept (emptied) while it went on, is
    deleted by the clock's next daily run once the game ends, though it was sent long
    before the week that run reads; one that ended earlier is left to `pbem prune`."""
    h = History(engine)
    long_game = h.game("active")
    h.mails(long_game, NOW - timedelta(days=120), 3)  # its early mails
    # Sent before the week the daily run reads: left for `pbem prune`.
    assert prune(engine, NOW, 30, since=timedelta(days=7)) == dict.fromkeys(COUNTS, 0)
    assert prune(engine, NOW, 30) == {
        "mails": 0,
        "emptied": 3,
        "webhooks": 0,
        "received": 0,
        "bounces": 0,
    }
    with engine.begin() as conn:
        conn.execute(
            update(Game).where(Game.id == long_game).values(status="over", finished_at=NOW)
        )
    ended_before = h.game("over", ended=NOW - timedelta(days=9))  # the clock was down
    missed = h.mails(ended_before, NOW - timedelta(days=120))
    later = NOW + timedelta(days=1)
    assert prune(engine, later, 30, since=timedelta(days=7))["mails"] == 3
    assert h.left(Outbox) == set(missed)
    assert prune(engine, later, 30)["mails"] == 1


def test_small_batches_make_many_short_transactions(engine: Engine) -> None:
    h = History(engine)
    over = h.game("over", ended=NOW - timedelta(days=40))
    playing = h.game("active")
    long_ago = NOW - timedelta(days=45)
    h.mails(over, long_ago, 40)
    h.mails(playing, long_ago, 13)
    h.events(long_ago, 23)
    h.replies(over, long_ago, 17)
    with transactions(engine) as seen:
        counts = prune(engine, NOW, 30, batch=5)
    assert counts == {"mails": 40, "emptied": 13, "webhooks": 23, "received": 17, "bounces": 0}
    assert seen["changed"] and max(seen["changed"]) <= 5
    assert len(seen["commits"]) >= (40 + 13 + 23 + 17) // 5


@pytest.mark.parametrize("since", [None, timedelta(days=7)])
def test_two_prunes_at_once_delete_each_row_once(
    database_url: str, engine: Engine, since: timedelta | None
) -> None:
    """Two clock processes (each its own engine) pruning at once, in small pages: every
    row deleted or emptied once, no error, no wait, and the tables as after one prune."""
    h = History(engine)
    long_ago = NOW - timedelta(days=33)
    games = [h.game("over", ended=NOW - timedelta(days=2)) for _ in range(3)]
    playing = h.game("active")
    for game in games:
        h.mails(game, long_ago, 20)
        h.mails(game, NOW - timedelta(days=90), 5)  # before the daily run's week
        h.replies(game, long_ago, 10)
    h.mails(playing, long_ago, 30)
    h.events(long_ago, 60)
    engines = [make_engine(database_url) for _ in range(2)]
    barrier = threading.Barrier(2)
    counts: list[dict[str, int]] = []
    failures: list[BaseException] = []

    def one(each: Engine) -> None:
        barrier.wait()
        try:
            counts.append(prune(each, NOW, 30, since=since, batch=4))
        except BaseException as exc:  # noqa: BLE001 - the test reports it
            failures.append(exc)

    threads = [threading.Thread(target=one, args=(each,)) for each in engines]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for each in engines:
        each.dispose()
    assert failures == []
    total = {key: sum(c[key] for c in counts) for key in counts[0]}
    assert total == {"mails": 75, "emptied": 30, "webhooks": 60, "received": 30, "bounces": 0}
    assert len(h.left(Outbox)) == 30 and h.left(WebhookDelivery) == h.left(InboundMail) == set()
    assert prune(engine, NOW, 30) == {
        "mails": 0,
        "emptied": 0,
        "webhooks": 0,
        "received": 0,
        "bounces": 0,
    }
