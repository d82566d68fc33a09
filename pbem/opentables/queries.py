"""Open tables and standing seeks as read: the list a player sees (newest first, a page at a
time), who may join which table and why not, and which seeks fit a table.

A private player seated at a table is counted, never named nor rated, to anyone else. A
table with a player kept apart from the viewer (a block either way) is left out of the
viewer's list altogether: the blocked player never learns that the other posted one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import CompoundSelect, exists, func, union
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import Select

from pbem.models import Block, Game, OpenTable, Player, PlayerSeek, Seat
from pbem.players.blocks import kept_apart
from pbem.ratings import Shown, shown

PAGE_SIZE = 20  # tables on one page of the list
MAX_PAGE = 50  # pages beyond this are not served: nobody reads 1000 open tables
MAX_OPEN = 5  # open tables one player may have waiting at once
MAX_SEEKS = 3  # standing seeks one player may keep
RATING_LOW, RATING_HIGH = 0, 4000  # a range outside these is no rating anyone has


@dataclass(frozen=True)
class Sitting:
    """A player at an open table, as the list shows them: name and rating in the kind."""

    name: str
    rating: Shown


@dataclass(frozen=True)
class Listed:
    """One open table in the list, and whether the viewer may join it (`why` not: None)."""

    game: Game
    table: OpenTable
    seated: list[Sitting]
    why: str | None  # own, seated, range, full, signin; None: joinable
    taken: int  # seats taken so far, private players' included


def in_range(rating: int, low: int | None, high: int | None) -> bool:
    """Whether `rating` lies in the range (an end left open is no bound)."""
    return (low is None or rating >= low) and (high is None or rating <= high)


def refusal(session: Session, table: OpenTable, seats: list[Seat], player_id: int) -> str | None:
    """Why `player_id` may not take a seat at `table` (seated so far: `seats`), or None.

    "seated", "full", "range" (their rating in the kind is outside the table's) or
    "blocked" (a block either way with someone seated)."""
    if any(seat.player_id == player_id for seat in seats):
        return "seated"
    if len(seats) >= table.seats:
        return "full"
    rating = shown(session, [player_id], table.slug)[player_id].rating
    if not in_range(rating, table.rating_min, table.rating_max):
        return "range"
    if kept_apart(session, player_id, [seat.player_id for seat in seats]):
        return "blocked"
    return None


def seek_fits(session: Session, seek: PlayerSeek, table: OpenTable, seats: list[Seat]) -> bool:
    """Whether the seek's player may be seated at `table` by it: same kind and language, each
    one's rating in the other's range, no block either way, and a seat left."""
    if seek.slug != table.slug or seek.lang != table.lang:
        return False
    if refusal(session, table, seats, seek.player_id) is not None:
        return False
    ratings = shown(session, [seat.player_id for seat in seats], table.slug)
    return all(in_range(r.rating, seek.rating_min, seek.rating_max) for r in ratings.values())


def _apart_from(viewer: int) -> CompoundSelect[tuple[int]]:
    """The ids of the players kept apart from `viewer`: a block either way."""
    return union(
        select(Block.blocked_id).where(Block.player_id == viewer),
        select(Block.player_id).where(Block.blocked_id == viewer),
    )


def open_query(viewer: int | None, slug: str | None, lang: str | None) -> Select[OpenTable, Game]:
    """The open tables (forming games with an OpenTable row) matching the filters, newest
    first, less those where someone kept apart from `viewer` sits."""
    query = (
        select(OpenTable, Game)
        .join(Game, col(Game.id) == col(OpenTable.game_id))
        .where(Game.status == "forming")
    )
    if slug:
        query = query.where(OpenTable.slug == slug)
    if lang:
        query = query.where(OpenTable.lang == lang)
    if viewer is not None:
        hidden = exists(
            select(Seat.id).where(
                col(Seat.game_id) == col(OpenTable.game_id),
                col(Seat.player_id).in_(_apart_from(viewer)),
            )
        )
        query = query.where(~hidden)
    return query.order_by(col(OpenTable.created_at).desc(), col(OpenTable.game_id).desc())


def open_tables(
    session: Session,
    viewer: int | None,
    slug: str | None = None,
    lang: str | None = None,
    page: int = 0,
    size: int = PAGE_SIZE,
) -> tuple[list[Listed], bool]:
    """A page of the open tables the viewer may see, and whether another page follows."""
    page = max(0, min(page, MAX_PAGE))
    rows = list(session.exec(open_query(viewer, slug, lang).offset(page * size).limit(size + 1)))
    more = len(rows) > size
    rows = rows[:size]
    seats_by_game: dict[int, list[tuple[Seat, Player]]] = {table.game_id: [] for table, _ in rows}
    if rows:
        for seat, player in session.exec(
            select(Seat, Player)
            .join(Player, col(Player.id) == col(Seat.player_id))
            .where(col(Seat.game_id).in_(list(seats_by_game)))
            .order_by(col(Seat.game_id), col(Seat.seat))
        ):
            seats_by_game[seat.game_id].append((seat, player))
    listed = []
    for table, game in rows:
        seated = seats_by_game[table.game_id]
        ratings = shown(session, [seat.player_id for seat, _ in seated], table.slug)
        # A private player is not named nor rated to others (SECURITY.md "Privacy"): the
        # seats taken still count them.
        sitting = [
            Sitting(seat.name, ratings[seat.player_id])
            for seat, player in seated
            if player.page_public or player.id == viewer
        ]
        why = _why_not(session, table, [seat for seat, _ in seated], viewer)
        listed.append(Listed(game, table, sitting, why, len(seated)))
    return listed, more


def _why_not(
    session: Session,
    table: OpenTable,
    seats: list[Seat],
    viewer: int | None,
) -> str | None:
    """The list's word on joining: the poster's own table, signed out, or a refusal."""
    if viewer is None:
        return "signin"
    if table.player_id == viewer:
        return "own"
    return refusal(session, table, seats, viewer)


def table_of(session: Session, game_id: int) -> OpenTable | None:
    """The open table of a game, or None for a private game."""
    return session.get(OpenTable, game_id)


def open_count(session: Session, player_id: int) -> int:
    """How many open tables the player has posted that are still waiting for players."""
    query = (
        select(func.count())
        .select_from(OpenTable)
        .join(Game, col(Game.id) == col(OpenTable.game_id))
        .where(OpenTable.player_id == player_id, Game.status == "forming")
    )
    return int(session.exec(query).one())


def seeks_of(session: Session, player_id: int) -> list[PlayerSeek]:
    """The player's standing seeks, oldest first."""
    query = select(PlayerSeek).where(PlayerSeek.player_id == player_id)
    return list(session.exec(query.order_by(col(PlayerSeek.id))))


def seeks_for(session: Session, table: OpenTable, limit: int) -> list[PlayerSeek]:
    """The seeks of the table's kind and language by others than its poster, oldest first."""
    query = select(PlayerSeek).where(
        PlayerSeek.slug == table.slug,
        PlayerSeek.lang == table.lang,
        PlayerSeek.player_id != table.player_id,
    )
    return list(session.exec(query.order_by(col(PlayerSeek.id)).limit(limit)))


def seeks_like(session: Session, seek: PlayerSeek, limit: int) -> list[PlayerSeek]:
    """The other players' seeks of the seek's kind and language that fit it both ways (each
    one's rating in the other's range, no block either way), oldest first."""
    query = select(PlayerSeek).where(
        PlayerSeek.slug == seek.slug,
        PlayerSeek.lang == seek.lang,
        PlayerSeek.player_id != seek.player_id,
    )
    found = list(session.exec(query.order_by(col(PlayerSeek.id)).limit(limit)))
    ratings = shown(session, [seek.player_id, *(other.player_id for other in found)], seek.slug)
    mine = ratings[seek.player_id].rating
    return [
        other
        for other in found
        if in_range(ratings[other.player_id].rating, seek.rating_min, seek.rating_max)
        and in_range(mine, other.rating_min, other.rating_max)
        and not kept_apart(session, seek.player_id, [other.player_id])
    ]


def tables_for(session: Session, seek: PlayerSeek, limit: int) -> list[int]:
    """The open tables (game ids) of the seek's kind and language that its player may see,
    oldest first: the one waiting longest is filled first."""
    query = open_query(seek.player_id, seek.slug, seek.lang)
    query = query.order_by(None).order_by(col(OpenTable.created_at), col(OpenTable.game_id))
    return [table.game_id for table, _ in session.exec(query.limit(limit))]


def seats_open(seats: Iterable[Seat], table: OpenTable | None) -> int:
    """How many seats of an open table are still open (0 for a private game)."""
    return 0 if table is None else max(0, table.seats - len(list(seats)))
