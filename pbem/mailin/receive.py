"""Apply one reply received for a reply address: once, or not at all with one answer saying why.

The move goes through `moves.submit_move`, the same path as a POST from the page. The reply's
row in `inboundmail` (unique Message-ID) is written in the same transaction as the move
or the answer, so a second copy of a mail changes nothing. An automatic mail (out of
office, bounce, list, our own mail coming back) is never answered.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from email.message import EmailMessage
from functools import wraps
from typing import Any, ParamSpec

from sqlalchemy import Engine, delete, func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from pbem.counters import metrics
from pbem.errors import PlayError
from pbem.games import GAMES, GameError, IllegalMove, ahead
from pbem.games.fantasy_business.standing import SLUG as STANDING_SLUG
from pbem.games.message import Message
from pbem.mailin import reading, resend
from pbem.mailout.notify import queue, telling
from pbem.models import Game, InboundMail, Player, Seat
from pbem.moves import submit_move
from pbem.plans import seat_plans
from pbem.plans.orders_text import read_orders, standing_lines
from pbem.plans.plan_text import PlanLineError, checked_plan, plan_lines
from pbem.plans.play_orders import keep_orders
from pbem.players.reply_address import ReplyAddress, fold_turn, parse_address, signature_ok
from pbem.present import text_presenter
from pbem.present.textmove import TextMoveError, first_move
from pbem.site import Site
from pbem.storage.db import read_session, write_session
from pbem.storage.ratelimit import Limit, record
from pbem.storage.store import id_of, lock_game, seats_of
from pbem.takeback import consent

log = logging.getLogger(__name__)
P = ParamSpec("P")
# Spec (issue 14): rate-limit by address and by seat; answers are limited further, so
# that a mail loop with a machine that ignores Auto-Submitted stops quickly. An address and
# a seat are charged only for mail whose From is the seat's player (issue 30): a stranger
# who names a player in the From spends none of that player's allowance.
BY_ADDRESS = Limit("mailin-addr", 120, 3600)  # one address may hold seats in many games
BY_SEAT = Limit("mailin-seat", 60, 3600)  # a quick open auction still fits
# Mail that is not the player's (forged, malformed, automatic) is limited by seat and by
# SMTP client instead, before anything of it is stored. Behind an MTA the client is the MTA,
# so BY_CLIENT caps the whole site's unverified mail; a player's own mail never counts here.
UNVERIFIED_BY_SEAT = Limit("mailin-seat-unverified", 30, 3600)  # out-of-office mail fits
BY_CLIENT = Limit("mailin-client", 300, 3600)
ANSWERS = Limit("mailin-answer", 5, 3600)  # counted from inboundmail, in the transaction
_OUR_MESSAGE_ID = re.compile(r"^[0-9a-f]{32}\.g\d+@")


@dataclass(frozen=True)
class Verdict:
    """What became of one mail: applied, refused (answered), ignored, rejected or deferred."""

    status: str
    reason: str
    smtp: str
    # What the log line names (never the address's signature nor the body): the reply
    # address's game and seat, when it is one, and the mail's Message-ID, once read.
    game_id: int | None = None
    seat: int | None = None
    message_id: str = ""


APPLIED = "250 2.0.0 Move played"
ACCEPTED = "250 2.0.0 Accepted"
TOO_MANY = "451 4.7.1 Too many mails, try again later"
# A row is the Message-ID's duplicate guard, and says which move a mail applied for a turn
# (so that a resend of it is ignored): kept 30 days, far longer than an MTA retries a mail
# (Postfix gives up after 5), so that a late copy is still known. Then a sweep drops it.
KEPT = timedelta(days=30)


def seat_for(session: Session, secret: str, reply: ReplyAddress) -> tuple[Game, Seat] | None:
    """The game and seat a correctly signed reply address names, or None."""
    seat = session.exec(
        select(Seat).where(Seat.game_id == reply.game_id, Seat.seat == reply.seat)
    ).first()
    if seat is None or not signature_ok(secret, reply, seat.link_key):
        return None
    game = session.get(Game, reply.game_id)
    return (game, seat) if game is not None else None


def address_ok(engine: Engine, site: Site, address: str) -> bool:
    """Whether `address` is a reply address we signed (checked at RCPT)."""
    reply = parse_address(address, site.reply_domain) if site.reply_domain else None
    if reply is None:
        return False
    with read_session(engine) as session:
        return seat_for(session, site.secret, reply) is not None


def message_id_of(msg: EmailMessage, raw: bytes) -> str:
    """The mail's Message-ID, or one made of its content when it has none usable."""
    given = reading.header(msg, "Message-ID")
    if given and len(given) <= 200:
        return given
    # No usable Message-ID: the content stands for it, so an identical copy is still one mail.
    return f"<{hashlib.sha256(raw).hexdigest()[:40]}@no-message-id>"


