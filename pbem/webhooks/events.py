"""Webhook events: their facts queued in the transaction of what caused them (the move, the
sweep), their bodies written by the deliverer after commit.

A player's own webhook hears about their turns, reminders and results, with their seat
link; a table's webhook (added by the game's creator) hears about everyone's, with the
watch link only. A message names players and the game, nothing a hand holds.
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import Session, and_, col, or_, select

from pbem.models import Game, Player, Seat, Webhook, WebhookDelivery
from pbem.present.text import game_name, say
from pbem.present.timefmt import deadline_context
from pbem.site import Site
from pbem.storage.rawsql import Runner, compiled, connection_of, fetch, sqlalchemy_of
from pbem.storage.writes import Writes

EVENTS = frozenset(
    {
        "your_turn",
        "reminder",
        "deadline_warning",
        "game_over",
        "takeback_asked",  # to the player asked to agree (their mail's event)
        "takeback_refused",  # to the mover (their mail's event)
        "taken_back",  # the mover's move left the log (pbem.takeback.consent.answer)
    }
)
# Events only a table's webhooks hear, once per occasion (queue_table_event): pbem can no
# longer mail a seat's player (issue 46).
TABLE_EVENTS = frozenset({"mail_bouncing"})


# Every webhook of a game's table and of its seats' players, in one query built once.
_OF_GAME_WHERE = and_(
    Webhook.enabled == True,  # noqa: E712
    or_(
        col(Webhook.game_id) == bindparam("game_id"),
        and_(
            col(Webhook.game_id).is_(None),
            col(Webhook.player_id).in_(
                select(Seat.player_id).where(col(Seat.game_id) == bindparam("game_id"))
            ),
        ),
    ),
)
_OF_GAME = select(Webhook).where(_OF_GAME_WHERE).order_by(col(Webhook.id))
# Whether there is any, as Core: most games have none, and the ORM's query for no objects
# cost several times this one (every move asks).
_ANY_OF_GAME = (
    select(Webhook.__table__.c.id).where(_OF_GAME_WHERE).limit(1)  # type: ignore[attr-defined]
)


def hooks_of_game(session: Runner, game_id: int | None) -> list[Webhook]:
    """The enabled webhooks that hear of the game: its table's, and its seats' players'
    (read on a bare connection: in a session of its own, made only when there are some)."""
    params = {"game_id": game_id}
    connection = connection_of(session)
    # On the driver's cursor (pbem.storage.rawsql): every move and API move asks this.
    statement = compiled(connection.dialect, ("any webhook of game",), lambda: _ANY_OF_GAME)
    if not fetch(connection, statement, statement.parameters(params)):
        return []
    if isinstance(session, Session):
        return list(session.exec(_OF_GAME, params=params).all())
    with Session(bind=sqlalchemy_of(connection), expire_on_commit=False) as own:
        return list(own.exec(_OF_GAME, params=params).all())


def _hears(hook: Webhook, game: Game, seat: Seat) -> bool:
    """Whether `hook` hears of `seat`'s events: the player's own, or the table's."""
    return hook.game_id == game.id or (hook.game_id is None and hook.player_id == seat.player_id)


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
    writes: Writes,
    hooks: list[Webhook],
    site: Site,
    game: Game,
    seat: Seat,
    event: str,
    now: datetime,
    names: list[str],
) -> int:
    """Queue `event` for `seat` to those of the game's `hooks` that hear it; how many were
    queued.

    Only the facts are written here (in the transaction of what caused the event); the
    deliverer writes the body from them (`body_of`), after commit. A computer seat is
    told nothing: no chat room hears "your move" for a computer."""
    if event not in EVENTS or seat.computer:
        return 0
    queued = 0
    for hook in hooks:
        if not _hears(hook, game, seat):
            continue
        own = hook.game_id is None
        if not own and event == "game_over":
            event_id = f"w{hook.id}.g{game.id}.over"  # one result per table, not one per seat
            # The game ends once (its row moves from active to over once): only the other
            # seats told of this end can have queued it.
            if any(row["event_id"] == event_id for row in writes.added(WebhookDelivery)):
                continue
        else:
            unique = uuid.uuid4().hex[:12]
            event_id = f"w{hook.id}.g{game.id}.{game.ply}.{event}.s{seat.seat}.{unique}"
        facts = {
            "own": own,
            "game": game.id,
            "slug": game.slug,
            "seat": seat.seat,
            "seat_player": seat.player_id,
            "name": seat.name,
            "link": site.seat_url(seat) if own else site.watch_url(game),
            "winners": _winners(game, names),
            "deadline": seat.deadline.isoformat() if seat.deadline is not None else None,
        }
        row = {
            "webhook_id": hook.id or 0,
            "event_id": event_id,
            "event": event,
            "body": "",
            "facts": facts,
            "created_at": now,
            "next_attempt_at": now,
        }
        writes.add(WebhookDelivery, row)
        queued += 1
    return queued


