"""The table told when a player's address turns bouncing or complains (issue 46, part 4)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session

from pbem.models import MailAddress


def told_bouncing(session: Session, site: Any, row: MailAddress, now: datetime) -> None:
    """Tell the games of `row`'s address, in the caller's transaction, that its mail no longer
    arrives (it just turned bouncing or complained): each active game's creator gets one
    mail, each table webhook one event. The seat pages, the API and the other seats' turn
    mails read the state themselves (pbem.bounces.state)."""
