"""Helpers for the webhook tests: add a webhook as a seat would, play moves, read the queue."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import select

from pbem import moves, play
from pbem.games import GAMES
from pbem.models import Game, Player, Seat, Webhook, WebhookDelivery
from pbem.storage.db import read_session, write_session
from pbem.webhooks.registry import add_webhook

PLAYERS = [
    play.Invitee("Ana", "ana@example.org", "en"),
    play.Invitee("Léo", "leo@example.org", "fr"),
    play.Invitee("Zoé", "zoe@example.org", "en"),
]


def engine_of(app: Any) -> Any:
    """The app's database engine."""
    return app.extensions["pbem"]["engine"]


def add_hook(app: Any, game_id: int, seat_no: int, scope: str, url: str, kind: str) -> Webhook:
    """Add a webhook for a seat's player ("mine") or the table, loopback allowed."""
    with write_session(engine_of(app)) as session:
        game = session.get(Game, game_id)
        seat = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == seat_no)).one()
        player = session.get(Player, seat.player_id)
        return add_webhook(
            session, player, game, seat, scope, url, kind, True, app.config["CLOCK"]()
        )


def move(app: Any, game_id: int) -> int:
    """Play the first legal move of the seat to act; return the seat that acts next."""
    engine, site = engine_of(app), app.extensions["pbem"]["site"]
    with write_session(engine) as session:
        game = session.get(Game, game_id)
        rules = GAMES[game.slug]
        seat = rules.to_act(game.state)[0]
        chosen = rules.legal_moves(game.state, seat)[0]
        moves.submit_move(session, site, game_id, seat, chosen, rules.turn_token(game.state, seat),
                         app.config["CLOCK"]())  # fmt: skip
    with read_session(engine) as session:
        game = session.get(Game, game_id)
        return GAMES[game.slug].to_act(game.state)[0] if game.status == "active" else -1


def seat_to_act(app: Any, game_id: int) -> int:
    """The seat whose move it is."""
    with read_session(engine_of(app)) as session:
        game = session.get(Game, game_id)
        return GAMES[game.slug].to_act(game.state)[0]


def deliveries(app: Any) -> list[WebhookDelivery]:
    """Every queued webhook event, oldest first."""
    with read_session(engine_of(app)) as session:
        return list(session.exec(select(WebhookDelivery).order_by(WebhookDelivery.id)))


@dataclass
class Drip:
    """An answer sent one byte every `every` seconds (DRIPPED, 200): until `release` is set,
    then the rest at once; for the next `times` requests to its path."""

    every: float
    release: threading.Event | None = None
    times: int = 1
    released: bool = False  # the release came while a request was held
    cut: bool = False  # the client hung up before the whole answer was sent
    ended: threading.Event = field(default_factory=threading.Event)


def body_of(request: dict[str, Any]) -> Any:
    return json.loads(request["body"])
