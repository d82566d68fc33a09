"""Blocks between players: a blocked pair is never seated together by the server again (open
tables, standing seeks, leagues), and the blocked one's private messages are hidden from
the blocker. A block is one-sided to make, but keeps the two apart either way."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import and_, or_
from sqlmodel import Session, col, delete, select

from pbem.errors import PlayError
from pbem.models import Block


def block(session: Session, player_id: int, blocked_id: int, now: datetime) -> None:
    """`player_id` blocks `blocked_id` (again: nothing new)."""
    if player_id == blocked_id:
        raise PlayError("block.error.self")
    found = session.exec(
        select(Block).where(Block.player_id == player_id, Block.blocked_id == blocked_id)
    ).first()
    if found is None:
        session.add(Block(player_id=player_id, blocked_id=blocked_id, created_at=now))
        session.flush()


def unblock(session: Session, player_id: int, blocked_id: int) -> None:
    """`player_id` lifts their block of `blocked_id`, if any."""
    session.exec(
        delete(Block).where(col(Block.player_id) == player_id, col(Block.blocked_id) == blocked_id)
    )


def blocked_by(session: Session, player_id: int) -> list[int]:
    """The players `player_id` blocks, oldest block first."""
    rows = session.exec(
        select(Block.blocked_id).where(Block.player_id == player_id).order_by(col(Block.id))
    )
    return list(rows)


def apart(session: Session, player_ids: Iterable[int]) -> set[frozenset[int]]:
    """The pairs among `player_ids` that must not sit together (a block either way)."""
    ids = sorted(set(player_ids))
    if len(ids) < 2:
        return set()
    rows = session.exec(
        select(Block.player_id, Block.blocked_id).where(
            col(Block.player_id).in_(ids), col(Block.blocked_id).in_(ids)
        )
    )
    return {frozenset((a, b)) for a, b in rows}


def kept_apart(session: Session, player_id: int, others: Iterable[int]) -> bool:
    """Whether `player_id` may not be seated with any of `others` (a block either way)."""
    others = [other for other in set(others) if other != player_id]
    if not others:
        return False
    found = session.exec(
        select(Block.id).where(
            or_(
                and_(col(Block.player_id) == player_id, col(Block.blocked_id).in_(others)),
                and_(col(Block.blocked_id) == player_id, col(Block.player_id).in_(others)),
            )
        )
    ).first()
    return found is not None
