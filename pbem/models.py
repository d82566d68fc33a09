"""The tables: players, games, seats, the move log and the mail outbox.

Times are aware datetimes in UTC (SQLModel stores them as UTC).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import JSON, BigInteger, Column, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel


class Player(SQLModel, table=True):
    """A person, known by their email address."""

    id: int | None = Field(default=None, primary_key=True)
    email: str = Field(index=True, unique=True, max_length=254)
    name: str = Field(max_length=60)
    lang: str = Field(default="en", max_length=5)
    tz: str = Field(default="UTC", max_length=64)  # an IANA time zone name
    notify: str = Field(default="every", max_length=12)  # every, digest, reminders, none
    next_digest_at: datetime | None = Field(default=None, index=True)
    vacation_days: int = 14  # allowance per calendar year
    # When a deadline passes, take vacation days (while the allowance lasts) instead of a timeout.
    auto_vacation: bool = False
    unsubscribe_key: str = Field(default="", max_length=32)
    # A signed-in device's cookie holds this beside the player's id, and counts only while
    # it is still the player's: signing out raises it, ending every device's session.
    session_generation: int = 0
    # The player's page (results, ratings, head-to-head) is shown to others (issue 36).
    page_public: bool = True
    created_at: datetime


class Game(SQLModel, table=True):
    """One game: its rules, options, seed and the state after the last move."""

    # Games by status read by status alone, or counted by kind (/metrics, games active) from
    # the index without the rows.
    # The sweep finds the games still forming past their days by status and age, oldest
    # first (pbem.clock: unstarted games), without reading the others.
    __table_args__ = (
        Index("ix_game_status_slug", "status", "slug"),
        Index("ix_game_status_created", "status", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(max_length=40)
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    state: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    ply: int = 0
    status: str = Field(default="forming", max_length=12)
    creator_seat: int = 0
    days_per_move: int | None = None  # None: no time limit (games get 3 from forms.TimeControl)
    # How the time per move is counted (pbem.timing.clocks): "move" (days_per_move each move),
    # "fischer" (start with days_per_move, clock_add more after each move, up to clock_cap) or
    # "bank" (days_per_move each move, unused time kept up to clock_cap days).
    clock: str = Field(default="move", max_length=8)
    clock_add: int | None = None  # fischer: days added after each move
    clock_cap: int | None = None  # fischer: most days on a clock; bank: most days in the bank
    # Weekdays (0 Monday .. 6 Sunday) on which no clock runs, in each seat's player's zone.
    days_off: list[int] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    # When reminders fall: "24h" after the turn began, "80%" of the time allowed.
    reminders: list[str] = Field(
        default_factory=lambda: ["24h", "80%"], sa_column=Column(JSON, nullable=False)
    )
    absent_after: int = 3  # consecutive timeouts before a seat is marked absent
    # The computer level that plays an absent seat until its person is back (None: timeout
    # moves, as before computers could play).
    takeover: str | None = Field(default=None, max_length=12)
    watch_key: str = Field(max_length=32)
    # A digest of the lobby form's token: the same form sent again creates nothing new.
    form_key: str | None = Field(default=None, max_length=64, unique=True, index=True)
    outcome: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    last_talk: int = 0  # the id of the game's latest table-talk message (0: none yet)
    created_at: datetime
    updated_at: datetime
    started_at: datetime | None = None
    # Indexed: retention finds the games that ended lately (pbem.storage.retention).
    finished_at: datetime | None = Field(default=None, index=True)
    rematch_of: int | None = Field(default=None, index=True)  # the finished game this replays
    # When the creator was told that this unstarted game is called off in a day
    # (pbem.clock.sweeps.sweep_unstarted): it is called off no sooner than a day after that.
    expiry_warned_at: datetime | None = None
    # A checkable deal (pbem.games.fairdeal): the server's secret and salt, sealed when the
    # game is made; the seed is derived from them and the seats' shares at the start. None
    # for a game given its seed (tests, the command line) or made before checkable deals.
    deal_secret: str | None = Field(default=None, max_length=64)
    deal_salt: str | None = Field(default=None, max_length=64)
    # Moves taken back by consent (pbem.takeback): a page's kept log lines name it, since a
    # ply's line changes when its move is taken back and played again.
    takebacks: int = 0
    # A rated game moves its players' ratings (pbem.ratings) in the transaction that ends it.
    rated: bool = False
    # The Message-ID every mail of the game refers to (In-Reply-To, References), fixed when
    # the game is made: later changes of PBEM_THREAD_DOMAIN, or hosts set otherwise, keep it.
    thread: str | None = Field(default=None, max_length=200)
    # Raised by every write that changes what the game's pages show (a move, talk, a take
    # back, a seat joining, leaving or coming back, a clock moved by a vacation): the live
    # page's stream says "changed" with it, and the page's poll answers 304 while it holds
    # (pbem.storage.versions).
    version: int = 0


class Seat(SQLModel, table=True):
    """A player's place in a game, with the key that signs their links."""

    __table_args__ = (UniqueConstraint("game_id", "seat"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seat: int
    player_id: int = Field(foreign_key="player.id", index=True)
    name: str = Field(max_length=60)
    status: str = Field(default="invited", max_length=12)  # invited, joined, declined
    link_key: str = Field(max_length=32)
    told_ply: int = 0  # the moves before this ply were in a mail this seat got
    turn_started_at: datetime | None = None  # when this seat last became due to act
    # Time kept for later turns, in seconds (fischer: the seat's whole clock; bank: the bank;
    # None: not started yet, or a per-move clock).
    banked: int | None = None
    deadline: datetime | None = Field(default=None, index=True)
    next_reminder_at: datetime | None = Field(default=None, index=True)
    reminders_sent: int = 0  # reminders sent for the current turn
    timeouts_in_row: int = 0
    absent: bool = False
    computer: str | None = Field(default=None, max_length=12)  # the level of a computer seat
    # Since when a computer owes this seat's move (a computer seat, or an absent one taken over).
    computer_due_at: datetime | None = Field(default=None, index=True)
    # Until when a computer worker holds this seat's move (pbem.clock.computer_play): others skip
    # it meanwhile; a worker killed mid-decision leaves it to be taken once this has passed.
    computer_claimed_until: datetime | None = None
    told_talk: int = 0  # the table-talk messages up to this id were in a mail this seat got
    left: bool = False  # the player left the game: the server plays the seat's turns
    # When the seat's page last looked at the game (page or its poll; at most every 20 s):
    # a player looking gets the page's live update, not at once a "your move" mail.
    seen_at: datetime | None = None
    # A "your move" mail for this seat waits in the outbox (held while they look): their
    # move cancels it (pbem.players.presence).
    held_mail: bool = False
    # The player's share of a checkable deal, given when joining; secret until the end.
    share: str = Field(default="", max_length=200)
    # Conditional moves, secret to this seat (pbem.games.ahead): {"tree": [...], "ply": made
    # at, "note": "used"/"cancelled"/None for the seat's page}; None when it never made any.
    ahead: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))


