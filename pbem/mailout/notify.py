"""Queue mail: write to the outbox what to send and to whom; the sender renders it later.

Callers pass their session, so a mail commits with whatever caused it. Nothing is
rendered here: the row records the event, the game, the seat, the ply and the facts
of this moment that the mail tells (deadline, who is to act, who is absent, which
moves and talk messages are news), so that the sender, after commit, renders exactly
the mail this moment would have given, in the recipient's language.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, select

from pbem.games import GAMES
from pbem.models import Game, Outbox, Player, Seat, Webhook, is_computer_email
from pbem.present import presenter, rounds_viewed
from pbem.site import Site
from pbem.storage.store import seats_of
from pbem.storage.writes import Writes
from pbem.webhooks.events import hooks_of_game, queue_events

# Mails that carry the table talk a player has not yet seen.
TALK_EVENTS = {"your_turn", "reminder", "deadline_warning", "timeout", "game_over"}
# Mails a player can turn off; they carry List-Unsubscribe headers.
NOTIFICATIONS = {"your_turn", "reminder", "deadline_warning", "digest"}
_DATETIME = "$datetime"


def new_thread(site: Site, game_id: int | None) -> str:
    """The thread id a new game keeps (Game.thread): every mail of it refers to this one
    Message-ID, so they form one thread, whatever the domain is set to later."""
    return f"<game-{game_id}@{site.domain}>"


def thread_of(site: Site, game: Game) -> str:
    """The game's thread id: the one it keeps (a game made before games kept theirs, and not
    yet migrated, takes the new one the site would give it)."""
    return game.thread or new_thread(site, game.id)


def encode(value: Any) -> Any:
    """`value` as JSON can hold it: datetimes become {"$datetime": iso}."""
    if isinstance(value, datetime):
        return {_DATETIME: value.isoformat()}
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [encode(v) for v in value]
    return value


def decode(value: Any) -> Any:
    """The inverse of encode."""
    if isinstance(value, dict):
        if set(value) == {_DATETIME}:
            return datetime.fromisoformat(value[_DATETIME])
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def decode_facts(facts: dict[str, Any]) -> dict[str, Any]:
    """A queued row's facts, decoded: its game view as it is, for a game's view is plain
    JSON (pbem.games: no datetimes), and walking a late game's view was a tenth of its mail."""
    return {k: v if k == "view" else decode(v) for k, v in facts.items()}


def _row(
    site: Site,
    event: str,
    player_id: int | None,
    game: Game | None,
    now: datetime,
    extra: dict[str, Any],
    seat: int | None = None,
    ply: int | None = None,
    hold: timedelta | None = None,
) -> dict[str, Any]:
    """An outbox row's columns (the others take the model's defaults); a row `hold` is
    not sent before now + hold (the sender takes only rows whose next_attempt_at is due)."""
    game_id = game.id if game is not None else None
    return {
        "game_id": game_id,
        "event": event,
        "player_id": player_id,
        "seat": seat,
        "ply": ply,
        "extra": encode(extra),
        "message_id": f"<{uuid.uuid4().hex}.g{game_id or 0}@{site.domain}>",
        "thread_id": thread_of(site, game) if game is not None else None,
        "headers": {},
        "created_at": now,
        "next_attempt_at": now + hold if hold else now,
    }


def _mail_view(game: Game, seat: int) -> dict[str, Any] | None:
    """The seat's view now, when the game's mails have their own parts drawn from it
    (what the step asks, the rounds just finished): the sender renders those from it."""
    if game.state is None:
        return None
    shown = presenter(game.slug)
    if not any(hasattr(shown, hook) for hook in ("turn_prompt", "round_reports", "turn_table")):
        return None
    # Only the rounds the game's mails need of its history (MAIL_ROUNDS: see mail_view).
    view = dict(GAMES[game.slug].view(game.state, seat, rounds=rounds_viewed(shown, "mail")))
    # What never changes later (a finished round) the sender takes from the game then.
    return shown.mail_view(view) if hasattr(shown, "mail_view") else view


@dataclass
class Telling:
    """What queueing a game's mails needs, read once, and where its rows go: the game, its
    seats in order, the webhooks that hear of them, the moment; a move's plan (pbem.moves)
    makes one from what it read, the lobby and the sweeps by `telling`."""

    site: Site
    game: Game
    seats: list[Seat]
    hooks: list[Webhook]
    now: datetime
    writes: Writes = field(default_factory=Writes)

    def carry_out(self, session: Session) -> None:
        """Write the queued rows in the session's transaction."""
        self.writes.carry_out(session)


def telling(session: Session, site: Site, game: Game, now: datetime) -> Telling:
    """A Telling for a game read in `session` (its seats are the session's own objects, so
    what queue changes on them is flushed with the session)."""
    return Telling(site, game, seats_of(session, game), hooks_of_game(session, game.id), now)


