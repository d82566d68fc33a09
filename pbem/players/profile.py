"""A player's page as data: their ratings per game kind with their history, their finished
games with the public facts of each (names, ranks, scores), and a head-to-head.

Only finished games, only what the finished game shows anyone: no hand, no address, no
seat link. The page (pbem/web/players.py) and the API read these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from pbem.models import Game, Player, Rating, RatingChange, Seat
from pbem.players.blocks import blocked_by
from pbem.ratings import COMPUTER_RATINGS, Shown, computer_level, shown
from pbem.site import Site

PAGE_SIZE = 50  # finished games a page lists
HISTORY_POINTS = 200  # the most recent rating changes a chart draws, per kind
HEAD_TO_HEAD_MOST = 1000  # games between two players counted in a head-to-head


@dataclass(frozen=True)
class KindRating:
    """A player's rating in one game kind, with its history (oldest first)."""

    kind: str
    shown: Shown
    history: list[tuple[datetime, float]] = field(default_factory=list)


@dataclass(frozen=True)
class Opponent:
    """Another seat of a finished game, by its public facts."""

    player_id: int
    name: str
    rank: int
    score: int
    # Their page may be linked: it is public (a private player is named as at the table,
    # by their seat's name, with no link to them: SECURITY.md "Privacy").
    public: bool = True


@dataclass(frozen=True)
class Finished:
    """One finished game from the player's side."""

    game_id: int
    slug: str
    finished_at: datetime | None
    rated: bool
    rank: int
    score: int
    players: int
    others: list[Opponent]
    watch_link: str  # its spectator link: anyone may watch a finished game
    # The others who share the player's rank (a tie): "shared first place with Léo".
    tied: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class HeadToHead:
    """Two players' finished games together, from the first one's side."""

    wins: int
    draws: int
    losses: int


def visible_to(player: Player, viewer_id: int | None) -> bool:
    """Whether `viewer_id` may see `player`'s page: a public page, or their own."""
    return player.page_public or viewer_id == player.id


def sat_together(session: Session, one: int, other: int) -> bool:
    """Whether the two players have sat at a table together (any game, any state)."""
    mine = select(Seat.game_id).where(Seat.player_id == one)
    query = select(Seat.id).where(Seat.player_id == other, col(Seat.game_id).in_(mine))
    return session.exec(query.limit(1)).first() is not None


def public_ids(session: Session, ids: list[int]) -> set[int]:
    """Those of `ids` whose page is public."""
    query = select(Player.id).where(col(Player.id).in_(ids), col(Player.page_public))
    return {pid for pid in session.exec(query) if pid is not None}


def ratings_of(session: Session, player: Player) -> list[KindRating]:
    """The kinds the player is rated in (a computer account: every kind it has a level
    rating for), with each kind's history."""
    player_id = player.id or 0
    level = computer_level(player.email)
    if level is not None:
        kinds = [kind for kind, fixed in COMPUTER_RATINGS.items() if level in fixed]
    else:
        kinds = list(
            session.exec(
                select(Rating.kind).where(Rating.player_id == player_id).order_by(col(Rating.kind))
            )
        )
    found = []
    for kind in kinds:
        rows = session.exec(
            select(RatingChange.created_at, RatingChange.before, RatingChange.after)
            .where(RatingChange.player_id == player_id, RatingChange.kind == kind)
            .order_by(col(RatingChange.created_at).desc(), col(RatingChange.id).desc())
            .limit(HISTORY_POINTS)
        ).all()
        oldest = list(reversed(rows))
        # The line starts where the first game shown started from: one game is a step.
        history = [(oldest[0][0], oldest[0][1])] if oldest else []
        history += [(when, after) for when, _, after in oldest]
        found.append(KindRating(kind, shown(session, [player_id], kind)[player_id], history))
    return found


def _finished_query(player_id: int, against: int | None) -> Any:
    query = (
        select(Seat.game_id)
        .join(Game, col(Game.id) == col(Seat.game_id))
        .where(Seat.player_id == player_id, Game.status == "over")
    )
    if against is not None:
        theirs = select(Seat.game_id).where(Seat.player_id == against)
        query = query.where(col(Seat.game_id).in_(theirs))
    return query.distinct()


