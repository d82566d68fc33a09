"""Game reviews, worked out by the computer workers after their moves (scheduler's
computer_moves, `pbem computers`): claimed, leased, once per game and seat.

A worker claims the oldest review asked (pbem.storage.reviews.claim: FOR UPDATE SKIP LOCKED
on PostgreSQL, BEGIN IMMEDIATE on SQLite) and leases it; it reads the finished game, works
the review out outside any transaction (pbem.bots.review, from the seat's views only), then
writes it in a conditional update that lands only while the lease is its own and no result
is there. A review asked by mail is queued in the outbox once, in the transaction that
takes its mail (a conditional update of mailed_at), whoever takes it first.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.engine import Engine

from pbem.bots.review import Played, Setup, review_seat
from pbem.games import GAMES
from pbem.mailout import reviewmail
from pbem.mailout.notify import queue_notice, telling
from pbem.models import Game
from pbem.site import Site
from pbem.storage import reviews
from pbem.storage.db import read_session, write_session
from pbem.storage.store import moves_of, seats_of, shuffles_of

log = logging.getLogger(__name__)

EVENT = reviewmail.EVENT  # the mail: mail/review.txt and mail/review.html
# Reviews a sweep works out: one, so a worker's computer moves wait one review at most.
BATCH = 1


def _work_out(engine: Engine, claimed: reviews.Claimed, simulations: int | None) -> Any:
    """The review's result, from the finished game read now; None if the game is not over
    (a review is never worked out before the end)."""
    with read_session(engine) as session:
        game = session.get(Game, claimed.game_id)
        if game is None or game.status != "over":
            return None
        players = len(seats_of(session, game))
        log_rows = [Played(m.seat, m.move, m.source) for m in moves_of(session, game)]
        setup = Setup(players, dict(game.options), game.seed, shuffles_of(session, game))
        rules = GAMES[game.slug]
    # Outside any transaction: a review is seconds of one core.
    return review_seat(rules, setup, log_rows, claimed.seat, simulations).to_json()


def _mail(session: Any, site: Site, review_id: int, now: datetime) -> bool:
    """Queue the review's mail if it wants one and none was queued: whether this did."""
    review = reviews.take_mail(session, review_id, now)
    if review is None:
        return False
    game = session.get(Game, review.game_id)
    tell = telling(session, site, game, now)
    seat = next(s for s in tell.seats if s.seat == review.seat)
    # One mail per review: its Message-ID names the game and seat (queue_notice's occasion).
    queued = queue_notice(tell, seat, EVENT, f"review{review.seat}", {})
    tell.carry_out(session)
    return queued


def sweep_reviews(
    engine: Engine,
    site: Site,
    now: datetime,
    simulations: int | None = None,
    lease: timedelta = timedelta(minutes=10),
    batch: int = BATCH,
) -> int:
    """Work out up to `batch` reviews asked for, then queue the mails of the reviews done
    that want one: how many reviews and mails this made."""
    made = 0
    for claimed in reviews.claim(engine, now, batch, lease):
        try:
            result = _work_out(engine, claimed, simulations)
        except Exception as exc:
            # The type only: a failure's message could name a card. The lease is kept, so
            # the review is tried again once it is past, not in a loop.
            log.error("review of game %s, seat %s failed: %s", claimed.game_id, claimed.seat,
                      type(exc).__name__)  # fmt: skip
            continue
        if result is None:
            continue  # the lease runs out; asking checked the end, so this does not happen
        with write_session(engine) as session:
            if reviews.write_result(session, claimed, result, now):
                made += 1
                made += _mail(session, site, claimed.id, now)
    for review_id in reviews.mail_due(engine, batch=20):
        with write_session(engine) as session:
            made += _mail(session, site, review_id, now)
    return made