def queue(
    tell: Telling,
    seat: Seat,
    event: str,
    extra: dict[str, Any] | None = None,
    hold: timedelta | None = None,
) -> bool:
    """Put the mail for `event` to `seat` in the outbox rows of `tell`; no rendering here.
    Whether a mail was queued. `hold`: the mail waits that long, and the seat is marked as
    having a mail held, which its move cancels (pbem.players.presence).

    A computer seat gets no mail (False), except the result to a player who left the seat
    to a computer: they played the start of the game and hear how it ended. (A computer's
    player sits only in computer seats: play.create_game seats no computer as a person.)"""
    if seat.computer and not (seat.left and event == "game_over"):
        return False
    game, seats, now = tell.game, tell.seats, tell.now
    facts: dict[str, Any] = {
        "deadline": seat.deadline,
        "since": seat.told_ply,  # the moves from this ply on are news to the seat
        "absent": [s.seat for s in seats if s.absent],
        "started": game.state is not None,
        "to_act": list(GAMES[game.slug].to_act(game.state)) if game.state is not None else [],
        "over": game.outcome is not None,
        "active": game.status == "active",  # a turn mail then carries a Reply-To
        "extra": extra or {},
    }
    view = _mail_view(game, seat.seat)
    if view is not None:
        facts["view"] = view
    if event in TALK_EVENTS:
        # The talk messages in (told_talk, last_talk] that others wrote are news to the seat.
        facts["talk"] = [seat.told_talk, game.last_talk]
        seat.told_talk = max(seat.told_talk, game.last_talk)
    row = _row(tell.site, event, seat.player_id, game, now, facts, seat.seat, game.ply, hold)
    if hold:
        seat.held_mail = True
    # Webhooks hear of it too: their facts only, the deliverer writes the body.
    names = [s.name for s in seats]
    queue_events(tell.writes, tell.hooks, tell.site, game, seat, event, now, names)
    seat.told_ply = game.ply
    tell.writes.add(Outbox, row)
    return True


def notice_id(site: Site, game: Game, occasion: str) -> str:
    """The Message-ID of a game's notice about one occasion (queue_notice): the same for
    the same occasion, so that a second telling finds the first."""
    return f"<notice.{occasion}.g{game.id}@{site.domain}>"


def queue_notice(
    tell: Telling, seat: Seat, event: str, occasion: str, extra: dict[str, Any]
) -> bool:
    """Put a mail to `seat` about something other than the game's moves (a player pbem can
    no longer mail) in the outbox rows of `tell`, once per `occasion`: it tells no move and
    no talk, which stay news for the seat's next turn mail. None to a computer seat."""
    if seat.computer:
        return False
    game = tell.game
    facts: dict[str, Any] = {
        "deadline": seat.deadline,
        "since": game.ply,  # no move is news in it
        "absent": [s.seat for s in tell.seats if s.absent],
        "started": game.state is not None,
        "to_act": list(GAMES[game.slug].to_act(game.state)) if game.state is not None else [],
        "over": game.outcome is not None,
        "active": False,  # no Reply-To: it asks for no move
        "extra": extra,
    }
    row = _row(tell.site, event, seat.player_id, game, tell.now, facts, seat.seat, game.ply)
    row["message_id"] = notice_id(tell.site, game, occasion)
    tell.writes.add(Outbox, row)
    return True


def queue_player_mail(
    session: Session,
    site: Site,
    player: Player,
    event: str,
    now: datetime,
    extra: dict[str, Any] | None = None,
) -> Outbox | None:
    """A mail about the player rather than one game (vacations); none to a computer."""
    if is_computer_email(player.email):
        return None  # a computer's address is no one's: nothing is ever mailed to it
    row = Outbox(**_row(site, event, player.id, None, now, {"extra": extra or {}}))
    session.add(row)
    return row


def queue_operator_mail(
    session: Session, site: Site, event: str, now: datetime, extra: dict[str, Any]
) -> Outbox:
    """A mail to the operator (PBEM_OPERATOR_EMAIL), no player's: the sender finds the
    address when it makes the mail (pbem.players.reports)."""
    row = Outbox(**_row(site, event, None, None, now, extra))
    session.add(row)
    return row


class OutboxMail:
    """Site.mail (pbem.site.Mailing): the mails players/ and webhooks/ ask for, queued by
    queue_player_mail and queue_operator_mail like every other."""

    player_mail = staticmethod(queue_player_mail)
    operator_mail = staticmethod(queue_operator_mail)


def queue_signin(session: Session, site: Site, address: str, now: datetime) -> None:
    """A sign-in link asked for `address`: the same row whether or not a player has it (the
    request does the same work, and tells nobody who plays here). The sender finds the
    player when it makes the mail, and keeps nothing of an address nobody plays with.
    Nothing for a computer's address: its domain is no secret, so this tells nothing."""
    if is_computer_email(address):
        return
    session.add(Outbox(**_row(site, "signin", None, None, now, {"email": address})))


def queue_digest(session: Session, site: Site, player: Player, now: datetime) -> bool:
    """The daily list of games waiting for the player; nothing when none is, or to a
    computer."""
    if is_computer_email(player.email):
        return False
    entries = []
    seats = session.exec(select(Seat).where(Seat.player_id == player.id)).all()
    for seat in seats:
        game = session.get(Game, seat.game_id)
        if game is None or game.status != "active" or game.state is None:
            continue
        if seat.seat in GAMES[game.slug].to_act(game.state):
            entries.append({"game": game.id, "seat": seat.seat, "deadline": seat.deadline})
    if not entries:
        return False
    session.add(Outbox(**_row(site, "digest", player.id, None, now, {"games": entries})))
    return True
