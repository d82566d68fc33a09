"""Helpers for the tests of several clock processes at once: many games made directly, and
jobs run together in threads, each on an engine of its own (as each process has one)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine

from pbem import play
from pbem.storage.db import make_engine, write_session


def many_games(app: Any, count: int, players: int, clock: Any) -> list[int]:
    """`count` Colour Bazaar games of `players` (seeds 1..count), everyone joined; their
    invitations and start mails are left queued."""
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    games = []
    for n in range(count):
        invitees = [
            play.Invitee(f"P{n}x{seat}", f"p{n}x{seat}@example.org", "en")
            for seat in range(players)
        ]
        with write_session(engine) as session:
            game = play.create_game(
                session, site, "colour-bazaar", invitees, {"first": 0}, clock(), seed=n + 1
            )
            games.append(game.id or 0)
        with write_session(engine) as session:
            for seat in range(1, players):
                play.join(session, site, games[-1], seat, clock())
    return games


def at_once(url: str, jobs: list[Callable[[Engine], Any]]) -> list[Any]:
    """Run each job in its own thread on an engine of its own for `url`, all started
    together; their results in order (an exception is raised again here)."""
    results: list[Any] = [None] * len(jobs)
    barrier = threading.Barrier(len(jobs))

    def run(index: int) -> None:
        engine = make_engine(url)
        try:
            barrier.wait()
            results[index] = jobs[index](engine)
        except BaseException as exc:  # noqa: BLE001 - raised again in the test's thread
            results[index] = exc
        finally:
            engine.dispose()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(240)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return results