def _ours(msg: EmailMessage, site: Site) -> bool:
    """Whether the mail is one of ours coming back (our Message-ID pattern at our domain)."""
    for name in ("Message-ID",):
        value = reading.header(msg, name).strip("<>").lower()
        if _OUR_MESSAGE_ID.match(value) and value.rpartition("@")[2] == site.domain.lower():
            return True
    return False


@dataclass(frozen=True)
class _Mail:
    """One mail to a signed reply address as its row keeps it: who sent it, to which turn."""

    message_id: str
    reply: ReplyAddress
    sender: str
    now: datetime


def _record(
    session: Session, mail: _Mail, status: str, reason: str, move: dict[str, Any] | None = None
) -> None:
    reply = mail.reply
    session.add(
        InboundMail(
            message_id=mail.message_id,
            game_id=reply.game_id,
            seat=reply.seat,
            turn=reply.turn,
            sender=mail.sender[:254],
            status=status,
            reason=reason[:40],
            move=move,
            created_at=mail.now,
        )
    )


def _answer(
    session: Session,
    site: Site,
    game_id: int,
    seat_no: int,
    why: Message,
    line: str,
    now: datetime,
) -> None:
    """Queue the one mail that says why nothing was played, with the legal moves (the game
    read again: a move refused by the rules leaves the rows it read out of the session)."""
    since = now - timedelta(seconds=ANSWERS.seconds)
    answered = session.exec(
        select(func.count())
        .select_from(InboundMail)
        .where(
            InboundMail.game_id == game_id,
            InboundMail.seat == seat_no,
            InboundMail.status == "refused",
            InboundMail.created_at > since,
        )
    ).one()
    if answered > ANSWERS.count:
        return  # enough answers for this seat this hour: a loop, or a player who will look
    # The reason (a message, card ids and all) and the legal moves are the sender's to
    # write, in the player's language, from the game as it stands at this ply.
    tell = telling(session, site, lock_game(session, game_id), now)
    queue(
        tell,
        tell.seats[seat_no],
        "move_refused",
        extra={
            "why": why.to_json(),
            "line": line[:200],
            "sample": tell.game.slug == "fantasy-business",
        },
    )
    tell.carry_out(session)


def counted(verdict_of: Callable[P, Verdict]) -> Callable[P, Verdict]:
    """`verdict_of` with each verdict counted, once its transaction (if any) is over."""

    @wraps(verdict_of)
    def count(*args: P.args, **kwargs: P.kwargs) -> Verdict:
        verdict = verdict_of(*args, **kwargs)
        metrics.inbound_verdict(verdict.status, verdict.reason)
        return verdict

    return count


@dataclass(frozen=True)
class Arrival:
    """One mail as the SMTP session hands it over, to a reply or a bounce address."""

    rcpt: str
    raw: bytes
    now: datetime
    max_bytes: int
    client: str = ""  # the SMTP client's address, which unverified mail is limited by
    envelope_from: str = ""


@counted
def receive(engine: Engine, site: Site, mail: Arrival) -> Verdict:
    """Handle one mail to one reply address; never raises for anything the sender controls."""
    raw, now = mail.raw, mail.now
    reply = parse_address(mail.rcpt, site.reply_domain) if site.reply_domain else None
    if reply is None:
        return Verdict("rejected", "not_reply_address", "550 5.1.1 No such mailbox here")
    game_id, seat = reply.game_id, reply.seat
    if len(raw) > mail.max_bytes:
        return Verdict("rejected", "too_big", "552 5.3.4 Message too big for a move", game_id, seat)
    if reading.too_complex(raw):
        smtp = "552 5.3.4 Too many MIME parts for a move"
        return Verdict("rejected", "too_complex", smtp, game_id, seat)
    try:
        msg = reading.parse(raw)
    except reading.Malformed:
        return Verdict("rejected", "malformed", "550 5.6.0 Malformed message", game_id, seat)
    message_id = message_id_of(msg, raw)
    verdict = _judge(engine, site, reply, msg, message_id, mail.envelope_from, mail.client, now)
    # A Message-ID is the sender's to write: it may not carry the signature into the log.
    shown = message_id.replace(reply.signature, "(signature)")
    return replace(verdict, game_id=game_id, seat=seat, message_id=shown)