class Move(SQLModel, table=True):
    """One move of the log; the database allows one per game and ply."""

    __table_args__ = (UniqueConstraint("game_id", "ply", name="uq_move_game_ply"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    ply: int
    seat: int
    move: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    source: str = Field(default="web", max_length=12)  # web, timeout, cli
    # The move described for each viewer ("0", "1", ... and "watch"), as game messages.
    lines: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime


class GameRound(SQLModel, table=True):
    """A finished round released from its game's state (rules.release_history: Fantasy
    Business keeps only its last rounds there), read only by what shows that round."""

    game_id: int = Field(foreign_key="game.id", primary_key=True)
    round: int = Field(primary_key=True)
    record: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))


class TakeBack(SQLModel, table=True):
    """A mover's request to take back their last move, and the next player's answer; an
    allowed one keeps the move taken out of the log, as the record of the undo."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    ply: int  # the ply of the move to take back
    seat: int  # the mover, who asks
    to_seat: int  # the next player, who answers
    move: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    # The move's log lines by viewer, as written: each seat reads only its own.
    lines: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    answer: str = Field(default="", max_length=12)  # "" pending, allowed, refused, lapsed
    asked_at: datetime
    answered_at: datetime | None = None


class Outbox(SQLModel, table=True):
    """A mail to send, written in the same transaction as what caused it.

    The transaction records what to send and to whom (event, game, seat, ply, player and
    the facts of that moment in `extra`); the sender renders it once, after commit, and
    keeps the rendered mail here so that a resend is the same mail.
    """

    __table_args__ = (Index("ix_outbox_due", "sent_at", "next_attempt_at"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int | None = Field(default=None, foreign_key="game.id", index=True)
    event: str = Field(max_length=40)
    player_id: int | None = Field(default=None, foreign_key="player.id")
    seat: int | None = None  # the recipient's seat in the game, for game mails
    ply: int | None = None  # the game's ply when the mail was queued
    extra: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    rendered_at: datetime | None = None
    to_addr: str = Field(default="", max_length=254)
    to_name: str = Field(default="", max_length=60)
    subject: str = Field(default="", max_length=300)
    body_text: str = Field(default="", sa_column=Column(Text, nullable=False))
    body_html: str = Field(default="", sa_column=Column(Text, nullable=False))
    message_id: str = Field(unique=True, max_length=200)
    thread_id: str | None = Field(default=None, max_length=200)
    headers: dict[str, str] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime
    next_attempt_at: datetime
    attempts: int = 0
    claimed_until: datetime | None = None
    sent_at: datetime | None = None
    last_error: str | None = Field(default=None, max_length=500)


class Vacation(SQLModel, table=True):
    """A stretch of days when a player's clocks stand still in all their games."""

    # The sweep looks for ended vacations not yet told: with end_told first, the index
    # skips every vacation already told about, however long the history.
    __table_args__ = (Index("ix_vacation_due", "end_told", "ends_at"),)

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    starts_at: datetime
    ends_at: datetime
    end_told: bool = False  # the "welcome back" mail is queued
    created_at: datetime


