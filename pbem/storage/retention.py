"""Retention: after PBEM_KEEP_DAYS, old rows keep what later code reads and drop their text.

A sent mail keeps its Message-ID, thread, recipient, subject, headers, event, game, seat
and times: the unique Message-ID index, threading (In-Reply-To is the game's thread id,
not an old row), recognising our own mail coming back, and a mail's settings link
(pbem.players.signin reads its player, game, seat and time) need nothing more. Its
rendered text and the facts it was rendered from (a seat's view of the game among them)
go: nothing sends a sent row again. A webhook delivery that is over (delivered, or given
up) drops its body and facts the same way. A received mail keeps its Message-ID (the
duplicate guard), game, seat, turn and verdict, and drops its sender and move, except in
a game still forming or being played: a resend of a reply to an old turn is recognised by
that move (pbem.mailin.resend). Games and their move logs are never touched.

Rows are found a page at a time in index order (sent rows by the time they were sent)
and each page is pruned in its own short transaction, so a prune never holds the write
lock for long. Every UPDATE matches only rows not pruned yet, and on PostgreSQL skips
rows another prune holds: two prunes at once, or one run twice, end as one.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import JSON, ColumnElement, Engine, Table, case, literal, null, or_, tuple_, update
from sqlmodel import select

from pbem.models import Game, InboundMail, Outbox, WebhookDelivery
from pbem.storage.db import write_session

BATCH = 1000  # rows a transaction: a few milliseconds of write lock
# The clock's daily run looks at rows sent in this stretch before the cutoff only, so that
# it never reads the whole history of pruned rows again; a clock down longer than this
# leaves older rows to `pbem prune`, which looks at everything.
CATCH_UP = timedelta(days=7)
# Games whose received mail keeps its move (pbem.mailin.resend reads it while they go on).
PLAYING = ("forming", "active")

_OUTBOX: Table = Outbox.__table__  # type: ignore[attr-defined]
_HOOKS: Table = WebhookDelivery.__table__  # type: ignore[attr-defined]
_INBOUND: Table = InboundMail.__table__  # type: ignore[attr-defined]
_GAME: Table = Game.__table__  # type: ignore[attr-defined]

_MAIL_LEFT = or_(_OUTBOX.c.body_text != "", _OUTBOX.c.body_html != "")
_HOOK_LEFT = or_(_HOOKS.c.body != "", _HOOKS.c.facts.is_not(None))
_INBOUND_LEFT = or_(_INBOUND.c.sender != "", _INBOUND.c.move.is_not(None))
_PLAYING_GAMES = select(_GAME.c.id).where(_GAME.c.status.in_(PLAYING))
_NOT_PLAYING = or_(_INBOUND.c.game_id.is_(None), _INBOUND.c.game_id.not_in(_PLAYING_GAMES))


def prune(
    engine: Engine,
    now: datetime,
    keep_days: float,
    since: timedelta | None = None,
    batch: int = BATCH,
) -> dict[str, int]:
    """Drop the text of rows older than `keep_days` (0: keep everything); how many of each.

    `since`: look only at rows sent or received in that stretch before the cutoff."""
    counts = {"mails": 0, "webhooks": 0, "received": 0}
    if keep_days <= 0:
        return counts
    before = now - timedelta(days=keep_days)
    lowest = before - since if since is not None else None
    counts["mails"] = _sent_pages(engine, _OUTBOX, before, lowest, batch, _mails)
    counts["webhooks"] = _sent_pages(engine, _HOOKS, before, lowest, batch, _hooks)
    counts["received"] = _received_pages(engine, before, lowest, batch)
    return counts


def _sent_pages(
    engine: Engine,
    table: Table,
    before: datetime,
    lowest: datetime | None,
    batch: int,
    prune_page: Callable[[list[int], datetime], Any],
) -> int:
    """Walk the rows sent before `before` (and from `lowest`) in pages in the order of
    their (sent_at, next_attempt_at) index, the id last: a page starts where the last one
    ended, read from the index, instead of reading the pruned rows before it again."""
    order = (table.c.sent_at, table.c.next_attempt_at, table.c.id)
    done, after = 0, None
    while True:
        page = select(*order).where(table.c.sent_at < before)
        if lowest is not None:
            page = page.where(table.c.sent_at >= lowest)
        if after is not None:
            page = page.where(tuple_(*order) > tuple_(*after))
        with engine.connect() as connection:
            rows = connection.execute(page.order_by(*order).limit(batch)).all()
        if rows:
            done += _run(engine, prune_page([row.id for row in rows], before))
        if len(rows) < batch:
            return done
        after = [literal(value, column.type) for value, column in zip(rows[-1], order, strict=True)]


def _received_pages(engine: Engine, before: datetime, lowest: datetime | None, batch: int) -> int:
    """Walk the received mail older than `before` in pages by id (the table holds 30 days:
    pbem.mailin.receive.forget_old drops older rows whole)."""
    done, after = 0, 0
    while True:
        page = select(_INBOUND.c.id).where(_INBOUND.c.created_at < before, _INBOUND.c.id > after)
        if lowest is not None:
            page = page.where(_INBOUND.c.created_at >= lowest)
        with engine.connect() as connection:
            ids = list(connection.execute(page.order_by(_INBOUND.c.id).limit(batch)).scalars())
        if ids:
            done += _run(engine, _received(ids, before))
        if len(ids) < batch:
            return done
        after = ids[-1]


def _run(engine: Engine, statement: Any) -> int:
    """One page's UPDATE in its own write transaction; the rows it changed."""
    with write_session(engine) as session:
        return int(getattr(session.connection().execute(statement), "rowcount", 0))


def _held(table: Table, ids: list[int], *left: ColumnElement[bool]) -> Any:
    """The rows of `ids` still to prune, locked; rows another prune holds are skipped
    (PostgreSQL: it is pruning them; SQLite has one writer at a time and no row locks)."""
    return select(table.c.id).where(table.c.id.in_(ids), *left).with_for_update(skip_locked=True)


def _mails(ids: list[int], before: datetime) -> Any:
    """Drop the text of sent mails; a sign-in mail keeps its facts (the address its link
    was asked for: an old link then says it has expired, not that it is unknown)."""
    left = (_OUTBOX.c.sent_at < before, _MAIL_LEFT)
    facts = case((_OUTBOX.c.event == "signin", _OUTBOX.c.extra), else_=literal({}, JSON))
    return (
        update(_OUTBOX)
        .where(_OUTBOX.c.id.in_(_held(_OUTBOX, ids, *left)), *left)
        .values(body_text="", body_html="", extra=facts)
    )


def _hooks(ids: list[int], before: datetime) -> Any:
    """Drop the body and facts of deliveries that are over (delivered or given up)."""
    left = (_HOOKS.c.sent_at < before, _HOOK_LEFT)
    return (
        update(_HOOKS)
        .where(_HOOKS.c.id.in_(_held(_HOOKS, ids, *left)), *left)
        .values(body="", facts=null())
    )


def _received(ids: list[int], before: datetime) -> Any:
    """Drop the sender and move of received mail, but not in games still going on."""
    left = (_INBOUND.c.created_at < before, _INBOUND_LEFT, _NOT_PLAYING)
    return (
        update(_INBOUND)
        .where(_INBOUND.c.id.in_(_held(_INBOUND, ids, *left)), *left)
        .values(sender="", move=null())
    )