def queue_table_event(
    session: Session,
    hooks: list[Webhook],
    site: Site,
    game: Game,
    seat: Seat,
    event: str,
    occasion: str,
    now: datetime,
) -> int:
    """Queue `event` about `seat` to each of the game's table webhooks among `hooks`, once
    per `occasion` (a second call for the same one finds its events there: the event id is
    made of them); how many were queued. Written in the caller's session, with the facts
    only, as queue_events does."""
    if event not in TABLE_EVENTS or seat.computer:
        return 0
    queued = 0
    for hook in hooks:
        if hook.game_id != game.id:
            continue
        event_id = f"w{hook.id}.g{game.id}.{event}.s{seat.seat}.{occasion}"[:120]
        found = session.exec(
            select(WebhookDelivery.id).where(WebhookDelivery.event_id == event_id)
        ).first()
        if found is not None:
            continue
        facts = {
            "own": False,
            "game": game.id,
            "slug": game.slug,
            "seat": seat.seat,
            "seat_player": seat.player_id,
            "name": seat.name,
            "link": site.watch_url(game),
            "winners": "",
            "deadline": None,
        }
        session.add(
            WebhookDelivery(
                webhook_id=hook.id or 0,
                event_id=event_id,
                event=event,
                body="",
                facts=facts,
                created_at=now,
                next_attempt_at=now,
            )
        )
        queued += 1
    return queued


def render(session: Session, row: WebhookDelivery, hook: Webhook) -> str:
    """The body of a delivery, written from its facts in its owner's language, with the
    time left as it was when the event happened."""
    facts = row.facts or {}
    owner = session.get(Player, hook.player_id)
    lang = owner.lang if owner is not None else "en"
    title = f"{game_name(facts['slug'], lang)} #{facts['game']}"
    texts: dict[str, Any] = {}
    if facts.get("deadline"):
        mover = session.get(Player, facts["seat_player"])
        if mover is not None:
            deadline = datetime.fromisoformat(facts["deadline"])
            texts = deadline_context(deadline, mover, row.created_at)
    own = bool(facts["own"])
    extra = {
        "winners": facts.get("winners", ""),
        "left": texts.get("time_left", ""),
        "deadline": texts.get("deadline_text", ""),
    }
    text = message(row.event, own, lang, facts["name"], title, facts["link"], extra)
    table_result = row.event == "game_over" and not own
    data = {
        "game": {"id": facts["game"], "slug": facts["slug"], "title": title},
        "player": None if table_result else facts["name"],
        "seat": None if table_result else facts["seat"],
        "link": facts["link"],
    }
    return body_for(hook.kind, row.event_id, row.event, text, data, row.created_at)


def body_of(session: Session, row: WebhookDelivery, hook: Webhook) -> str:
    """The delivery's body: the one written at its first attempt, or written now and kept."""
    if not row.body:
        row.body = render(session, row, hook)
        session.add(row)
    return row.body