class RateHit(SQLModel, table=True):
    """A counter of requests of one kind from one address in one time window.

    Kept in the database so that every gunicorn worker sees the same counts.
    """

    key: str = Field(primary_key=True, max_length=200)  # kind:address:window
    count: int = 0
    expires_at: datetime = Field(index=True)


class CountedAct(SQLModel, table=True):
    """One act counted against a player's allowance over a sliding window
    (pbem.storage.allowance): an open table or seek posted, a seat taken, an invitation sent
    (counted for its sender) or received (for its recipient). Ids only: no address."""

    __table_args__ = (Index("ix_countedact_kind_who_at", "kind", "who", "at"),)

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=20)
    who: int  # the player counted
    at: datetime = Field(index=True)


class Talk(SQLModel, table=True):
    """A table-talk message: to everyone at the table, or privately to one seat."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seat: int  # the author
    to_seat: int | None = None  # None: everyone
    text: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime


class Note(SQLModel, table=True):
    """A seat's private notes on a game: shown to that seat alone, kept with the game."""

    __table_args__ = (UniqueConstraint("game_id", "seat"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seat: int
    text: str = Field(sa_column=Column(Text, nullable=False))
    updated_at: datetime


class InboundMail(SQLModel, table=True):
    """A reply received by `pbem inbound`: one row per Message-ID, so a second copy is ignored.

    Written in the same transaction as the move it applied, or the answer it queued.
    """

    id: int | None = Field(default=None, primary_key=True)
    message_id: str = Field(unique=True, max_length=200)
    game_id: int | None = Field(default=None, foreign_key="game.id", index=True)
    seat: int | None = None
    turn: str = Field(default="", max_length=40)
    sender: str = Field(default="", max_length=254)
    status: str = Field(max_length=12)  # applied, refused, ignored; recorded (a bounce report)
    reason: str = Field(default="", max_length=40)
    move: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    created_at: datetime = Field(index=True)  # each sweep drops the rows past 30 days


class Webhook(SQLModel, table=True):
    """A chat-room webhook: a player's own (their turns, all games) or a game's whole table."""

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="player.id", index=True)  # the owner, told if it fails
    game_id: int | None = Field(default=None, foreign_key="game.id", index=True)  # a table's
    kind: str = Field(max_length=10)  # discord, slack or generic
    url: str = Field(max_length=500)
    secret: str = Field(max_length=64)  # signs generic deliveries (X-Pbem-Signature)
    enabled: bool = True
    failures: int = 0  # failed deliveries in a row
    disabled_at: datetime | None = None
    created_at: datetime


class WebhookDelivery(SQLModel, table=True):
    """One event for one webhook: the webhooks' outbox, written with what caused it."""

    __table_args__ = (Index("ix_webhookdelivery_due", "sent_at", "next_attempt_at"),)

    id: int | None = Field(default=None, primary_key=True)
    webhook_id: int = Field(foreign_key="webhook.id", index=True)
    event_id: str = Field(unique=True, max_length=120)  # stable across retries
    event: str = Field(max_length=40)
    body: str = Field(sa_column=Column(Text, nullable=False))  # the exact bytes POSTed
    # What the event says (who, seat, link, deadline): the deliverer writes `body` from
    # it before the first attempt; "" until then.
    facts: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    created_at: datetime
    next_attempt_at: datetime
    attempts: int = 0
    claimed_until: datetime | None = None
    sent_at: datetime | None = None  # delivered, or given up (see given_up)
    given_up: bool = False
    last_error: str | None = Field(default=None, max_length=500)


class SignIn(SQLModel, table=True):
    """A mailed sign-in link: good once, until it expires; then it says why it no longer is."""

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    nonce: str = Field(max_length=32)  # in the signed link: the row alone cannot be guessed
    next_path: str = Field(default="/me", max_length=300)  # where the button leads
    created_at: datetime
    expires_at: datetime = Field(index=True)  # the sweep drops rows long past it
    used_at: datetime | None = None
    # A game mail's settings link has no row until it is used: the row then made names the
    # mail, once (a unique index: the second press finds it used).
    outbox_id: int | None = Field(default=None, unique=True, index=True)


class Rating(SQLModel, table=True):
    """A player's Glicko-2 rating in one game kind (pbem.ratings), on the Glicko scale."""

    __table_args__ = (UniqueConstraint("player_id", "kind"),)

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    kind: str = Field(max_length=40)  # a game slug
    rating: float = 1500.0
    deviation: float = 350.0  # RD: how unsure the rating is
    volatility: float = 0.06
    games: int = 0  # rated games finished in this kind
    updated_at: datetime


class RatingChange(SQLModel, table=True):
    """One rated game's effect on one player's rating: the history a player's page draws.

    One row per game and player: a game rated twice (a retry, a second host) is refused."""

    __table_args__ = (UniqueConstraint("game_id", "player_id"),)

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    kind: str = Field(max_length=40)
    before: float
    after: float
    deviation: float  # after the game
    created_at: datetime


class Block(SQLModel, table=True):
    """A player's block of another: never seated together by the server again, and the
    blocked one's private messages hidden from the blocker (pbem.players.blocks)."""

    __table_args__ = (UniqueConstraint("player_id", "blocked_id"),)

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="player.id", index=True)  # who blocks
    blocked_id: int = Field(foreign_key="player.id", index=True)
    created_at: datetime


