"""The JSON API's bodies and answers as pydantic models: what it reads, what it answers
for a game, a seat's moves, notes, plans and orders, players and leagues read (those of a
player's other acts are in pbem.web.apiactmodels).

The API validates a move's body with MoveRequest, and the OpenAPI document
(pbem.web.openapi) is generated from these models, so the two cannot drift apart.
The answers are built by pbem.present.api; tests check each against its model here,
and the answer models forbid extra fields so that a field added there must be
described here too.

Hidden information: no model has a place for another seat's hand or secret. A View
carries only `view`, the rules' view for its reader (rules.view(state, viewer)),
and the log lines written for that reader.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, TypeVar

import orjson
from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError

# The languages and games the API answers in and for (tests/web/test_openapi.py checks
# these against pbem.present.i18n.languages() and pbem.games.GAMES).
Lang = Literal["en", "fr"]
Slug = Literal["colour-bazaar", "fantasy-business"]

ErrorCode = Literal[
    "bad_json",
    "bad_request",
    "bad_move",
    "illegal",
    "stale",
    "not_active",
    "take_back",
    "vacation",
    "refused",
    "signed_out",
    "not_found",
    "method_not_allowed",
    "too_large",
    "unsupported_media_type",
    "rate_limited",
    "forbidden",
    "unavailable",
    "http_error",
]


class Answer(BaseModel):
    """An answer's fields are exactly these: an unlisted one fails the schema checks."""

    model_config = ConfigDict(extra="forbid")


class Error(Answer):
    """Every refusal: a stable code and why, in the reader's language."""

    error: ErrorCode = Field(description="A stable code")
    message: str = Field(description="Why, in the reader's language")


class Seat(Answer):
    """One seat at the table, as everyone may see it."""

    seat: int = Field(ge=0)
    name: str
    status: Literal["invited", "joined", "declined"]
    deadline: datetime | None = Field(description="When this seat's move is due, if it is to act")
    away_until: datetime | None = Field(description="The end of the player's vacation, if away")
    banked: int | None = Field(
        description="Seconds kept for this seat's coming turns: its whole clock (fischer) or "
        "its bank (bank); null for a per-move clock"
    )
    absent: bool
    computer: str | None = Field(
        description="The level of the computer that plays this seat now (a computer seat, "
        "or an absent person's seat the game hands over), or null."
    )
    mail: Literal["ok", "bouncing", "off"] = Field(
        description="Whether pbem's mail reaches this seat's player: ok; bouncing (mail to "
        "them has bounced past the threshold, so none goes until they turn it back on: they "
        "may not know it is their turn); off (no mail goes: they asked for none, their mail "
        "provider reported ours as spam, or a computer plays the seat). Timeouts, vacations "
        "and takeovers go on as usual in every case."
    )


class Deal(Answer):
    """A checkable deal (see the README): what anyone may see of it now."""

    sealed: str = Field(description="SHA-256 sealing the server's secret, before anyone joined")
    committed: str | None = Field(None, description="SHA-256 committing the seed, once dealt")
    secret: str | None = Field(None, description="The server's secret, once the game is over")
    salt: str | None = Field(None, description="The salt, once the game is over")
    shares: list[str] | None = Field(None, description="Each seat's share, once it is over")
    unshared: list[int] | None = Field(
        None,
        description="Once dealt, the seats of people who gave no share: the deal rests on the "
        "server's secret and the others' shares alone",
    )


class TimeControl(Answer):
    """A time control, as a game has it (and a league gives each of its games)."""

    days_per_move: int | None = Field(description="Days allowed per move; null: no limit")
    clock: Literal["move", "fischer", "bank"] = Field(
        description="move: days_per_move each move; fischer: days_per_move to start, clock_add "
        "more after each move, up to clock_cap; bank: days_per_move each move, unused time kept "
        "up to clock_cap days"
    )
    clock_add: int | None = Field(description="Days added after each move (fischer)")
    clock_cap: int | None = Field(description="Most days on a clock (fischer) or in a bank")


class Game(TimeControl):
    """The game's public facts: who sits where, who is to act, how it ended."""

    id: int
    slug: Slug
    status: Literal["forming", "active", "over", "cancelled"]
    ply: int = Field(ge=0, description="Moves played so far")
    days_off: list[int] = Field(
        description="Weekdays (0 Monday .. 6 Sunday) on which no clock runs, in each player's "
        "own time zone"
    )
    seats: list[Seat]
    to_act: list[int] = Field(description="The seats the game waits for (empty unless active)")
    outcome: dict[str, Any] | None = Field(
        description="Scores, ranks and their breakdown, once the game is over"
    )
    deal: Deal | None = Field(description="The checkable deal; null for a game given its seed")


