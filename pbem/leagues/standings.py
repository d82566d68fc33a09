"""A league's standings from its games' results: points by rank, then the tiebreaks. Pure.

Points: a game of n players gives the k-th place (n - k) / (n - 1) points: 1 to the winner
and 0 to the last; in a two-player game a win is 1, a draw 1/2 each, a loss 0. Players who
share a place share the points of the places they fill. A Swiss bye is worth 1.
Tiebreaks, in order: Sonneborn-Berger (for each game, the points you took in it times the
mean league points of those you played there, summed), then games won (first place,
shared or not), then the order the caller gives (by name).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

BYE_POINTS = 1.0


@dataclass(frozen=True)
class Result:
    """One league game: its players in seat order and their ranks (1: first), or None
    while it is being played."""

    players: tuple[int, ...]
    ranks: tuple[int, ...] | None


@dataclass
class Standing:
    """One player's line of the table."""

    player_id: int
    points: float = 0.0
    played: int = 0
    won: int = 0
    byes: int = 0
    playing: int = 0  # games not over yet
    tiebreak: float = 0.0  # Sonneborn-Berger
    place: int = 0  # shared by equal lines
    games: list[tuple[float, tuple[int, ...]]] = field(default_factory=list, repr=False)


def points_by_rank(ranks: Sequence[int]) -> list[float]:
    """Each seat's points for the game's `ranks` (1 best; equal ranks are a shared place)."""
    count = len(ranks)
    if count < 2:
        return [0.0] * count
    order = sorted(range(count), key=lambda seat: ranks[seat])
    points = [0.0] * count
    place = 0
    while place < count:
        tied = [s for s in order if ranks[s] == ranks[order[place]]]
        filled = range(place + 1, place + len(tied) + 1)  # the places the tied share
        share = sum((count - p) / (count - 1) for p in filled) / len(tied)
        for seat in tied:
            points[seat] = share
        place += len(tied)
    return points


def standings(
    players: Sequence[int], results: Sequence[Result], byes: Sequence[int]
) -> list[Standing]:
    """The table, best first, for `players` (in the order that breaks the last ties)."""
    lines = {p: Standing(p) for p in players}
    for result in results:
        if result.ranks is None:
            for p in result.players:
                if p in lines:
                    lines[p].playing += 1
            continue
        for p, got, rank in zip(
            result.players, points_by_rank(result.ranks), result.ranks, strict=True
        ):
            if p not in lines:
                continue
            line = lines[p]
            line.points += got
            line.played += 1
            line.won += rank == 1
            line.games.append((got, tuple(q for q in result.players if q != p)))
    for p in byes:
        if p in lines:
            lines[p].points += BYE_POINTS
            lines[p].byes += 1
    totals: dict[int, float] = defaultdict(float, {p: line.points for p, line in lines.items()})
    for line in lines.values():
        line.tiebreak = sum(
            got * sum(totals[q] for q in others) / len(others)
            for got, others in line.games
            if others
        )
    given = {p: i for i, p in enumerate(players)}
    table = sorted(
        lines.values(), key=lambda s: (-s.points, -s.tiebreak, -s.won, given[s.player_id])
    )
    for i, line in enumerate(table):
        same = i and _key(table[i - 1]) == _key(line)
        line.place = table[i - 1].place if same else i + 1
    return table


def _key(line: Standing) -> tuple[float, float, int]:
    return (round(line.points, 6), round(line.tiebreak, 6), line.won)
