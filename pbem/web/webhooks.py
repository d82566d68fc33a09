"""Add and remove chat-room webhooks from the settings page of a seat."""

from __future__ import annotations

from flask import Blueprint, current_app, redirect, request, url_for
from sqlmodel import select
from werkzeug.wrappers import Response

from pbem.errors import PlayError
from pbem.models import Game, Player, Seat
from pbem.storage.db import write_session
from pbem.web import engine, now
from pbem.web.account import _settings_page
from pbem.web.seats import seat_from
from pbem.webhooks.store import add_webhook, remove_webhook

bp = Blueprint("webhooks", __name__)


def _owner(session: object, game_id: int, seat_no: int) -> tuple[Game, Seat, Player]:
    game = session.get(Game, game_id)  # type: ignore[attr-defined]
    seat = session.exec(  # type: ignore[attr-defined]
        select(Seat).where(Seat.game_id == game_id, Seat.seat == seat_no)
    ).one()
    player = session.get(Player, seat.player_id)  # type: ignore[attr-defined]
    assert game is not None and player is not None
    return game, seat, player


@bp.post("/p/<token>/webhooks")
def add(token: str) -> Response | tuple[str, int]:
    """Add a webhook for the player's turns, or for the table (the creator)."""
    game_id, seat_no = seat_from(token)
    form = request.form
    try:
        with write_session(engine()) as session:
            game, seat, player = _owner(session, game_id, seat_no)
            add_webhook(
                session,
                player,
                game,
                seat,
                form.get("scope", "mine"),
                form.get("url", "")[:600],
                form.get("kind", "auto"),
                bool(current_app.config.get("WEBHOOK_ALLOW_LOOPBACK")),
                now(),
            )
    except PlayError as exc:
        return _settings_page(token, status=exc.status, error=exc)
    return redirect(url_for("account.settings", token=token, saved=1, _anchor="webhooks"), 303)


@bp.post("/p/<token>/webhooks/<int(max=2147483647):webhook_id>/remove")
def remove(token: str, webhook_id: int) -> Response | tuple[str, int]:
    """Remove a webhook."""
    game_id, seat_no = seat_from(token)
    try:
        with write_session(engine()) as session:
            game, seat, player = _owner(session, game_id, seat_no)
            remove_webhook(session, player, game, seat, webhook_id)
    except PlayError as exc:
        return _settings_page(token, status=404, error=exc)
    return redirect(url_for("account.settings", token=token, saved=1, _anchor="webhooks"), 303)