class LogLine(Answer):
    """One move of the log, as this reader may read it."""

    ply: int = Field(ge=0)
    seat: int = Field(ge=0)
    source: str = Field(description="web, timeout, cli, ...")
    text: list[str]


class TakeBackState(Answer):
    """Undo with consent, as this seat stands: whether it may ask, or has a question to answer."""

    may_ask: bool = Field(description="The seat may ask to take back its last move now")
    asked_by: str | None = Field(
        description="The player who asks this seat to let them take back their move, or null"
    )
    waiting_for: str | None = Field(
        description="The player this seat's own request waits on, or null"
    )


class TakenBack(Answer):
    """A move taken back with the next player's consent: it left the log at its ply."""

    ply: int = Field(ge=0, description="The ply of the move taken back (played again since)")
    seat: int = Field(ge=0, description="The mover, who asked")
    agreed_by: int = Field(ge=0, description="The seat that allowed it")
    at: str | None = Field(description="When it was allowed (ISO 8601)")


class View(Answer):
    """The game as its reader (a seat, or an onlooker) may see it."""

    game: Game
    seat: int | None = Field(ge=0, description="The reader's seat; null for an onlooker")
    lang: Lang
    view: dict[str, Any] | None = Field(
        description="The game as this reader may see it (the rules' view, with no other "
        "seat's hand or secret); null before the game starts"
    )
    legal_moves: list[dict[str, Any]] = Field(
        description="Moves the rules accept now (for bids and prices a sample: any amount "
        "in range is accepted); empty when the reader may not move"
    )
    turn: str | None = Field(
        description="The turn token to send with a move; null when the reader may not move"
    )
    log: list[LogLine] = Field(description="The last moves, as this reader may read them")
    log_from: int = Field(ge=0, description="The first ply in log")
    taken_back: list[TakenBack] = Field(
        default_factory=list, description="Every move taken back in the game, oldest first"
    )
    take_back: TakeBackState | None = Field(
        default=None, description="Undo with consent (Colour Bazaar seats); null otherwise"
    )


class Standing(Answer):
    """A Fantasy Business seat's standing orders: secret to this seat."""

    may_order: bool = Field(description="True in a Fantasy Business game under way")
    pass_above: int | None = Field(
        description="Pass on every lot whose price is above this many écus; null: no order"
    )
    base_prices: bool = Field(description="Price each article at its base price")


class KindRating(Answer):
    """A player's Glicko-2 rating in one game kind."""

    kind: Slug
    rating: int = Field(description="The rating, rounded (1500 to start)")
    deviation: int = Field(ge=0, description="The rating deviation (RD), rounded")
    games: int = Field(ge=0, description="Rated games finished in this kind")
    provisional: bool = Field(description="True while the deviation is above 110")


class PlayerRatings(Answer):
    """A player's public facts: their name and ratings (no address, no game's secret)."""

    id: int
    name: str
    computer: str | None = Field(description="The level, for a computer player's account")
    ratings: list[KindRating] = Field(description="The kinds the player is rated in")


class LeagueLine(Answer):
    """One player's line of a league's standings."""

    place: int = Field(ge=1, description="Equal lines share a place")
    name: str
    points: float = Field(description="Points by rank: (n - place) / (n - 1) a game; a bye 1")
    played: int = Field(ge=0, description="Games finished")
    playing: int = Field(ge=0, description="Games still being played")
    won: int = Field(ge=0, description="Games won (first place, shared or not)")
    byes: int = Field(ge=0, description="Swiss byes")
    tiebreak: float = Field(description="Sonneborn-Berger")
    dropped: bool = Field(description="The player left the league")


class LeaguePlayer(Answer):
    """A player at one of a league's games."""

    name: str
    left: bool = Field(description="The player left: the computer plays the seat")
    to_act: bool = Field(description="The game waits on this player")
    rank: int | None = Field(description="Their place once the game is over; null before")


class LeagueGame(Answer):
    """One game of a league, as anyone may see it."""

    id: int
    round: int = Field(ge=1)
    status: Literal["forming", "active", "over", "cancelled"]
    watch_link: str = Field(description="The game's spectator page")
    players: list[LeaguePlayer]


