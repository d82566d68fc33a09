"""A league's rows as the other league modules read them: the league locked, its members,
its games with their players and results."""

from __future__ import annotations

from collections import defaultdict

from sqlmodel import Session, col, select

from pbem.errors import Gone
from pbem.games import GAMES
from pbem.leagues.standings import Result
from pbem.models import Game, League, LeagueGame, LeagueMember, Seat
from pbem.storage.store import lock_row


def least_at_table(league: League) -> int:
    """The fewest players a table of the league seats: tables of two or three are full;
    larger tables may have one player less, so that fewer sit a round out."""
    size = league.table_size
    return size if size <= 3 else max(GAMES[league.slug].min_players, size - 1)


def lock_league(session: Session, league_id: int) -> League:
    """The league row, locked for this transaction; Gone when there is none."""
    return lock_row(session, League, league_id, Gone("league.error.none"))


def member_of(session: Session, league_id: int, player_id: int) -> LeagueMember | None:
    """The player's membership of the league, if any."""
    return session.exec(
        select(LeagueMember).where(
            LeagueMember.league_id == league_id, LeagueMember.player_id == player_id
        )
    ).first()


def members(session: Session, league_id: int, *statuses: str) -> list[LeagueMember]:
    """The league's members (of these statuses, if given), in the order they were added."""
    query = select(LeagueMember).where(LeagueMember.league_id == league_id)
    if statuses:
        query = query.where(col(LeagueMember.status).in_(statuses))
    return list(session.exec(query.order_by(col(LeagueMember.id))))


class Played:
    """The league's games and byes as read once: each game with its seats, by round."""

    def __init__(self, session: Session, league_id: int) -> None:
        rows = session.exec(
            select(LeagueGame, Game)
            .join(Game, col(Game.id) == col(LeagueGame.game_id), isouter=True)
            .where(LeagueGame.league_id == league_id)
            .order_by(col(LeagueGame.round), col(LeagueGame.id))
        ).all()
        ids = [game.id for _, game in rows if game is not None]
        seats: dict[int, list[Seat]] = defaultdict(list)
        if ids:
            found = session.exec(
                select(Seat).where(col(Seat.game_id).in_(ids)).order_by(col(Seat.seat))
            )
            for seat in found:
                seats[seat.game_id].append(seat)
        self.games: list[tuple[int, Game, list[Seat]]] = [
            (row.round, game, seats[game.id or 0]) for row, game in rows if game is not None
        ]
        self.byes: list[tuple[int, int]] = [
            (row.round, row.bye_player_id) for row, game in rows if row.bye_player_id is not None
        ]

    def results(self) -> list[Result]:
        """Every game that counts (a called-off one does not), with its ranks once over."""
        out = []
        for _, game, seats in self.games:
            if game.status == "cancelled":
                continue
            over = game.status == "over" and game.outcome is not None
            ranks = tuple(game.outcome["ranks"]) if over and game.outcome else None
            out.append(Result(tuple(s.player_id for s in seats), ranks))
        return out

    def bye_players(self) -> list[int]:
        """Who had a Swiss bye, once per bye."""
        return [player for _, player in self.byes]

    def round_over(self, number: int) -> bool:
        """Whether every game of round `number` (0: of every round) has ended."""
        return all(
            game.status in ("over", "cancelled")
            for round_no, game, _ in self.games
            if number in (0, round_no)
        )
