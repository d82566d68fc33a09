"""Render a queued outbox row into its mail: the sender does this after the move committed.

The row says what to send and to whom; the recipient's language, time zone and
name come from their Player row now, and the game as it stood at the row's ply
from the facts notify.queue recorded and the move log up to that ply.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy.orm import configure_mappers
from sqlmodel import Session
from sqlmodel import select as select_models

from pbem.games.message import Message
from pbem.mailout import reviewmail
from pbem.mailout.context import digest_entry, mail_context, player_context
from pbem.mailout.mailer import render_mail
from pbem.mailout.mailrows import mail_rows, plays_until
from pbem.mailout.notify import NOTIFICATIONS, decode, decode_facts
from pbem.mailout.replies import offers_reply, refusal_moves, reply_context
from pbem.models import Game, Move, Outbox, Player, Seat, is_computer_email
from pbem.players import reports, signin
from pbem.players.talk import visible
from pbem.present.replay import state_at
from pbem.present.text import render
from pbem.site import ADDRESS_TTL, Site
from pbem.storage.store import player_by_id, seats_of, shuffles_of


@dataclass
class Rendered:
    """What the sender stores in the row before sending it."""

    to_addr: str
    to_name: str
    subject: str
    body_text: str
    body_html: str
    headers: dict[str, str]


class Unrenderable(Exception):
    """The row names a player, game or seat that is not there."""


class NoRecipient(Unrenderable):
    """The mail has nobody to go to (a sign-in link asked for an address no player has, or
    a mail to a computer player)."""


def needs_key(row: Outbox) -> bool:
    """Whether the row's mail carries an unsubscribe link."""
    return row.event in NOTIFICATIONS