class League(TimeControl):
    """A league's standings and games: public facts only (names, results, whose move); the
    time control each of its games gets."""

    name: str
    slug: Slug
    format: Literal["round_robin", "swiss"]
    status: Literal["forming", "running", "finished"]
    round: int = Field(ge=0, description="The latest round started")
    rounds: int = Field(ge=0, description="Swiss (and tables of several): rounds planned")
    rounds_played: int = Field(ge=0, description="Rounds whose every game has ended")
    rounds_total: int | None = Field(
        ge=1,
        description="Rounds in all: a round robin's schedule, the Swiss rounds planned (those "
        "played, once it is over); null while forming when the number who join decides it",
    )
    table_size: int = Field(ge=2, description="Players at each game")
    organiser: str
    joined: list[str] = Field(description="The players in the league")
    standings: list[LeagueLine]
    games: list[LeagueGame]


class StandingRequest(BaseModel):
    """Standing orders to keep in place of the seat's (both left out: none)."""

    model_config = ConfigDict(strict=True, extra="ignore")

    pass_above: int | None = Field(default=None, ge=0, le=1000, description="N, or null")
    base_prices: bool = Field(default=False, description="Price each article at its base")


class Document(RootModel[dict[str, Any]]):
    """The OpenAPI document itself."""


class MoveRequest(BaseModel):
    """A move's body: the turn it was chosen for and the move, shaped as in legal_moves."""

    # Strict: a number is no turn token, and a list is no move. Other keys are ignored,
    # as they were before the API had a model (a client may send more than we read).
    model_config = ConfigDict(strict=True, extra="ignore")

    turn: str = Field(max_length=100, description="The turn token from the view")
    move: dict[str, Any] = Field(description="A move shaped as in legal_moves")


class Notes(Answer):
    """A seat's private notes on the game: only that seat's link reads or writes them."""

    text: str = Field(description="The notes, empty when none were written")
    updated_at: datetime | None = Field(description="When they were last saved")
    limit: int = Field(description="The most characters they may hold")


class NotesRequest(BaseModel):
    """New notes for the seat; an empty text clears them."""

    model_config = ConfigDict(strict=True, extra="ignore")

    text: str = Field(description="The notes (at most `limit` characters, as Notes gives)")


class PlanBranch(BaseModel):
    """One branch of a plan: their move, my answer, and what follows (one level more)."""

    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    if_: dict[str, Any] = Field(alias="if", description="Their move, shaped as in legal_moves")
    then: dict[str, Any] = Field(description="My answer, shaped as in legal_moves")
    next: list[PlanBranch] = Field(
        default_factory=list, description="Branches for their move after my answer (one level)"
    )


class PlanRequest(BaseModel):
    """A plan ahead to keep in place of the seat's (an empty one drops it)."""

    model_config = ConfigDict(strict=True, extra="ignore")

    plan: list[PlanBranch] = Field(
        max_length=12, description="Their move -> my answer, at most two levels"
    )


class Plan(Answer):
    """The reader's own plan ahead (conditional moves): secret to this seat until the end."""

    may_plan: bool = Field(
        description="True in a two-player Colour Bazaar while the other is to move"
    )
    plan: list[dict[str, Any]] = Field(description="The branches kept: if, then, next")
    note: Literal["used", "cancelled"] | None = Field(
        description="Whether the last plan was played ahead or cancelled by a move it did not name"
    )
    their_moves: list[dict[str, Any]] = Field(
        description="The other's moves a plan may name now, as far as this seat can see"
    )


Body = TypeVar("Body", bound=BaseModel)


def read_body(data: bytes, model: type[Body]) -> Body | Literal["bad_json", "bad_request"]:
    """What a body holds as `model` (a move, notes, a plan, orders, settings, an answer),
    or why it holds none: "bad_json" for a body that is no JSON (or nested too deeply),
    "bad_request" for JSON of another shape."""
    try:
        # orjson refuses nesting past 1,024 levels with a JSONDecodeError, where the
        # standard parser would raise RecursionError (an answer 500); it also refuses
        # NaN and Infinity, which no body holds.
        body = orjson.loads(data)
    except orjson.JSONDecodeError:
        return "bad_json"
    try:
        return model.model_validate(body)
    except ValidationError:
        return "bad_request"


def read_move(data: bytes) -> MoveRequest | Literal["bad_json", "bad_request"]:
    """The move a body holds, or why it holds none (read_body)."""
    return read_body(data, MoveRequest)


class TakeBackAnswer(BaseModel):
    """The next player's answer to a request to take back a move."""

    model_config = ConfigDict(strict=True, extra="ignore")

    answer: Literal["allow", "refuse"]