def finished_games(
    session: Session, site: Site, player_id: int, page: int = 0, against: int | None = None
) -> tuple[list[Finished], bool]:
    """A page of the player's finished games, most recent first (with `against`: only those
    with that player), and whether there are more."""
    ids = _finished_query(player_id, against).subquery()
    games = list(
        session.exec(
            select(Game)
            .where(col(Game.id).in_(select(ids.c.game_id)))
            .order_by(col(Game.finished_at).desc(), col(Game.id).desc())
            .offset(page * PAGE_SIZE)
            .limit(PAGE_SIZE + 1)
        )
    )
    more = len(games) > PAGE_SIZE
    games = games[:PAGE_SIZE]
    seats: dict[int, list[Seat]] = {}
    for seat in session.exec(
        select(Seat)
        .where(col(Seat.game_id).in_([game.id for game in games]))
        .order_by(col(Seat.game_id), col(Seat.seat))
    ):
        seats.setdefault(seat.game_id, []).append(seat)
    public = public_ids(session, [s.player_id for table in seats.values() for s in table])
    found = []
    for game in games:
        outcome = game.outcome or {}
        ranks, scores = outcome.get("ranks", []), outcome.get("scores", [])
        table = seats.get(game.id or 0, [])
        # A computer's account may hold several seats of a game: its best one is its result,
        # as in a head-to-head; its other seats are among the others, by their seat names.
        mine = min(
            (s for s in table if s.player_id == player_id), key=lambda s: (ranks[s.seat], s.seat)
        )
        others = [
            Opponent(s.player_id, s.name, ranks[s.seat], scores[s.seat], s.player_id in public)
            for s in table
            if s.seat != mine.seat
        ]
        found.append(
            Finished(
                game.id or 0,
                game.slug,
                game.finished_at,
                game.rated,
                ranks[mine.seat],
                scores[mine.seat],
                len(table),
                others,
                site.watch_url(game),
                [o.name for o in others if o.rank == ranks[mine.seat]],
            )
        )
    return found, more


def seats_held(session: Session, player_id: int, game_ids: list[int]) -> dict[int, Seat]:
    """The player's own seat in each of these games they sat at (their first, if several)."""
    held: dict[int, Seat] = {}
    for seat in session.exec(
        select(Seat)
        .where(Seat.player_id == player_id, col(Seat.game_id).in_(game_ids))
        .order_by(col(Seat.seat).desc())
    ):
        held[seat.game_id] = seat
    return held


def head_to_head(session: Session, player_id: int, against: int) -> HeadToHead:
    """Wins, draws and losses of `player_id` against `against` in their finished games."""
    ids = _finished_query(player_id, against).limit(HEAD_TO_HEAD_MOST).subquery()
    rows = session.exec(
        select(Seat.game_id, Seat.player_id, Seat.seat, Game.outcome)
        .join(Game, col(Game.id) == col(Seat.game_id))
        .where(
            col(Seat.game_id).in_(select(ids.c.game_id)),
            col(Seat.player_id).in_([player_id, against]),
        )
    ).all()
    best: dict[tuple[int, int], int] = {}  # (game, player): their best rank in it
    for game_id, pid, seat, outcome in rows:
        rank = (outcome or {}).get("ranks", [])[seat]
        key = (game_id, pid)
        best[key] = min(best.get(key, rank), rank)
    wins = draws = losses = 0
    for game_id in {game for game, _ in best}:
        mine, theirs = best.get((game_id, player_id)), best.get((game_id, against))
        if mine is None or theirs is None:
            continue
        if mine < theirs:
            wins += 1
        elif mine == theirs:
            draws += 1
        else:
            losses += 1
    return HeadToHead(wins, draws, losses)


def blocked_names(session: Session, player_id: int) -> list[tuple[int, str]]:
    """The players `player_id` blocks, as (id, name), oldest block first."""
    ids = blocked_by(session, player_id)
    names = dict(session.exec(select(Player.id, Player.name).where(col(Player.id).in_(ids))).all())
    return [(pid, names[pid]) for pid in ids if pid in names]
