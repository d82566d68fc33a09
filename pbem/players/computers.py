"""Computer players at the table: the accounts they sit in, and their addresses.

A seat is played by a computer when the creator made it a computer seat (`Seat.computer`
names the level), or while its person is marked absent after their timeouts and the game
has a takeover level (`Game.takeover`), until they press "I'm back". Such a seat is due
from `Seat.computer_due_at`; only the clock or a `pbem computers` worker moves them
(`pbem.clock.computer_play`).
Which level plays a seat now is `pbem.models.level_for`, asked by pages and the clock too;
whether an address is a computer's, `pbem.models.is_computer_email`, asked by mail and ratings.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, select

from pbem.bots import LEVELS
from pbem.models import COMPUTER_DOMAIN, Player

__all__ = ["LEVELS", "computer_player"]


def computer_player(session: Session, level: str, now: datetime) -> Player:
    """The player row that stands for the computer at `level` (made the first time)."""
    email = f"{level}@{COMPUTER_DOMAIN}"
    player = session.exec(select(Player).where(Player.email == email)).first()
    if player is None:
        player = Player(email=email, name=level, notify="none", created_at=now)
        session.add(player)
        session.flush()
    return player
