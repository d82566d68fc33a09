"""What the settings page shows of webhooks: the player's own, and the table's to its creator."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from sqlmodel import Session, select

from pbem.models import Game, Player, Seat, Webhook
from pbem.webhooks.registry import webhooks_of


def _row(hook: Webhook) -> dict[str, Any]:
    parts = urlsplit(hook.url)
    return {
        "id": hook.id,
        "kind": hook.kind,
        "host": parts.hostname or "",
        # The path of a Discord or Slack URL is its secret: show only its start.
        "shown": f"{parts.scheme}://{parts.netloc}{parts.path[:16]}…",
        "enabled": hook.enabled,
        "secret": hook.secret if hook.kind == "generic" else "",
    }


def settings_webhooks(
    session: Session, player: Player, game_id: int | None, seat_no: int | None
) -> dict[str, Any]:
    """The webhooks section: own rows, table rows, and whether the viewer may add table ones
    (a seat's settings; at /settings, of no game, only the player's own)."""
    game = session.get(Game, game_id) if game_id is not None else None
    if game is None or seat_no is None:
        mine, _ = webhooks_of(session, player, None)
        return {"mine": [_row(h) for h in mine], "table": [], "creator": False}
    seat = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == seat_no)).one()
    mine, table = webhooks_of(session, player, game)
    creator = seat.seat == game.creator_seat
    return {
        "mine": [_row(h) for h in mine],
        "table": [_row(h) for h in table] if creator else [],
        "creator": creator,
    }