class OpenTable(SQLModel, table=True):
    """A forming game open to anyone signed in (pbem.opentables): the seats it wants, its
    language and the joiners' rating range; its seats are the game's Seat rows so far."""

    game_id: int = Field(foreign_key="game.id", primary_key=True)
    player_id: int = Field(foreign_key="player.id", index=True)  # who posted it
    slug: str = Field(max_length=40, index=True)  # the game's, to filter without a join
    seats: int  # seats wanted in all, the poster's included
    lang: str = Field(max_length=5)  # the table's language
    rating_min: int | None = None  # a joiner's shown rating in the kind, at least
    rating_max: int | None = None
    created_at: datetime = Field(index=True)


class PlayerSeek(SQLModel, table=True):
    """A standing seek: seat this player at the next open table of this kind and language
    that fits (pbem.opentables); used once, removed when it seats them."""

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    slug: str = Field(max_length=40, index=True)
    lang: str = Field(max_length=5)
    rating_min: int | None = None  # the other players' shown ratings, at least
    rating_max: int | None = None
    created_at: datetime
    # The player's share of a checkable deal, made by their browser when the seek was kept:
    # the seat the seek takes gives it (secret until that game ends, as a seat's share).
    share: str = Field(default="", max_length=200)


class League(SQLModel, table=True):
    """A league by mail (pbem.leagues): its players play one game kind in rounds, a round
    robin or Swiss, and stand by the points of their games."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=80)
    organiser_id: int = Field(foreign_key="player.id", index=True)
    slug: str = Field(max_length=40)  # the game kind
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    # The time control each of its games gets (as Game's columns of the same names).
    days_per_move: int | None = 3
    clock: str = Field(default="move", max_length=8)
    clock_add: int | None = None
    clock_cap: int | None = None
    takeover: str | None = Field(default="casual", max_length=12)
    format: str = Field(default="round_robin", max_length=12)  # round_robin or swiss
    rounds: int = 0  # Swiss, and round robins of tables of several: how many rounds
    table_size: int = 2  # players at each game
    rated: bool = False
    status: str = Field(default="forming", max_length=12)  # forming, running, finished
    is_open: bool = False  # anyone signed in with its link may join (and it is listed)
    join_key: str = Field(max_length=32)  # in the league's link and its invitations' links
    most_players: int = 8  # it starts when this many have joined
    round: int = 0  # the latest round started
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    next_digest_at: datetime | None = Field(default=None, index=True)
    # Until when a sweep holds the league (pbem.clock.league_sweeps): others pass it over.
    claimed_until: datetime | None = None
    # Raised when a round is made, a game of it ends or a member joins or leaves: the
    # league page's stream says "changed" with it (pbem.storage.versions).
    version: int = 0


class LeagueMember(SQLModel, table=True):
    """A player invited to or playing in a league."""

    __table_args__ = (UniqueConstraint("league_id", "player_id"),)

    id: int | None = Field(default=None, primary_key=True)
    league_id: int = Field(foreign_key="league.id", index=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    status: str = Field(default="invited", max_length=12)  # invited, joined, declined, dropped
    points: float = 0.0  # kept up to date as the league's games end
    joined_at: datetime | None = None
    # The member's share of a checkable deal, made by their browser when they made or
    # joined the league: each of its games' seats they take gives it (issue 48).
    share: str = Field(default="", max_length=200)


class LeagueGame(SQLModel, table=True):
    """A game of a league's round, or a Swiss bye (no game: its player gets a point)."""

    id: int | None = Field(default=None, primary_key=True)
    league_id: int = Field(foreign_key="league.id", index=True)
    round: int
    game_id: int | None = Field(default=None, foreign_key="game.id", unique=True)
    bye_player_id: int | None = Field(default=None, foreign_key="player.id")


