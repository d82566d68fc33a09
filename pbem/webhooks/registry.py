"""Adding, listing and removing webhooks: a player's own, or a table's (its creator only)."""

from __future__ import annotations

import secrets
from datetime import datetime

from sqlalchemy import delete
from sqlmodel import Session, select

from pbem.errors import PlayError
from pbem.models import Game, Player, Seat, Webhook, WebhookDelivery
from pbem.webhooks.urls import KINDS, WebhookError, check_url, detect_kind

MAX_OWN = 5  # webhooks a player may keep for their own turns
MAX_TABLE = 3  # webhooks a game's table may have


def add_webhook(
    session: Session,
    player: Player,
    game: Game | None,
    seat: Seat | None,
    scope: str,
    url: str,
    kind: str,
    allow_loopback: bool,
    now: datetime,
) -> Webhook:
    """Add a webhook for the player's turns ("mine") or the game's table ("table", creator);
    from the settings page of no game (/settings), `game` and `seat` are None."""
    try:
        url = check_url(url, allow_loopback)
    except WebhookError as exc:
        raise PlayError(exc.key) from None
    kind = detect_kind(url) if kind in ("", "auto") else kind
    if kind not in KINDS:
        raise PlayError("webhook.error.kind")
    if scope == "table":
        if game is None or seat is None or seat.seat != game.creator_seat:
            raise PlayError("webhook.error.not_creator")
        existing = session.exec(select(Webhook).where(Webhook.game_id == game.id)).all()
        limit = MAX_TABLE
    elif scope == "mine":
        existing = session.exec(
            select(Webhook).where(Webhook.player_id == player.id, Webhook.game_id == None)  # noqa: E711
        ).all()
        limit = MAX_OWN
    else:
        raise PlayError("webhook.error.kind")
    if len([h for h in existing if h.enabled]) >= limit:
        raise PlayError("webhook.error.too_many")
    hook = Webhook(
        player_id=player.id or 0,
        game_id=game.id if scope == "table" and game is not None else None,
        kind=kind,
        url=url,
        secret=secrets.token_hex(32),
        created_at=now,
    )
    session.add(hook)
    session.flush()
    return hook


def webhooks_of(
    session: Session, player: Player, game: Game | None
) -> tuple[list[Webhook], list[Webhook]]:
    """The player's own webhooks, and the game's table webhooks (none without a game)."""
    mine = session.exec(
        select(Webhook)
        .where(Webhook.player_id == player.id, Webhook.game_id == None)  # noqa: E711
        .order_by(Webhook.id)  # type: ignore[arg-type]
    ).all()
    if game is None:
        return list(mine), []
    table = session.exec(
        select(Webhook).where(Webhook.game_id == game.id).order_by(Webhook.id)  # type: ignore[arg-type]
    ).all()
    return list(mine), list(table)


def remove_webhook(
    session: Session, player: Player, game: Game | None, seat: Seat | None, webhook_id: int
) -> None:
    """Remove one of the player's webhooks, or (the creator) one of the table's."""
    hook = session.get(Webhook, webhook_id)
    if hook is None:
        raise PlayError("webhook.error.not_found")
    own = hook.game_id is None and hook.player_id == player.id
    table = (
        game is not None
        and seat is not None
        and hook.game_id == game.id
        and seat.seat == game.creator_seat
    )
    if not (own or table):
        raise PlayError("webhook.error.not_found")
    session.execute(delete(WebhookDelivery).where(WebhookDelivery.webhook_id == hook.id))  # type: ignore[arg-type]
    session.delete(hook)
