"""`pbem live` on SQLite (issue 50): an idle stream costs no read of the database. Every
half second the process looks whether anything was committed (PRAGMA data_version) and
reads the versions of the games it has streams for only when something was, or when a
stream opens for a game it had none for (that game may have moved since its link's read)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from sqlalchemy import event
from sqlmodel import select

from pbem import moves, play
from pbem.games import GAMES
from pbem.live.hub import GAME, Hub
from pbem.live.watch import Commits
from pbem.models import Game
from pbem.storage.db import write_session


def started(app: Any) -> int:
    """A started two-player Colour Bazaar game: its id."""
    ext, now = app.extensions["pbem"], app.config["CLOCK"]()
    people = [play.Invitee("Ana", "ana@example.org"), play.Invitee("Léo", "leo@example.org")]
    with write_session(ext["engine"]) as session:
        game = play.create_game(session, ext["site"], "colour-bazaar", people, {}, now)
        play.join(session, ext["site"], game.id or 0, 1, now)
        return game.id or 0


def a_move(app: Any, game_id: int) -> int:
    """The seat to act plays its first legal move; the game's version after it."""
    ext = app.extensions["pbem"]
    with write_session(ext["engine"]) as session:
        game = session.exec(select(Game).where(Game.id == game_id)).one()
        assert game.state is not None
        rules = GAMES[game.slug]
        (seat,) = rules.to_act(game.state)
        move, token = rules.legal_moves(game.state, seat)[0], rules.turn_token(game.state, seat)
        session.expunge(game)
        moves.submit_move(
            session, ext["site"], game_id, seat, move, token, app.config["CLOCK"](), "mail"
        )
    with write_session(ext["engine"]) as session:
        return session.exec(select(Game.version).where(Game.id == game_id)).one()


def look(commits: Commits) -> None:
    """One look, on an event loop of its own in a thread of its own, as `pbem live` runs
    it: a browser test before this one on the same worker leaves Playwright's loop running
    in the test's thread, where asyncio.run refuses to start another."""
    failed: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(commits.look())
        except BaseException as exc:  # raised again in the test's thread
            failed.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]


def test_an_idle_stream_reads_nothing_until_a_commit(app: Any, database_url: str) -> None:
    if not database_url.startswith("sqlite"):
        pytest.skip("SQLite's look; PostgreSQL's streams hear NOTIFY (test_live_across_hosts)")
    engine = app.extensions["pbem"]["engine"]
    first, second = started(app), started(app)
    reads: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *args: reads.append(args[2][:6]))
    hub = Hub()
    commits = Commits(hub, engine)
    listener = hub.subscribe((GAME, first))

    look(commits)  # the first look reads what the streams show
    assert reads.count("SELECT") == 1
    for _ in range(5):
        look(commits)
    assert reads.count("SELECT") == 1, "an idle stream read the database"

    version = a_move(app, first)
    reads.clear()
    look(commits)
    assert reads.count("SELECT") == 1 and listener.wake.is_set()
    assert listener.shown is not None and listener.shown.version == version

    # A stream for another game, which moved before it opened: read at the next look.
    a_move(app, second)
    look(commits)
    reads.clear()
    other = hub.subscribe((GAME, second))
    look(commits)
    assert reads.count("SELECT") == 1 and hub.newest((GAME, second)) is not None
    look(commits)
    assert reads.count("SELECT") == 1 and not other.wake.is_set()