class Heartbeat(SQLModel, table=True):
    """A long-running process's sign of life, written by that process alone (pbem.watch.beats):
    who it is, when it last beat, and its counters and histograms as they were then."""

    id: str = Field(primary_key=True, max_length=32)  # random, made at the process's start
    kind: str = Field(max_length=12)  # clock, computers, inbound, serve
    host: str = Field(max_length=255)
    pid: int
    started_at: datetime
    beat_at: datetime
    # pbem.counters.samples.snapshot: the process's series, for /metrics on the web hosts.
    samples: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))


# RFC 2606: the .invalid domain never resolves, so a computer's address is never mailed.
# Here with the rows, not in players/, because ratings and mail ask it as well.
COMPUTER_DOMAIN = "computer.invalid"


def is_computer_email(email: str) -> bool:
    """Whether an address is one of the computer players'."""
    return email.endswith("@" + COMPUTER_DOMAIN)


class Playing(Protocol):
    """What level_for reads of a seat: a Seat, or a row read with these columns."""

    @property
    def computer(self) -> str | None: ...

    @property
    def absent(self) -> bool: ...


def level_for(game: Game, seat: Playing) -> str | None:
    """The level of the computer playing `seat` now, or None when its person plays it.

    Here with the rows, not in players/, because pages and the clock ask it as well."""
    if seat.computer:
        return seat.computer
    if seat.absent and game.takeover:
        return game.takeover
    return None