def _judge(
    engine: Engine,
    site: Site,
    reply: ReplyAddress,
    msg: EmailMessage,
    message_id: str,
    envelope_from: str,
    client: str,
    now: datetime,
) -> Verdict:
    """The verdict on a mail read to a signed address: who sent it, the limits, the move."""
    with read_session(engine) as session:
        found = seat_for(session, site.secret, reply)
        player = session.get(Player, found[1].player_id) if found else None
    if found is None or player is None or found[1].computer:
        # A computer seat is never mailed, so no reply can be meant for it.
        return Verdict("rejected", "bad_token", "550 5.1.1 No such mailbox here")
    own = {site.domain.lower(), site.reply_domain.lower()}
    why_auto = reading.automatic(msg, envelope_from, own) or ("loop" if _ours(msg, site) else None)
    sender = reading.sender(msg)
    mail = _Mail(message_id, reply, sender or "", now)
    if why_auto is not None or sender != player.email.lower():
        if _unverified_over(engine, reply, client, now):
            return Verdict("deferred", "rate_unverified", TOO_MANY)
    if why_auto is not None:
        return _store_only(engine, mail, "ignored", why_auto)
    if sender is None or sender != player.email.lower():
        reason = "forged_from" if sender else "bad_from"
        _store_only(engine, mail, "rejected", reason)
        return Verdict("rejected", reason, "550 5.7.1 This address takes mail from its player only")
    if record(engine, BY_ADDRESS, sender, now) > BY_ADDRESS.count:
        return Verdict("deferred", "rate_address", TOO_MANY)
    if record(engine, BY_SEAT, f"{reply.game_id}:{reply.seat}", now) > BY_SEAT.count:
        return Verdict("deferred", "rate_seat", TOO_MANY)
    lines = reading.move_lines(reading.body_text(msg))
    try:
        with write_session(engine) as session:
            return _decide(session, site, mail, lines)
    except IntegrityError:
        # A twin of this mail (same Message-ID) or a move for the same ply won the race.
        return Verdict("ignored", "duplicate", ACCEPTED)


def _plan_of(
    state: dict[str, Any], seat: int, move: dict[str, Any], text: list[str]
) -> list[dict[str, Any]]:
    """The plan a reply's "if ... then ..." lines leave, checked on the table the move
    leaves as the seat will see it; PlanLineError saying which line cannot be kept, and why."""
    if not text:
        return []
    try:
        after = GAMES[ahead.SLUG].apply(state, seat, move)
    except GameError:
        return []  # the move itself is refused later, with its own reason
    return checked_plan(text, after, seat)


def forget_old(session: Session, now: datetime) -> None:
    """Drop the rows of mail received more than KEPT ago (in the caller's write transaction)."""
    # SKIP LOCKED: two clock processes sweeping at once each drop the rows the other has not
    # locked, and never wait on each other's (PostgreSQL; SQLite runs one writer at a time).
    old = (
        select(InboundMail.id)
        .where(col(InboundMail.created_at) < now - KEPT)
        .with_for_update(skip_locked=True)
    )
    session.execute(delete(InboundMail).where(col(InboundMail.id).in_(old)))


def _unverified_over(engine: Engine, reply: ReplyAddress, client: str, now: datetime) -> bool:
    """Count one mail that is not the seat's player's; whether its seat or client is over."""
    by_seat = record(engine, UNVERIFIED_BY_SEAT, f"{reply.game_id}:{reply.seat}", now)
    by_client = record(engine, BY_CLIENT, client or "?", now)
    return by_seat > UNVERIFIED_BY_SEAT.count or by_client > BY_CLIENT.count


def _store_only(engine: Engine, mail: _Mail, status: str, reason: str) -> Verdict:
    """Keep a row for a mail that is not acted on (automatic, forged); a copy adds nothing."""
    try:
        with write_session(engine) as session:
            seen = session.exec(
                select(InboundMail.id).where(InboundMail.message_id == mail.message_id)
            ).first()
            if seen is None:
                _record(session, mail, status, reason)
    except IntegrityError:
        pass
    return Verdict(status, reason, ACCEPTED)


