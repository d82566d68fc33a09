"""Ratings: Glicko-2 per game kind (a game slug), moved in the transaction that ends a rated
game; the computer levels carry fixed ratings measured by bench/bots.py.

`shown` is what pages, mails and the API read: a player's rating in a kind, or the
starting rating for one who has played no rated game of it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlmodel import Session, col, select

from pbem.models import COMPUTER_DOMAIN, Player, Rating

START_RATING = 1500.0
START_DEVIATION = 350.0
START_VOLATILITY = 0.06

# The computer levels' ratings, fixed: bench/bots.py's round robins, anchored at its
# outside opponent's 1500 (README, "How strong they are"; bench/README.md, issue 35).
COMPUTER_RATINGS: dict[str, dict[str, float]] = {
    "colour-bazaar": {"strong": 2189.0, "casual": 2003.0, "beginner": 1324.0},
    "fantasy-business": {"strong": 1754.0, "casual": 1650.0, "beginner": 1168.0},
}
# A fixed rating is known, not guessed: the deviation a well-settled player has.
COMPUTER_DEVIATION = 50.0


@dataclass(frozen=True)
class Shown:
    """A rating as shown: rounded, with whether it is still provisional."""

    rating: int
    deviation: int
    games: int

    @property
    def provisional(self) -> bool:
        """Glicko's rule of thumb: an RD above 110 is not yet a settled rating."""
        return self.deviation > 110


def start() -> Shown:
    """The rating of a player with no rated game in a kind."""
    return Shown(int(START_RATING), int(START_DEVIATION), 0)


def shown(session: Session, player_ids: Iterable[int], kind: str) -> dict[int, Shown]:
    """The ratings of these players in `kind`, with the start for those with none."""
    ids = sorted(set(player_ids))
    found = {pid: start() for pid in ids}
    if not ids:
        return found
    for row in session.exec(
        select(Rating).where(col(Rating.player_id).in_(ids), Rating.kind == kind)
    ):
        found[row.player_id] = Shown(round(row.rating), round(row.deviation), row.games)
    found.update(computer_ratings(session, ids, kind))
    return found


def computer_level(email: str) -> str | None:
    """The level a computer player's account (level@computer.invalid) plays at, or None."""
    level, _, domain = email.partition("@")
    return level if domain == COMPUTER_DOMAIN else None


def computer_ratings(session: Session, player_ids: list[int], kind: str) -> dict[int, Shown]:
    """The fixed ratings of the computer players' accounts among `player_ids` in `kind`."""
    fixed = COMPUTER_RATINGS.get(kind, {})
    rows = session.exec(
        select(Player.id, Player.email).where(
            col(Player.id).in_(player_ids), col(Player.email).endswith("@" + COMPUTER_DOMAIN)
        )
    )
    found = {}
    for player_id, email in rows:
        level = computer_level(email)
        if player_id is not None and level in fixed:
            found[player_id] = Shown(round(fixed[level]), round(COMPUTER_DEVIATION), 0)
    return found