class MailAddress(SQLModel, table=True):
    """What the bounces and complaints received say of one address (pbem.bounces): its score
    and whether mail to it goes on. A row exists once the address has bounced."""

    address: str = Field(primary_key=True, max_length=254)  # lower-cased
    state: str = Field(default="ok", max_length=12)  # ok, bouncing, complained
    score: int = 0  # soft bounce 1, hard 2, at most one scored a UTC day
    scored_day: str = Field(default="", max_length=10)  # YYYY-MM-DD of the last scored
    last_bounce_at: datetime | None = None
    since: datetime | None = None  # when it turned bouncing or complained
    last_kind: str = Field(default="", max_length=12)  # soft, hard, refused, complaint
    last_reason: str = Field(default="", max_length=300)  # status and diagnostic, as reported
    updated_at: datetime


class Bounce(SQLModel, table=True):
    """One report that a mail did not arrive (a DSN, a refusal at SMTP time, a complaint),
    as received; the clock's sweep scores it against its address once (scored_at)."""

    # The sweep finds the reports not yet scored by this index.
    __table_args__ = (Index("ix_bounce_unscored", "scored_at", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    address: str = Field(max_length=254, index=True)  # lower-cased, as MailAddress
    outbox_id: int | None = None  # the mail it reports on (no key: retention deletes mail)
    game_id: int | None = Field(default=None, index=True)
    kind: str = Field(max_length=12)  # soft, hard, refused, complaint
    status: str = Field(default="", max_length=12)  # the DSN's status, as 5.1.1
    reason: str = Field(default="", max_length=300)
    received_at: datetime
    scored_at: datetime | None = None


class Report(SQLModel, table=True):
    """A player's report of another to the operator (pbem.players.reports): who, why, and
    where (a game and a talk message, or the reported player's page)."""

    # The day's count of one reporter's reports (the limit) reads this index.
    __table_args__ = (Index("ix_report_by", "reporter_id", "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    reporter_id: int = Field(foreign_key="player.id")
    reported_id: int = Field(foreign_key="player.id", index=True)
    reason: str = Field(sa_column=Column(Text, nullable=False))
    game_id: int | None = Field(default=None, foreign_key="game.id")
    talk_id: int | None = Field(default=None, foreign_key="talk.id")
    created_at: datetime


class Bar(SQLModel, table=True):
    """An account the operator barred from open tables, leagues and ratings (`pbem bar`)."""

    player_id: int = Field(foreign_key="player.id", primary_key=True)
    reason: str = Field(default="", max_length=300)
    created_at: datetime


class GameReview(SQLModel, table=True):
    """A seat's review of a finished game (pbem.bots.review), asked by its player and worked
    out once by the computer workers (pbem.clock.reviews), which lease it while they do."""

    # The workers look for reviews not done, or done and not yet mailed as asked.
    __table_args__ = (
        UniqueConstraint("game_id", "seat"),
        Index("ix_gamereview_todo", "done_at", "mailed_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")
    seat: int
    asked_at: datetime
    mail: bool = False  # the player asked for it by mail too
    # Until when a worker holds it (others skip it meanwhile; a killed worker's lease runs out).
    claimed_until: datetime | None = None
    done_at: datetime | None = None
    mailed_at: datetime | None = None  # when its mail was queued in the outbox (once)
    # {"seat", "simulations", "decisions": [...], "costliest": [plies]}: Review.to_json.
    result: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
