"""Sweeps in two clock processes at once share the due games out (issue 33): each timeout
is applied once and, on PostgreSQL, each sweep applies some (they used to list the same
rows, then queue on each game's lock in turn: a second clock made 100 timeouts slower)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pbem.clock.sweeps import sweep_timeouts
from pbem.storage.db import is_sqlite
from tests.clock.helpers import moves
from tests.clock.several import at_once, many_games

GAMES_COUNT = 54


def test_two_sweeps_at_once_split_the_timeouts_and_apply_each_once(
    app: Any, smtpd: Any, clock: Any, database_url: str
) -> None:
    games = many_games(app, GAMES_COUNT, 2, clock)
    clock.advance(days=3)  # past every first mover's deadline
    site, now = app.extensions["pbem"]["site"], clock()

    def sweep(engine: Any) -> int:
        return sweep_timeouts(engine, site, now, 10)

    results = at_once(database_url, [sweep, sweep])
    assert sum(results) == GAMES_COUNT
    if not is_sqlite(app.extensions["pbem"]["engine"]):
        # Each applied some. (SQLite has one writer, and its busy wait is not fair: a sweep
        # whose transactions follow each other may do all before the other gets the lock.)
        assert all(applied > 0 for applied in results), results
    timeouts = moves(app, "timeout")
    assert Counter(m.game_id for m in timeouts) == Counter(games)  # one in each game
    assert all(m.ply == 0 for m in timeouts)
    assert sweep_timeouts(app.extensions["pbem"]["engine"], site, now, 10) == 0
