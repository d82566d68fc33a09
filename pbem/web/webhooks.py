"""Add and remove chat-room webhooks from the settings page (a seat's, or /settings)."""

from __future__ import annotations

from flask import Blueprint, current_app, redirect, request
from sqlmodel import Session, select
from werkzeug.wrappers import Response

from pbem.config import settings_of
from pbem.errors import PlayError
from pbem.models import Game, Player, Seat
from pbem.storage.db import write_session
from pbem.web import engine, now
from pbem.web.account import SIGNED_IN, Owner, owner_of, settings_page
from pbem.webhooks.registry import add_webhook, remove_webhook

bp = Blueprint("webhooks", __name__)


def _rows(session: Session, owner: Owner) -> tuple[Game | None, Seat | None, Player]:
    """The owner's game, seat and player; at /settings no game or seat (own webhooks only)."""
    player = owner.player(session)
    if owner.game_id is None:
        return None, None, player
    game = session.get(Game, owner.game_id)
    seat = session.exec(
        select(Seat).where(Seat.game_id == owner.game_id, Seat.seat == owner.seat_no)
    ).one()
    assert game is not None
    return game, seat, player


@bp.post("/p/<token>/webhooks")
@bp.post("/settings/webhooks", endpoint="my_add", defaults=SIGNED_IN)
def add(token: str) -> Response | tuple[str, int]:
    """Add a webhook for the player's turns, or for the table (the creator)."""
    owner = owner_of(token)
    form = request.form
    try:
        with write_session(engine()) as session:
            game, seat, player = _rows(session, owner)
            add_webhook(
                session,
                player,
                game,
                seat,
                form.get("scope", "mine"),
                form.get("url", "")[:600],
                form.get("kind", "auto"),
                settings_of(current_app).webhook_allow_loopback,
                now(),
            )
    except PlayError as exc:
        return settings_page(owner, status=exc.status, error=exc)
    return redirect(owner.link("page", saved=1, _anchor="webhooks"), 303)


@bp.post("/p/<token>/webhooks/<int(max=2147483647):webhook_id>/remove")
@bp.post(
    "/settings/webhooks/<int(max=2147483647):webhook_id>/remove",
    endpoint="my_remove",
    defaults=SIGNED_IN,
)
def remove(token: str, webhook_id: int) -> Response | tuple[str, int]:
    """Remove a webhook."""
    owner = owner_of(token)
    try:
        with write_session(engine()) as session:
            game, seat, player = _rows(session, owner)
            remove_webhook(session, player, game, seat, webhook_id)
    except PlayError as exc:
        return settings_page(owner, status=404, error=exc)
    return redirect(owner.link("page", saved=1, _anchor="webhooks"), 303)
