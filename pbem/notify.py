"""Queue mail: render a template for one recipient and write it to the outbox.

Callers pass their session, so a mail commits with whatever caused it.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlmodel import Session, select

from pbem.games import GAMES
from pbem.links import Site, new_key
from pbem.mail_context import digest_entry, mail_context, player_context
from pbem.mailer import render_mail
from pbem.mailin.context import reply_context
from pbem.models import Game, Outbox, Player, Seat
from pbem.store import player_of, seats_of
from pbem.talk import news_for
from pbem.webhooks.events import queue_events

# Mails that carry the table talk a player has not yet seen.
TALK_EVENTS = {"your_turn", "reminder", "deadline_warning", "timeout", "game_over"}
# Mails a player can turn off; they carry List-Unsubscribe headers.
NOTIFICATIONS = {"your_turn", "reminder", "deadline_warning", "digest"}


def thread_id(site: Site, game: Game) -> str:
    """The Message-ID every mail of the game refers to, so they form one thread."""
    return f"<game-{game.id}@{site.domain}>"


def _headers(site: Site, player: Player, event: str) -> dict[str, str]:
    if event not in NOTIFICATIONS:
        return {}
    if not player.unsubscribe_key:
        player.unsubscribe_key = new_key()
    return {
        "List-Unsubscribe": f"<{site.unsubscribe_url(player)}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    }


def _write(
    session: Session,
    site: Site,
    player: Player,
    to_name: str,
    event: str,
    context: dict[str, Any],
    now: datetime,
    game: Game | None,
) -> Outbox:
    headers = _headers(site, player, event)
    context["unsubscribe_link"] = site.unsubscribe_url(player) if headers else ""
    subject, text, html = render_mail(site.mail_env, event, player.lang, context)
    row = Outbox(
        game_id=game.id if game else None,
        event=event,
        to_addr=player.email,
        to_name=to_name,
        subject=subject,
        body_text=text,
        body_html=html,
        message_id=f"<{uuid.uuid4().hex}.g{game.id if game else 0}@{site.domain}>",
        thread_id=thread_id(site, game) if game else None,
        headers=headers,
        created_at=now,
        next_attempt_at=now,
    )
    session.add(row)
    session.add(player)
    return row


def queue(
    session: Session,
    site: Site,
    game: Game,
    seat: Seat,
    event: str,
    now: datetime,
    extra: dict[str, Any] | None = None,
) -> Outbox | None:
    """Render the mail for `event` to `seat` and put it in the outbox (this transaction);
    a computer seat gets no mail (None)."""
    if seat.computer:
        return None
    player = player_of(session, seat)
    seats = seats_of(session, game)
    context = mail_context(session, site, game, seat, seats, player, event, now)
    context.update(extra or {})
    context.update(reply_context(site, game, seat, event, player.lang, [s.name for s in seats]))
    news = news_for(session, game, seat) if event in TALK_EVENTS else []
    names = [s.name for s in seats]
    context["talk"] = [
        {"who": names[m.seat], "private": m.to_seat is not None, "text": m.text} for m in news
    ]
    row = _write(session, site, player, seat.name, event, context, now, game)
    if context["reply_address"]:
        row.headers = {**row.headers, "Reply-To": context["reply_address"]}
    queue_events(session, site, game, seat, event, now, names, context)
    if news:
        seat.told_talk = max(m.id or 0 for m in news)
    seat.told_ply = game.ply
    session.add(seat)
    return row


def queue_player_mail(
    session: Session,
    site: Site,
    player: Player,
    event: str,
    now: datetime,
    extra: dict[str, Any] | None = None,
) -> Outbox:
    """A mail about the player rather than one game (vacations)."""
    context = player_context(site, player, now)
    context.update(extra or {})
    return _write(session, site, player, player.name, event, context, now, None)


def queue_digest(session: Session, site: Site, player: Player, now: datetime) -> bool:
    """The daily list of games waiting for the player; nothing when none is."""
    entries = []
    seats = session.exec(select(Seat).where(Seat.player_id == player.id)).all()
    for seat in seats:
        game = session.get(Game, seat.game_id)
        if game is None or game.status != "active" or game.state is None:
            continue
        if seat.seat in GAMES[game.slug].to_act(game.state):
            entries.append(digest_entry(session, site, game, seat, player, now))
    if not entries:
        return False
    context = player_context(site, player, now)
    context["games"] = sorted(entries, key=lambda e: (e["deadline"] is None, e["deadline"] or now))
    _write(session, site, player, player.name, "digest", context, now, None)
    for seat in seats:
        session.add(seat)
    return True