def _headers(site: Site, player: Player, event: str) -> dict[str, str]:
    if event not in NOTIFICATIONS:
        return {}
    return {
        "List-Unsubscribe": f"<{site.unsubscribe_url(player)}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    }


def _state_then(
    session: Session, game: Game, seats: list[Seat], ply: int, cache: dict[Any, Any]
) -> dict[str, Any] | None:
    """The game's state at `ply`: the stored one if the game is still there, else replayed
    from its seed and moves (the same seed and moves give the same state), once per drain.
    The replay reads each move's seat and move only, not its log lines."""
    if game.state is None or game.ply == ply:
        return game.state
    key = (game.id, ply)
    if key not in cache:
        moves = cast(list[Move], plays_until(session, game.id or 0, ply))
        cache[key] = state_at(game, len(seats), moves, ply, shuffles_of(session, game))
    state: dict[str, Any] = cache[key]
    return state


def render_row(
    session: Session,
    site: Site,
    row: Outbox,
    states: dict[Any, Any] | None = None,
) -> Rendered:
    """The mail of one queued row, read from this session (which only reads).

    `states` caches the games' states at the rows' plies across one drain."""
    states = states if states is not None else {}
    player: Player | None = None
    if row.player_id is None and row.event == reports.EVENT:
        return _operator_mail(session, site, row)
    facts = decode_facts(row.extra)
    # An ask on /signin names an address, not a player: the player is found now, after the
    # request, so that the request did the same work whoever the address is.
    asked = row.player_id is None and row.event == "signin"
    rows = None
    if row.game_id is not None and not asked:
        # A game's mail: the game, its seats and the player in one read.
        rows = mail_rows(session, row.game_id, row.player_id)
        player = rows.player if rows is not None else None
    if asked:
        player = signin.asker(session, facts.get("email", ""))
        if player is None:
            raise NoRecipient(f"outbox {row.id}: nobody to send it to")
    elif player is None or player.id != row.player_id:
        player = player_by_id(session, row.player_id) if row.player_id is not None else None
    if player is None:
        raise Unrenderable(f"outbox {row.id}: no player")
    if is_computer_email(player.email):
        # Every mail passes here: whatever queued it, none goes to a computer's address.
        raise NoRecipient(f"outbox {row.id}: a computer player")
    now = row.created_at
    to_name = player.name
    if row.game_id is None:
        context = player_context(site, player, now)
        context.update(facts.get("extra", {}))
        if row.event == "digest":
            context["games"] = _digest_entries(session, site, player, facts["games"], now)
        if asked:
            context.update(signin.asked_mail(site, row.id or 0, player))
        if row.event == ADDRESS_CONFIRM:
            context.update(_address_mail(site, row, player))
    else:
        if rows is None or row.seat is None or row.seat >= len(rows.seats):
            raise Unrenderable(f"outbox {row.id}: no game or seat")
        game, seats = rows.game, rows.seats
        seat = seats[row.seat]
        to_name = seat.name
        ply = row.ply or 0
        # The settings link signs the player in once; its row is made when it is used.
        settings_link = signin.mailed_url(site, row.id or 0, player.id or 0)
        context = mail_context(
            session,
            site,
            game,
            seat,
            seats,
            player,
            row.event,
            ply,
            facts,
            now,
            settings_link,
            rows.addresses,
        )
        context.update(facts.get("extra", {}))
        context["talk"] = _talk(session, game, seat, seats, facts.get("talk"))
        context.update(
            _answering(session, site, game, seats, seat, row, facts, states, player.lang)
        )
        if row.event == reviewmail.EVENT:
            try:
                context.update(reviewmail.review_context(session, site, seat, seats, player.lang))
            except reviewmail.NoReview as exc:
                raise Unrenderable(f"outbox {row.id}: {exc}") from exc
    headers = _headers(site, player, row.event)
    if context.get("reply_address"):
        headers["Reply-To"] = context["reply_address"]
    link = headers.get("List-Unsubscribe", "")[1:-1]  # signed once: a signature is an HMAC
    context["unsubscribe_link"] = link or (site.unsubscribe_url(player) if headers else "")
    subject, text, html = render_mail(site.mail_templates, row.event, player.lang, context)
    to_addr = player.email
    if row.event == ADDRESS_CONFIRM:
        to_addr = context["new_email"]  # the new address: its owner confirms it by the link
    return Rendered(to_addr, to_name, subject, text, html, headers)


def _operator_mail(session: Session, site: Site, row: Outbox) -> Rendered:
    """A report to the operator, in English (operator-facing, as the commands are); nobody
    to send it to when the operator's address was removed since."""
    to_addr, context = reports.render_report(session, site, decode(row.extra).get("report"))
    if not to_addr:
        raise NoRecipient(f"outbox {row.id}: no operator address, or no report")
    context["when"] = lambda moment: moment.strftime("%Y-%m-%d %H:%M UTC")
    subject, text, html = render_mail(site.mail_templates, row.event, "en", context)
    return Rendered(to_addr, "pbem operator", subject, text, html, {})


# The mail that confirms a new address goes to that address (pbem.mailfix.fix), not to the
# player's address now.
ADDRESS_CONFIRM = "address_confirm"


def _address_mail(site: Site, row: Outbox, player: Player) -> dict[str, Any]:
    """What the mail confirming a new address says: the link, for how many days, and where
    it goes (the address asked for, kept in the row)."""
    new_email = str(decode(row.extra).get("extra", {}).get("email", ""))
    if not new_email:
        raise Unrenderable(f"outbox {row.id}: no address to confirm")
    return {
        "new_email": new_email,
        "confirm_link": site.address_url(row.id or 0, player.id or 0),
        "days": ADDRESS_TTL.days,
    }


# Models made with model_construct read through the mapped attributes, which exist only
# once the mappers are configured (the first ORM query does it; a fresh sender has run none).
configure_mappers()


def _answering(
    session: Session,
    site: Site,
    game: Game,
    seats: list[Seat],
    seat: Seat,
    row: Outbox,
    facts: dict[str, Any],
    states: dict[Any, Any],
    player_lang: str,
) -> dict[str, Any]:
    """A turn mail's reply address and example, and an answer's list of legal moves, from
    the game as it stood at the row's ply (the move the reply plays is for that turn)."""
    refused = row.event == "move_refused"
    if not refused and not offers_reply(site, row.event):
        return {"reply_address": "", "reply_example": ""}
    names = [s.name for s in seats]
    active = bool(facts.get("active", game.status == "active"))
    state = _state_then(session, game, seats, row.ply or 0, states)
    parts: dict[str, Any] = dict(
        reply_context(site, game, seat, row.event, player_lang, names, state, active)
    )
    if refused:
        parts.update(refusal_moves(game, state, active, seat.seat, player_lang, names))
        why = facts.get("extra", {}).get("why")
        if why is not None:  # why nothing was played, in the reader's language
            parts["reason"] = render(Message.from_json(why), player_lang, names)
    return parts


def _talk(
    session: Session, game: Game, seat: Seat, seats: list[Seat], span: list[int] | None
) -> list[dict[str, Any]]:
    """The talk messages others wrote in the span (after, upto] that the seat may read."""
    if not span or span[1] <= span[0]:
        return []
    after, upto = span
    names = [s.name for s in seats]
    return [
        {"who": names[m.seat], "private": m.to_seat is not None, "text": m.text}
        for m in visible(session, game, seat.seat, after=after)
        if m.seat != seat.seat and (m.id or 0) <= upto
    ]


def _digest_entries(
    session: Session, site: Site, player: Player, games: list[dict[str, Any]], now: Any
) -> list[dict[str, Any]]:
    entries = []
    for item in games:
        game = session.get(Game, item["game"])
        seat = session.exec(
            select_models(Seat).where(Seat.game_id == item["game"], Seat.seat == item["seat"])
        ).first()
        if game is None or seat is None:
            continue
        entries.append(
            digest_entry(site, game, seats_of(session, game), seat, item["deadline"], player, now)
        )
    return sorted(entries, key=lambda e: (e["deadline"] is None, e["deadline"] or now))
