"""A game's (or a league's) version: raised, and announced, by every write that changes what
its pages show, in that write's transaction.

The live page (issue 47) is told "the table changed" by `pbem live`, which learns it from
here: on PostgreSQL by NOTIFY, sent in the writing transaction and so delivered on commit
only (a rolled back write announces nothing), to every `pbem live` process on any host
that LISTENs; on SQLite (one machine) by reading the versions of the games it has pages
open for. The version is also the ETag of the page's poll (pbem.web.game). The
announcement names only the row and its new version: no game content (SECURITY.md).

The writes that raise a game's version: a move of any source (pbem.moves.write_move, in
its one UPDATE of the game row), table talk, a take back asked, allowed or refused, a seat
joining or declining, a game called off, started or left, an absent player coming back,
time added to a seat, and a vacation moving a player's clocks. A league's: a member
joining or leaving, its start, a round made, one of its games ending, its end.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Integer, bindparam, func, select, update
from sqlmodel import Session, col

from pbem.models import Game, League, LeagueGame, Seat
from pbem.storage.rawsql import Runner, compiled, dialect_of, fetch

TABLE_CHANNEL = "pbem_table"  # NOTIFY payload "<game id>:<version>"
LEAGUE_CHANNEL = "pbem_league"  # NOTIFY payload "<league id>:<version>"
CHANNELS = (TABLE_CHANNEL, LEAGUE_CHANNEL)
GAMES = Game.__table__  # type: ignore[attr-defined]
LEAGUES = League.__table__  # type: ignore[attr-defined]
SEATS = Seat.__table__  # type: ignore[attr-defined]

# Core statements on the tables, not the ORM's: a Game or League object the session holds
# keeps its other changes, and its flush never writes the version back.
_RAISE_GAME = (
    update(GAMES)
    .where(GAMES.c.id == bindparam("w_id", type_=Integer))
    .values(version=GAMES.c.version + 1)
    .returning(GAMES.c.version)
)
_RAISE_LEAGUE = (
    update(LEAGUES)
    .where(LEAGUES.c.id == bindparam("w_id", type_=Integer))
    .values(version=LEAGUES.c.version + 1)
    .returning(LEAGUES.c.version)
)


def table_changed(session: Session, game_id: int) -> int:
    """Raise the game's version and announce it, in the caller's write transaction; the new
    version (0 when there is no such game)."""
    session.flush()  # a Core statement flushes nothing itself: a new game's row first
    version = session.execute(_RAISE_GAME, {"w_id": game_id}).scalar()
    if version is None:
        return 0
    announce(session, TABLE_CHANNEL, game_id, version)
    return int(version)


def tables_changed(session: Session, game_ids: set[int]) -> None:
    """table_changed for each of these games, in id order (the order every writer locks in)."""
    for game_id in sorted(game_ids):
        table_changed(session, game_id)


def league_changed(session: Session, league_id: int) -> int:
    """Raise the league's version and announce it, in the caller's write transaction."""
    session.flush()
    version = session.execute(_RAISE_LEAGUE, {"w_id": league_id}).scalar()
    if version is None:
        return 0
    announce(session, LEAGUE_CHANNEL, league_id, version)
    return int(version)


def game_ended(session: Session, game_id: int) -> None:
    """A game ended: its league's standings changed, if it is a league's game."""
    league_id = session.execute(
        select(col(LeagueGame.league_id)).where(col(LeagueGame.game_id) == game_id)
    ).scalar()
    if league_id is not None:
        league_changed(session, league_id)


def announce(session: Runner, channel: str, row_id: int, version: int) -> None:
    """NOTIFY `channel` of the row's new version, on PostgreSQL: sent at commit, to every
    listener on any host. SQLite has no listener: `pbem live` reads the versions instead."""
    if dialect_of(session).name == "postgresql":
        session.execute(select(func.pg_notify(channel, f"{row_id}:{version}")))


# --- reads: one indexed row each, for the page's poll and `pbem live` -------------------


@dataclass(frozen=True)
class Shown:
    """How far a game (or a league) has gone, as its page shows it: the version, the ply
    (0 for a league) and the status. All a stream or a poll answer says."""

    version: int
    ply: int
    status: str

    def facts(self) -> dict[str, Any]:
        """As the poll's JSON and the stream's events give it."""
        return {"version": self.version, "ply": self.ply, "status": self.status}


@dataclass(frozen=True)
class SeatRead:
    """A seat link's game as shown, with what the link is checked against and when the seat
    last looked (pbem.players.presence)."""

    shown: Shown
    link_key: str
    seen_at: datetime | None


def _seat_shown() -> Any:
    return (
        select(GAMES.c.version, GAMES.c.ply, GAMES.c.status, SEATS.c.link_key, SEATS.c.seen_at)
        .join(SEATS, SEATS.c.game_id == GAMES.c.id)
        .where(
            GAMES.c.id == bindparam("w_game", type_=Integer),
            SEATS.c.seat == bindparam("w_seat", type_=Integer),
        )
    )


def _watch_shown() -> Any:
    return select(GAMES.c.version, GAMES.c.ply, GAMES.c.status, GAMES.c.watch_key).where(
        GAMES.c.id == bindparam("w_game", type_=Integer)
    )


def of_seat(session: Runner, game_id: int, seat_no: int) -> SeatRead | None:
    """The game of a seat link as shown, the seat's link key and seen_at: one row by the
    seat's unique (game_id, seat) index; never the state (36 KB late in a long game).
    Compiled once (pbem.storage.rawsql): an open page asks every few seconds."""
    statement = compiled(dialect_of(session), "versions.of_seat", _seat_shown)
    params = statement.parameters({"w_game": game_id, "w_seat": seat_no})
    rows = fetch(session, statement, params)
    if not rows:
        return None
    row = rows[0]
    return SeatRead(Shown(row[0], row[1], row[2]), row[3], row[4])


def of_watch(session: Runner, game_id: int) -> tuple[Shown, str] | None:
    """A spectator link's game as shown, and its watch key."""
    statement = compiled(dialect_of(session), "versions.of_watch", _watch_shown)
    rows = fetch(session, statement, statement.parameters({"w_game": game_id}))
    return None if not rows else (Shown(rows[0][0], rows[0][1], rows[0][2]), rows[0][3])


def of_games(session: Session, ids: Iterable[int]) -> dict[int, Shown]:
    """Several games as shown, by id, in one read (by primary key)."""
    return _many(session, GAMES.c.ply, GAMES, ids)


def of_leagues(session: Session, ids: Iterable[int]) -> dict[int, Shown]:
    """Several leagues as shown, by id, in one read."""
    return _many(session, LEAGUES.c.round, LEAGUES, ids)


_BATCH = 500  # ids a statement names at most (SQLite takes 32,766 parameters)


def _many(session: Session, ply: Any, table: Any, ids: Iterable[int]) -> dict[int, Shown]:
    wanted = sorted(set(ids))
    found: dict[int, Shown] = {}
    for start in range(0, len(wanted), _BATCH):
        rows = session.execute(
            select(table.c.id, table.c.version, ply, table.c.status).where(
                table.c.id.in_(wanted[start : start + _BATCH])
            )
        )
        found.update({row[0]: Shown(row[1], row[2], row[3]) for row in rows})
    return found
