"""Retention: past PBEM_KEEP_DAYS, rows that nothing reads any more are deleted.

Who reads an old row, and so what is kept:
- A sent mail: its settings link (pbem.players.signin) reads the row by id, to sign in for 30
  days and to answer "expired" after; nothing else does (the sender reads unsent rows only,
  threads are the game's id, our own mail coming back is known by its Message-ID's form,
  a reply address is a signed token). So a sent mail of a game that is over, or of no game
  (sign-in, league, digest), is deleted past the cutoff, and never sooner than 30 days; one
  of a game still forming or being played is kept without its text, so that its settings
  link still says "expired", until the game ends.
- A webhook delivery that is over (posted, or given up): nothing reads it; deleted.
- A received reply: the duplicate guard reads its Message-ID, and a resend to an old turn
  its move (pbem.mailin.resend), while the game goes on. One of a game that is over, or of
  no game, is deleted past the cutoff, and never sooner than 5 days (an MTA retries a mail
  that long, and a late copy must still be known). The clock's sweep drops every received
  row after 30 days (pbem.mailin.receive.forget_old).
- A bounce report, once scored against its address (pbem.mailfix.score reads the scored
  reports of the same day only; the address's row keeps the last one's words): deleted
  past the cutoff, and never sooner than 30 days, for the operator's eye.
Games, their move logs, and mail or events not yet sent (a retry is the same mail) are
never touched.

Rows are found a page at a time in index order, a page starting where the last ended, and
each page is deleted in its own short transaction of at most `batch` rows, named by id:
what decides a row's fate, read with its page, never turns back (a row's times are set
once, a game over stays over). A row deleted already is not there to delete again, an
UPDATE matches only rows with text left, and on PostgreSQL both skip rows another prune
holds (FOR UPDATE SKIP LOCKED): two prunes at once, or one run twice, end as one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    JSON,
    ColumnElement,
    Engine,
    Row,
    Select,
    Table,
    and_,
    case,
    delete,
    literal,
    or_,
    select,
    tuple_,
    update,
)

from pbem.models import Bounce, Game, InboundMail, Outbox, WebhookDelivery
from pbem.storage.db import write_session

BATCH = 1000  # rows a transaction: a few milliseconds of write lock
# The clock's daily run looks at mail sent in this stretch before the cutoff, and at the
# games that ended in this stretch before now, so that it never reads the kept history of
# games still played again; a clock down longer than this leaves older rows to `pbem prune`,
# which looks at everything.
CATCH_UP = timedelta(days=7)
# A game still forming or being played: its sent mail is kept (without text), and its
# received replies whole.
PLAYING = ("forming", "active")
# How long a mail's settings link reads its row (pbem.players.signin.MAILED_TTL): no sent
# mail is deleted sooner.
LINKED = timedelta(days=30)
# How long an MTA retries a mail (Postfix's maximal_queue_lifetime): no received reply is
# deleted sooner, so that a late copy is still a duplicate.
RETRIED = timedelta(days=5)
# How long a scored bounce report is kept at least, for an operator looking into an address.
REPORTED = timedelta(days=30)
COUNTS = ("mails", "emptied", "webhooks", "received", "bounces")

_OUTBOX: Table = Outbox.__table__  # type: ignore[attr-defined]
_HOOKS: Table = WebhookDelivery.__table__  # type: ignore[attr-defined]
_INBOUND: Table = InboundMail.__table__  # type: ignore[attr-defined]
_GAME: Table = Game.__table__  # type: ignore[attr-defined]
_BOUNCES: Table = Bounce.__table__  # type: ignore[attr-defined]


def prune(
    engine: Engine,
    now: datetime,
    keep_days: float,
    since: timedelta | None = None,
    batch: int = BATCH,
) -> dict[str, int]:
    """Delete the rows past `keep_days` that nothing reads (0: keep everything); how many:
    sent mails deleted, sent mails emptied (kept for a game still played), webhook
    deliveries, received mails and scored bounce reports deleted.

    `since`: look only at mail sent, and games ended, in that stretch (the clock's run)."""
    counts = dict.fromkeys(COUNTS, 0)
    if keep_days <= 0:
        return counts
    before = now - timedelta(days=keep_days)
    gone = min(before, now - LINKED)
    lowest = gone - since if since is not None else None
    counts["mails"], counts["emptied"] = _sent_mail(engine, before, gone, lowest, batch)
    if since is not None:  # the whole walk above saw every mail of an ended game already
        counts["mails"] += _ended_games_mail(engine, now - since, gone, batch)
    counts["webhooks"] = _hooks(engine, before, batch)
    counts["received"] = _received(engine, min(before, now - RETRIED), batch)
    counts["bounces"] = _bounces(engine, min(before, now - REPORTED), batch)
    return counts


def _pages(
    engine: Engine, query: Select[Any], order: Sequence[Any], batch: int
) -> Iterator[list[Row[Any]]]:
    """The rows of `query` (whose first columns are `order`, an index's) in pages of
    `batch`, each page read from where the last ended: rows handled before are not read
    again, deleted or kept."""
    after: list[Any] | None = None
    while True:
        page = query if after is None else query.where(tuple_(*order) > tuple_(*after))
        with engine.connect() as connection:
            rows = list(connection.execute(page.order_by(*order).limit(batch)).all())
        if rows:
            yield rows
        if len(rows) < batch:
            return
        after = [literal(v, c.type) for v, c in zip(rows[-1], order, strict=False)]


def _run(
    engine: Engine, table: Table, doomed: list[int], emptied: Sequence[int] = ()
) -> tuple[int, int]:
    """One page in one write transaction: delete the rows of `doomed`, and drop the text of
    the sent mails of `emptied`; how many of each. What decides a row's fate, read with
    its page, never turns back (its times are set once, a game over stays over): the ids
    are all the statements need."""
    with write_session(engine) as session:
        connection = session.connection()
        doomed, emptied = _hold(connection, table, doomed), _hold(connection, table, emptied)
        deleted = _rows(connection, delete(table).where(table.c.id.in_(doomed))) if doomed else 0
        return deleted, _rows(connection, _empty(emptied)) if emptied else 0


def _rows(connection: Any, statement: Any) -> int:
    return int(getattr(connection.execute(statement), "rowcount", 0))


def _hold(connection: Any, table: Table, ids: Sequence[int]) -> list[int]:
    """The rows of `ids` this prune may change: on PostgreSQL those it could lock, rows
    another prune holds skipped (it is doing them); SQLite has one writer at a time and no
    row locks. Locked by a statement of their own, so that the statements after name
    constant ids, which a planner looks up by key (a DELETE over a locking subquery was
    planned as a scan of the whole table)."""
    if not ids or connection.dialect.name != "postgresql":
        return list(ids)
    held = select(table.c.id).where(table.c.id.in_(ids)).with_for_update(skip_locked=True)
    return list(connection.execute(held).scalars())


def _over(table: Table) -> tuple[Any, ColumnElement[bool]]:
    """`table` joined to its rows' games, and whether a row's game is over (finished or
    called off) or it has none: each row's game is read by its key, where a subquery over
    the games being played would read them all for each page."""
    joined = table.outerjoin(_GAME, _GAME.c.id == table.c.game_id)
    return joined, or_(_GAME.c.id.is_(None), _GAME.c.status.not_in(PLAYING))


# --- sent mail -------------------------------------------------------------------------

_TEXT_LEFT = or_(_OUTBOX.c.body_text != "", _OUTBOX.c.body_html != "")


def _sent_mail(
    engine: Engine, before: datetime, gone: datetime, lowest: datetime | None, batch: int
) -> tuple[int, int]:
    """Walk the mail sent before `before` (from `lowest`) by the outbox's (sent_at,
    next_attempt_at) index: delete what was sent before `gone` in games over, empty the
    rest; (deleted, emptied)."""
    order = (_OUTBOX.c.sent_at, _OUTBOX.c.next_attempt_at, _OUTBOX.c.id)
    joined, over = _over(_OUTBOX)
    doomed = and_(_OUTBOX.c.sent_at < gone, over)
    query = (
        select(*order, doomed.label("doomed"), _TEXT_LEFT.label("text"))
        .select_from(joined)
        .where(_OUTBOX.c.sent_at < before)
    )
    if lowest is not None:
        query = query.where(_OUTBOX.c.sent_at >= lowest)
    deleted = emptied = 0
    for rows in _pages(engine, query, order, batch):
        ids = [row.id for row in rows if row.doomed]
        texts = [row.id for row in rows if row.text and not row.doomed]
        if ids or texts:
            gone_now, emptied_now = _run(engine, _OUTBOX, ids, texts)
            deleted, emptied = deleted + gone_now, emptied + emptied_now
    return deleted, emptied


def _empty(ids: list[int]) -> Any:
    """Drop the text of sent mails kept; a sign-in mail keeps its facts (the address its
    link was asked for: an old link then says it has expired, not that it is unknown), and
    so does a new address's confirmation (its link reads the address there, pbem.bounces)."""
    asked = _OUTBOX.c.event.in_(("signin", "address_confirm"))
    facts = case((asked, _OUTBOX.c.extra), else_=literal({}, JSON))
    return (
        update(_OUTBOX)
        .where(_OUTBOX.c.id.in_(ids), _TEXT_LEFT)
        .values(body_text="", body_html="", extra=facts)
    )


def _ended_games_mail(engine: Engine, ended_from: datetime, gone: datetime, batch: int) -> int:
    """Delete the mail sent before `gone` in the games that ended from `ended_from` on
    (their mail sent long before the stretch the sent walk reads), found by the games'
    finished_at index and the outbox's game_id index; how many."""
    order = (_GAME.c.finished_at, _GAME.c.id)
    ended = select(*order).where(_GAME.c.finished_at >= ended_from, _GAME.c.status.not_in(PLAYING))
    deleted = 0
    for games in _pages(engine, ended, order, batch):
        mail = select(_OUTBOX.c.id).where(
            _OUTBOX.c.game_id.in_([game.id for game in games]), _OUTBOX.c.sent_at < gone
        )
        with engine.connect() as connection:
            ids = list(connection.execute(mail).scalars())
        for start in range(0, len(ids), batch):
            chunk = ids[start : start + batch]
            deleted += _run(engine, _OUTBOX, chunk)[0]
    return deleted


# --- webhook deliveries and received mail ----------------------------------------------


def _hooks(engine: Engine, before: datetime, batch: int) -> int:
    """Delete the webhook deliveries over (posted or given up) before `before`, walking
    their (sent_at, next_attempt_at) index from its start: every row there goes, so the
    walk reads only rows still to delete."""
    order = (_HOOKS.c.sent_at, _HOOKS.c.next_attempt_at, _HOOKS.c.id)
    query = select(*order).where(_HOOKS.c.sent_at < before)
    deleted = 0
    for rows in _pages(engine, query, order, batch):
        ids = [row.id for row in rows]
        deleted += _run(engine, _HOOKS, ids)[0]
    return deleted


def _received(engine: Engine, before: datetime, batch: int) -> int:
    """Delete the received mail of games over (or of none) from before `before`, walking
    the table by id, which follows the time it came: the walk stops at the first row too
    young (the table holds 30 days at most, and the rows of games played are read again
    each day only for that long)."""
    order = (_INBOUND.c.id,)
    old = _INBOUND.c.created_at < before
    joined, over = _over(_INBOUND)
    query = select(*order, old.label("old"), over.label("over")).select_from(joined)
    deleted = 0
    for rows in _pages(engine, query, order, batch):
        young = next((k for k, row in enumerate(rows) if not row.old), len(rows))
        ids = [row.id for row in rows[:young] if row.over]
        if ids:
            deleted += _run(engine, _INBOUND, ids)[0]
        if young < len(rows):
            break
    return deleted


def _bounces(engine: Engine, before: datetime, batch: int) -> int:
    """Delete the bounce reports scored before `before`, walking their (scored_at, id)
    index (the sweep's, whose unscored rows sort apart): every row there goes."""
    order = (_BOUNCES.c.scored_at, _BOUNCES.c.id)
    query = select(*order).where(_BOUNCES.c.scored_at < before)
    deleted = 0
    for rows in _pages(engine, query, order, batch):
        deleted += _run(engine, _BOUNCES, [row.id for row in rows])[0]
    return deleted