def _decide(session: Session, site: Site, mail: _Mail, lines: list[str]) -> Verdict:
    """Inside the write transaction: the move applied, or refused with an answer queued."""
    reply, now = mail.reply, mail.now
    seen = session.exec(
        select(InboundMail.id).where(InboundMail.message_id == mail.message_id)
    ).first()
    if seen is not None:
        return Verdict("ignored", "duplicate", ACCEPTED)
    game = lock_game(session, reply.game_id)
    seat = session.exec(select(Seat).where(Seat.game_id == game.id, Seat.seat == reply.seat)).one()
    player = session.get(Player, seat.player_id)

    def refuse(reason: str, why: Message, line: str = "") -> Verdict:
        _record(session, mail, "refused", reason)
        session.flush()
        _answer(session, site, reply.game_id, reply.seat, why, line, now)
        return Verdict("refused", reason, ACCEPTED)

    if game.status != "active" or game.state is None:
        return refuse("not_active", Message("mailmove.error.game_not_active", {}))
    word = consent.reply_word(lines)
    if word is not None:
        # A take back is the seat's to ask or answer whatever turn its mail was for.
        try:
            with session.begin_nested():
                consent.by_mail(session, site, id_of(game), seat.seat, word, now)
        except PlayError as exc:
            return refuse("take_back", Message(exc.key, exc.params), lines[0])
        _record(session, mail, "applied", f"takeback_{word}")
        return Verdict("applied", f"takeback_{word}", ACCEPTED)
    rules = GAMES[game.slug]
    current = rules.turn_token(game.state, seat.seat)
    names = [s.name for s in seats_of(session, game)]
    parser = text_presenter(game.slug)
    if fold_turn(current) != reply.turn:
        if resend.resent(session, game, reply, lines, names):
            _record(session, mail, "ignored", "resend")
            return Verdict("ignored", "resend", ACCEPTED)
        return refuse("stale", Message("mailmove.error.stale", {}))
    if not rules.may_act(game.state, seat.seat):
        return refuse("not_your_turn", Message("play.error.not_your_turn", {}))
    # "if they play X then I play Y" lines leave a plan ahead with the move (pbem.games.ahead).
    try:
        plan_text, lines = plan_lines(lines) if game.slug == ahead.SLUG else ([], lines)
    except PlanLineError as error:
        return refuse("unreadable", Message(error.key, error.params), error.line)
    # "standing: ..." lines set a Fantasy Business seat's standing orders with the move.
    order_text, lines = standing_lines(lines) if game.slug == STANDING_SLUG else ([], lines)
    try:
        move, used = first_move(parser.parse, lines, game.state, seat.seat, names)
    except TextMoveError as error:
        return refuse("unreadable", Message(error.key, error.params), lines[0] if lines else "")
    try:
        tree = _plan_of(game.state, seat.seat, move, plan_text)
    except PlanLineError as error:
        return refuse("unreadable", Message(error.key, error.params), error.line)
    try:
        orders = read_orders(order_text) if order_text else None
    except TextMoveError as error:
        return refuse("unreadable", Message(error.key, error.params), order_text[0])
    if resend.applied_before(session, reply, move):
        # The same move for the same turn (a resend while prices may still be revised).
        _record(session, mail, "ignored", "resend")
        return Verdict("ignored", "resend", ACCEPTED)
    try:
        with session.begin_nested():
            submit_move(session, site, id_of(game), seat.seat, move, current, now, source="mail")
    except IllegalMove as exc:
        return refuse("illegal", exc.msg, used)
    except PlayError as exc:
        return refuse("stale", Message(exc.key, exc.params), used)
    if tree:
        try:
            with session.begin_nested():
                seat_plans.set_plan(session, id_of(game), seat.seat, tree, now)
        except (GameError, PlayError):
            pass  # a plan ahead answered their move at once: it is the player's turn again
    if orders is not None:
        with session.begin_nested():
            keep_orders(session, site, id_of(game), seat.seat, orders, now)
    _record(session, mail, "applied", "", move)
    # The page says "your turn again" to a mover the table still waits on; by mail, that
    # is a new turn mail with the new turn's reply address. (The move took the rows it
    # read out of the session: the game as the move left it is read again.)
    tell = telling(session, site, lock_game(session, reply.game_id), now)
    state = tell.game.state
    if state is not None and seat.seat in rules.to_act(state):
        if player is None or player.notify != "none":
            queue(tell, tell.seats[seat.seat], "your_turn")
            tell.carry_out(session)
    return Verdict("applied", "", APPLIED)
