"""How `pbem live` learns that a table changed, and tells the database who is looking.

On PostgreSQL one connection per process LISTENs to the channels the writing transactions
NOTIFY on commit (pbem.storage.versions); a notice for a game with streams open here is
followed by one read of its version, ply and status (several notices read together), which
is what the streams are told. After every (re)connection the versions of every game with
streams open are read again, so that nothing said while the connection was down is lost.

On SQLite (one machine) the process looks every POLL_EVERY seconds while any stream is open
whether anything was committed since it last looked (PRAGMA data_version, on a connection
kept for it), and only then reads the versions of the games and leagues it has streams for
(one indexed read, however many streams); a stream for a game it had no stream for is read
at the next look whatever the database says. An idle minute is 120 looks and no read.

Every SEEN_EVERY, the seats whose page has a stream open here are marked seen, in one
statement (pbem.players.presence): their player is looking, so a move that makes them due
holds their mail while the page shows it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

import psycopg
from anyio import to_thread
from sqlalchemy import Engine
from sqlalchemy.engine import make_url

from pbem.live.hub import GAME, LEAGUE, Hub
from pbem.players import presence
from pbem.storage.db import read_session
from pbem.storage.versions import CHANNELS, LEAGUE_CHANNEL, Shown, of_games, of_leagues

log = logging.getLogger(__name__)
POLL_EVERY = 0.5  # seconds between SQLite's reads of the versions (a reply shows within it)
CHECK_EVERY = 30.0  # seconds without a notice after which the LISTEN connection is tried
RETRY_FIRST, RETRY_MOST = 0.5, 30.0  # seconds before connecting again, doubling
KINDS = {GAME: of_games, LEAGUE: of_leagues}
APPLICATION = "pbem live"  # the LISTEN connection's application_name


def read_shown(engine: Engine, wanted: dict[str, list[int]]) -> dict[str, dict[int, Shown]]:
    """The games' and leagues' versions as they are now: one read a kind (a thread's work)."""
    with read_session(engine) as session:
        return {kind: KINDS[kind](session, ids) for kind, ids in wanted.items() if ids}


async def refresh(hub: Hub, engine: Engine, wanted: dict[str, list[int]]) -> None:
    """Read these games' and leagues' versions and tell the streams of those that moved."""
    found = await to_thread.run_sync(read_shown, engine, wanted)
    for kind, rows in found.items():
        for row_id, shown in rows.items():
            hub.publish((kind, row_id), shown)


def everything(hub: Hub) -> dict[str, list[int]]:
    """Every game and league with a stream open here."""
    return {GAME: hub.ids(GAME), LEAGUE: hub.ids(LEAGUE)}


class Commits:
    """SQLite: whether anything was committed since the last look, and the reads it calls for.

    PRAGMA data_version moves when another connection commits to the database file, and
    costs no read of a table: a quiet database is looked at, not read."""

    def __init__(self, hub: Hub, engine: Engine) -> None:
        self.hub, self.engine = hub, engine
        self.connection: Any = None  # kept: data_version compares commits on one connection
        self.seen: Any = None
        self.due = True
        hub.on_new = self.want

    def want(self, key: tuple[str, int]) -> None:
        """Read at the next look: a new stream's game may have moved since its link's read
        and before any commit this process will see."""
        self.due = True

    def read_if_moved(self, wanted: dict[str, list[int]], due: bool) -> dict[str, dict[int, Shown]]:
        """The versions of `wanted` if the database moved or they are `due`, else nothing
        (a thread's work)."""
        if self.connection is None:
            self.connection = self.engine.raw_connection()
        try:
            cursor = self.connection.cursor()
            (version,) = cursor.execute("PRAGMA data_version").fetchone()
            cursor.close()
        except Exception:
            self.connection.invalidate()
            self.connection = None
            raise
        moved, self.seen = version != self.seen, version
        return read_shown(self.engine, wanted) if moved or due else {}

    async def look(self) -> None:
        """One look; the streams of what moved are told."""
        # Taken here, in the loop, with the list: a stream opened from now on asks again.
        due, self.due = self.due, False
        try:
            found = await to_thread.run_sync(self.read_if_moved, everything(self.hub), due)
        except BaseException:
            self.due = True  # read at the next look, whatever the database says
            raise
        for kind, rows in found.items():
            for row_id, shown in rows.items():
                self.hub.publish((kind, row_id), shown)


async def poll_versions(hub: Hub, engine: Engine, every: float = POLL_EVERY) -> None:
    """SQLite: every `every` seconds while a stream is open, look whether the database
    moved, and read the versions of everything with a stream open when it did."""
    commits = Commits(hub, engine)
    while True:
        await hub.wanted.wait()
        try:
            await commits.look()
        except Exception:  # the database busy or gone: the next round tries again
            log.exception("reading the table versions failed")
        await asyncio.sleep(every)


def listen_url(url: str) -> str:
    """The libpq address of a SQLAlchemy PostgreSQL URL (postgresql+psycopg://...)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


class Notices:
    """PostgreSQL: one LISTEN connection, and the reads its notices call for."""

    def __init__(self, hub: Hub, engine: Engine, url: str) -> None:
        self.hub, self.engine, self.url = hub, engine, listen_url(url)
        self.pending: dict[str, set[int]] = {GAME: set(), LEAGUE: set()}
        self.due = asyncio.Event()
        self.connected = asyncio.Event()  # set while LISTENing (tests and /live/healthz)
        hub.on_new = self.want

    def want(self, key: tuple[str, int]) -> None:
        """Read this game (or league) soon: its first stream here just opened."""
        self.pending[key[0]].add(key[1])
        self.due.set()

    def heard(self, channel: str, payload: str) -> None:
        """A notice "<id>:<version>": read that row if a stream here wants it and the version
        is news."""
        kind = LEAGUE if channel == LEAGUE_CHANNEL else GAME
        row, _, version = payload.partition(":")
        if not (row.isdigit() and version.isdigit()) or not self.hub.known(kind, int(row)):
            return
        newest = self.hub.newest((kind, int(row)))
        if newest is None or int(version) > newest.version:
            self.pending[kind].add(int(row))
            self.due.set()

    async def read_due(self) -> None:
        """Read the rows the notices named, together, as they come."""
        while True:
            await self.due.wait()
            self.due.clear()
            wanted = {kind: sorted(ids) for kind, ids in self.pending.items()}
            for named in self.pending.values():
                named.clear()
            try:
                await refresh(self.hub, self.engine, wanted)
            except Exception:
                log.exception("reading the table versions failed")
                for kind, again in wanted.items():  # tried again with the next notice
                    self.pending[kind].update(again)

    async def listen(self) -> None:
        """LISTEN on the channels, for as long as the process runs: connect again after a
        failure, and after each connection read everything with a stream open here."""
        wait = RETRY_FIRST
        while True:
            try:
                connection = await psycopg.AsyncConnection.connect(
                    self.url, autocommit=True, **_keepalives()
                )
                async with connection:
                    for channel in CHANNELS:
                        await connection.execute(f"LISTEN {channel}")
                    self.connected.set()
                    wait = RETRY_FIRST
                    await refresh(self.hub, self.engine, everything(self.hub))
                    while True:
                        async for notice in connection.notifies(timeout=CHECK_EVERY):
                            self.heard(notice.channel, notice.payload)
                        await connection.execute("SELECT 1")  # still there, or raise
            except (psycopg.Error, OSError) as exc:
                log.warning("LISTEN connection lost (%s); again in %.1f s", _first(exc), wait)
            self.connected.clear()
            await asyncio.sleep(wait)
            wait = min(wait * 2, RETRY_MOST)


def _keepalives() -> dict[str, Any]:
    """TCP keepalives on the LISTEN connection, so that a silent network is found within
    minutes; and its name in pg_stat_activity."""
    return {
        "keepalives": 1,
        "keepalives_idle": 60,
        "keepalives_interval": 10,
        "application_name": APPLICATION,
    }


def _first(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


async def mark_looking(hub: Hub, engine: Engine, now: Callable[[], datetime], every: float) -> None:
    """Every `every` seconds, mark seen the seats whose page has a stream open here."""
    while True:
        await asyncio.sleep(every)
        seats = hub.looking()
        if not seats:
            continue
        try:
            await to_thread.run_sync(presence.mark_seen_many, engine, seats, now())
        except Exception:
            log.exception("marking the open seats seen failed")
