"""A rated game's end moves its players' ratings: one rating period per game, in the
transaction that ends it (pbem.moves.write_move).

Two players: one result, from the ranks (rank 1 beats rank 2; equal ranks draw). More
players: each against every other, by rank, all in the one period. A computer seat counts
as an opponent at its level's fixed rating and is never moved.

A computer never earns a person points: a seat whose player left (leaving resigns, as on
Lichess), or whose player made fewer than FAIR_SHARE of its moves (the server played the rest
on timeouts or as the absent seat's computer), scores as a loss against every seat that was
played, whatever place the server's play finished it in; two such seats draw.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, func, select

from pbem.models import Bar, Game, Move, Rating, RatingChange, Seat
from pbem.ratings import (
    COMPUTER_DEVIATION,
    COMPUTER_RATINGS,
    START_DEVIATION,
    START_RATING,
    START_VOLATILITY,
)
from pbem.ratings.glicko2 import Result, Standing, idle, rate

# Each game is its own rating period; between a player's games, each whole IDLE_PERIOD
# without one counts as an empty period (Glickman: the deviation grows when no game is
# played), so a rating left for months moves faster on the next game.
IDLE_PERIOD = timedelta(days=30)
# The part of a seat's moves its player must make for the seat's place to be theirs: a few
# timeouts in a long game keep it, a computer playing most of it does not.
FAIR_SHARE = 0.75
# Moves the server made for a seat: none of them is its player's.
SERVER_SOURCES = ("timeout", "computer", "left")


@dataclass(frozen=True)
class Place:
    """One seat at the end: its rank, whether it forfeits (scores as a loss), and its player
    (None for a computer seat)."""

    rank: int
    forfeit: bool
    player_id: int | None
    computer: Standing | None


def score(rank: int, other: int) -> float:
    """A pairwise result by rank: the lower rank wins, equal ranks draw."""
    if rank < other:
        return 1.0
    return 0.5 if rank == other else 0.0


def versus(mine: Place, other: Place) -> float:
    """A pairwise result: a forfeit loses to every seat played, two forfeits draw, else the
    ranks decide."""
    if mine.forfeit or other.forfeit:
        return score(int(mine.forfeit), int(other.forfeit))
    return score(mine.rank, other.rank)


def shares(session: Session, game_id: int) -> dict[int, tuple[int, int]]:
    """Each seat's (moves its player made, moves in all) in the game's log."""
    query = (
        select(Move.seat, Move.source, func.count())
        .where(Move.game_id == game_id)
        .group_by(col(Move.seat), col(Move.source))
    )
    found: dict[int, tuple[int, int]] = {}
    for seat, source, count in session.exec(query):
        own, total = found.get(seat, (0, 0))
        found[seat] = (own + (0 if source in SERVER_SOURCES else count), total + count)
    return found


def forfeits(seat: Seat, own: int, total: int) -> bool:
    """Whether a person's seat scores as a loss: they left, or made less than a fair share
    of its moves."""
    return seat.left or own < FAIR_SHARE * total


def _places(
    game_slug: str, seats: list[Seat], ranks: list[int], played: dict[int, tuple[int, int]]
) -> list[Place]:
    """The seats as rated: people by player, computers at their fixed ratings."""
    places = []
    fixed = COMPUTER_RATINGS.get(game_slug, {})
    for seat in seats:
        rank = int(ranks[seat.seat])
        if seat.computer is not None and not seat.left:
            rating = fixed.get(seat.computer, START_RATING)
            places.append(Place(rank, False, None, Standing(rating, COMPUTER_DEVIATION, 0.0)))
        else:
            forfeit = forfeits(seat, *played.get(seat.seat, (0, 0)))
            places.append(Place(rank, forfeit, seat.player_id, None))
    return places


def _locked_ratings(
    session: Session, player_ids: list[int], kind: str, now: datetime
) -> dict[int, Rating]:
    """The players' Rating rows in `kind`, locked (made first for those with none)."""
    ids = sorted(set(player_ids))  # one order for every transaction: no deadlock between them

    def read() -> dict[int, Rating]:
        query = (
            select(Rating)
            .where(col(Rating.player_id).in_(ids), Rating.kind == kind)
            .order_by(col(Rating.player_id))
            .with_for_update()
        )
        return {row.player_id: row for row in session.exec(query)}

    found = read()
    for player_id in ids:
        if player_id in found:
            continue
        try:
            with session.begin_nested():  # another game's end may make the same row first
                session.add(
                    Rating(
                        player_id=player_id,
                        kind=kind,
                        rating=START_RATING,
                        deviation=START_DEVIATION,
                        volatility=START_VOLATILITY,
                        updated_at=now,
                    )
                )
        except IntegrityError:
            pass
    return read() if len(found) < len(ids) else found


def _grown(standing: Standing, row: Rating, now: datetime) -> Standing:
    """A player's standing as their next game finds it: wider for the idle periods since
    their last rated game, never less sure than a newcomer's."""
    periods = (now - row.updated_at) // IDLE_PERIOD if row.games else 0
    grown = idle(standing, periods)
    return Standing(grown.rating, min(grown.deviation, START_DEVIATION), grown.volatility)


def rate_game(session: Session, game_id: int, now: datetime) -> None:
    """Move the ratings of a finished rated game's players, once (again: nothing)."""
    found = session.exec(
        select(Game.slug, Game.rated, Game.outcome, Game.status).where(Game.id == game_id)
    ).first()
    if found is None:
        return
    slug, rated, outcome, status = found
    if not rated or status != "over" or not outcome or "ranks" not in outcome:
        return
    done = session.exec(select(RatingChange.id).where(RatingChange.game_id == game_id)).first()
    if done is not None:
        return
    seats = list(session.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.seat))))
    places = _places(slug, seats, list(outcome["ranks"]), shares(session, game_id))
    # A barred account's games move no rating, theirs or their opponents' (pbem bar).
    ids = [s.player_id for s in seats]
    barred = set(session.exec(select(Bar.player_id).where(col(Bar.player_id).in_(ids))))
    places = [p for p in places if p.player_id not in barred]
    people = sorted({p.player_id for p in places if p.player_id is not None})
    if not people:
        return
    ratings = _locked_ratings(session, people, slug, now)
    before = {
        pid: _grown(Standing(row.rating, row.deviation, row.volatility), row, now)
        for pid, row in ratings.items()
    }
    for player_id in people:
        results = []
        for mine in (p for p in places if p.player_id == player_id):
            for other in places:
                if other.player_id == player_id:
                    continue  # one person in two seats plays no game against themself
                them = other.computer or before[other.player_id or 0]
                results.append(Result(them.rating, them.deviation, versus(mine, other)))
        if not results:
            continue
        row = ratings[player_id]
        after = rate(before[player_id], results)
        session.add(
            RatingChange(
                player_id=player_id,
                game_id=game_id,
                kind=slug,
                before=row.rating,
                after=after.rating,
                deviation=min(after.deviation, START_DEVIATION),
                created_at=now,
            )
        )
        row.rating = after.rating
        # A rating is never less sure than a newcomer's.
        row.deviation = min(after.deviation, START_DEVIATION)
        row.volatility = after.volatility
        row.games += 1
        row.updated_at = now
        session.add(row)
    session.flush()
