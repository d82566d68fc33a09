"""Webhook events, queued in the transaction of what caused them (the move, the sweep).

A player's own webhook hears about their turns, reminders and results, with their seat
link; a table's webhook (added by the game's creator) hears about everyone's, with the
watch link only. A message names players and the game, nothing a hand holds.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlmodel import Session, or_, select

from pbem.models import Game, Player, Seat, Webhook, WebhookDelivery
from pbem.present.text import game_name, say

EVENTS = frozenset({"your_turn", "reminder", "deadline_warning", "game_over"})


def _winners(game: Game, names: list[str]) -> str:
    if not game.outcome:
        return ""
    ranks = game.outcome.get("ranks", [])
    return ", ".join(names[n] for n, rank in enumerate(ranks) if rank == 1 and n < len(names))


def message(
    event: str, own: bool, lang: str, name: str, title: str, link: str, extra: dict[str, Any]
) -> str:
    """The event in one line of the owner's language, the link at the end."""
    key = f"webhook.{'own' if own else 'table'}.{event}"
    return say(lang, key, name=name, title=title, link=link, **extra)


def body_for(
    kind: str, event_id: str, event: str, text: str, data: dict[str, Any], now: datetime
) -> str:
    """The JSON a webhook of `kind` expects."""
    if kind == "discord":
        # No @everyone, @here or role pings, whatever a player's name says.
        return json.dumps({"content": text[:1900], "allowed_mentions": {"parse": []}})
    if kind == "slack":
        # Slack reads <...> as links and mentions (<!channel>): escape as its docs say.
        safe = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return json.dumps({"text": safe})
    return json.dumps(
        {"id": event_id, "event": event, "at": now.isoformat(), "text": text, **data},
        ensure_ascii=False,
    )


def queue_events(
    session: Session,
    site: Any,
    game: Game,
    seat: Seat,
    event: str,
    now: datetime,
    names: list[str],
    context: dict[str, Any] | Callable[[], dict[str, Any]],
) -> int:
    """Queue `event` for `seat` to the webhooks that hear it; how many were queued.

    `context` gives the mail's deadline texts (`time_left`, `deadline_text`); a callable
    is called only when a webhook listens, so a move with none formats nothing.
    A computer seat is told nothing: no chat room hears "your move" for a computer."""
    if event not in EVENTS or seat.computer:
        return 0
    hooks = session.exec(
        select(Webhook).where(
            Webhook.enabled == True,  # noqa: E712
            or_(
                (Webhook.player_id == seat.player_id) & (Webhook.game_id == None),  # noqa: E711
                Webhook.game_id == game.id,
            ),
        )
    ).all()
    queued = 0
    title_cache: dict[str, str] = {}
    if not hooks:
        return 0
    texts = context() if callable(context) else context
    for hook in hooks:
        own = hook.game_id is None
        if not own and event == "game_over":
            event_id = f"w{hook.id}.g{game.id}.over"  # one result per table, not one per seat
            seen = session.exec(
                select(WebhookDelivery.id).where(WebhookDelivery.event_id == event_id)
            ).first()
            if seen is not None:
                continue
        else:
            unique = uuid.uuid4().hex[:12]
            event_id = f"w{hook.id}.g{game.id}.{game.ply}.{event}.s{seat.seat}.{unique}"
        owner = session.get(Player, hook.player_id)
        lang = owner.lang if owner is not None else "en"
        if lang not in title_cache:
            title_cache[lang] = f"{game_name(game.slug, lang)} #{game.id}"
        link = site.seat_url(seat) if own else site.watch_url(game)
        extra = {
            "winners": _winners(game, names),
            "left": texts.get("time_left", ""),
            "deadline": texts.get("deadline_text", ""),
        }
        text = message(event, own, lang, seat.name, title_cache[lang], link, extra)
        data = {
            "game": {"id": game.id, "slug": game.slug, "title": title_cache[lang]},
            "player": None if event == "game_over" and not own else seat.name,
            "seat": None if event == "game_over" and not own else seat.seat,
            "link": link,
        }
        session.add(
            WebhookDelivery(
                webhook_id=hook.id or 0,
                event_id=event_id,
                event=event,
                body=body_for(hook.kind, event_id, event, text, data, now),
                created_at=now,
                next_attempt_at=now,
            )
        )
        queued += 1
    if queued:
        session.flush()
    return queued
