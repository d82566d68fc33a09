"""What a player's acts over the API take and answer, beyond a game's moves and a seat's
notes and plans (pbem.web.apimodels): settings and vacations, open tables (the list,
posting, withdrawing, a seat taken), standing seeks, blocks, leagues made, and a game's
log exported.

A body that a page's form also reads is made into the form's fields and read by the
form itself (pbem.opentables.forms, pbem.leagues.setup), so the API refuses what the
page refuses, with the page's message; these models only check the JSON's types.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pbem.web.apimodels import Answer, Deal, Lang, League, Slug


def _share(description: str) -> Any:
    """A player's share of a checkable deal: none by default, as long as its column keeps."""
    return Field(default="", max_length=200, description=description)


class SettingsRequest(BaseModel):
    """The player's settings to change; a key left out keeps its value."""

    model_config = ConfigDict(strict=True, extra="ignore")

    auto_vacation: bool | None = Field(
        default=None,
        description="When a deadline passes, take vacation days (while the allowance lasts) "
        "instead of a timeout",
    )


class Settings(Answer):
    """The player's settings, as they now stand (for all their games)."""

    auto_vacation: bool


class VacationRequest(BaseModel):
    """A vacation to start now."""

    model_config = ConfigDict(strict=True, extra="ignore")

    days: int = Field(description="How many days, from now: 1 to the most one vacation takes")


class Vacation(Answer):
    """The player's vacation (for all their games) and the days left of this year's allowance."""

    away: bool = Field(description="Whether a vacation is under way or still to come")
    starts_at: datetime | None
    ends_at: datetime | None = Field(description="When the clocks run again")
    days_left: int = Field(ge=0, description="Vacation days left this calendar year")


class JoinRequest(BaseModel):
    """Taking a seat at an open table, or joining a league: {} will do."""

    model_config = ConfigDict(strict=True, extra="ignore")

    share: str = _share(
        "The checkable deal of the table's game (or of each of the league's "
        "games): the player's share, as the page's script makes it (empty: none)"
    )


class Seated(Answer):
    """The seat taken at an open table, with its link's token (a secret: keep it)."""

    game: int
    seat: int = Field(ge=0)
    token: str = Field(description="The seat's link token: /api/v1/seat/<token>, /p/<token>")


class SeekRequest(BaseModel):
    """A standing seek, as the open tables page's form takes it."""

    model_config = ConfigDict(strict=True, extra="ignore")

    game: Slug
    lang: Lang = "en"
    rating_min: int | None = Field(default=None, description="The others' lowest rating")
    rating_max: int | None = Field(default=None, description="The others' highest rating")
    share: str = _share(
        "The player's share of the checkable deal of the game the seek seats "
        "them in, as the page's script makes it (empty: none)"
    )


class StandingSeek(Answer):
    """One of the player's standing seeks."""

    id: int
    game: Slug
    lang: Lang
    rating_min: int | None
    rating_max: int | None


class Seeks(Answer):
    """The signed-in player's standing seeks, and the seat a new seek took at once, if any."""

    seeks: list[StandingSeek]
    seated: Seated | None = Field(description="Matched at once: the seat it took, with its link")


class Blocked(Answer):
    """Whether the signed-in player now blocks this player."""

    player: int
    blocked: bool


class OpenSeat(Answer):
    """A player seated at an open table: their name and shown rating in its game."""

    name: str
    rating: int = Field(description="The player's rating in this game (1500 before any)")


class OpenTableEntry(Answer):
    """One open table: a game waiting for players, as anyone may see it."""

    game: int = Field(description="The game's number")
    slug: Slug
    language: Lang
    seats: int = Field(ge=2, description="Seats wanted in all, the poster's included")
    taken: int = Field(ge=1, description="Seats taken so far, private players' included")
    players: list[OpenSeat] = Field(
        description="The players seated so far, poster first; a private player is not listed"
    )
    rating_min: int | None = Field(description="A joiner's rating at least; null: no bound")
    rating_max: int | None = Field(description="A joiner's rating at most; null: no bound")
    rated: bool
    options: dict[str, Any] = Field(description="The game's options, as the rules name them")
    days_per_move: int | None = Field(description="Days allowed per move; null: no limit")
    clock: Literal["move", "fischer", "bank"]
    created_at: datetime


class OpenTables(Answer):
    """A page of the open tables, newest first (a signed-in reader's blocks left out)."""

    tables: list[OpenTableEntry]
    page: int = Field(ge=0)
    more: bool = Field(description="Whether an older page follows")


class TimeControlRequest(BaseModel):
    """A game's time control, as the new-game form's fields take it (the same checks)."""

    model_config = ConfigDict(strict=True, extra="ignore")

    days_per_move: int | None = Field(default=3, description="Days per move; null: no limit")
    clock: str = Field(default="move", description="move, fischer or bank (see TimeControl)")
    clock_add: int | None = Field(default=None, description="Days added after each move (fischer)")
    clock_cap: int | None = Field(default=None, description="Most days on a clock or in a bank")
    days_off: list[int] = Field(
        default_factory=list, description="Weekdays (0 Monday .. 6 Sunday) no clock runs"
    )
    reminders: list[str] = Field(
        default_factory=lambda: ["24h", "80%"],
        description="When to remind the player to move: hours left (24h) or time used (80%)",
    )
    absent_after: int = Field(default=3, description="Missed turns before a seat is absent")
    takeover: str | None = Field(
        default="casual", description="The computer level that plays an absent seat; null: none"
    )


class OpenTableRequest(TimeControlRequest):
    """An open table to post, as the open tables page's form takes it; a field it refuses
    gets the page's message."""

    game: str = Field(description="colour-bazaar or fantasy-business")
    seats: int = Field(default=2, description="Seats wanted in all, the poster's included")
    lang: str = Field(default="en", description="The table's language: en or fr")
    rating_min: int | None = Field(default=None, description="A joiner's lowest rating")
    rating_max: int | None = Field(default=None, description="A joiner's highest rating")
    rated: bool = False
    options: dict[str, bool | int | str | None] = Field(
        default_factory=dict,
        description="The game's options by name, as the open tables list names them; one left "
        "out: its default",
    )
    share: str = _share("The poster's share of the checkable deal")


class Withdrawn(Answer):
    """An open table its poster called off."""

    game: int
    withdrawn: bool


class LeagueRequest(TimeControlRequest):
    """A league to make, as the new-league page's form takes it; a field it refuses gets
    the page's message."""

    name: str
    game: str = Field(description="colour-bazaar or fantasy-business")
    format: str = Field(default="round_robin", description="round_robin or swiss")
    table_size: int = Field(default=2, description="Players at each game")
    most_players: int = Field(default=8, description="The most players; it starts when full")
    rounds: int = Field(default=0, description="Swiss or tables of several: rounds (0: auto)")
    is_open: bool = Field(default=False, description="Anyone signed in with its link joins")
    rated: bool = False
    invites: list[str] = Field(
        default_factory=list,
        description="Addresses to invite, each alone or as 'Bea <bea@example.org>'",
    )
    share: str = _share(
        "The organiser's share of the checkable deal of each of the league's "
        "games, as the page's script makes it (empty: none)"
    )


class NewLeague(Answer):
    """The league made, and its key (its page is /leagues/<key>: keep it)."""

    key: str = Field(description="The league's key, as in /leagues/<key> and /api/v1/leagues/<key>")
    league: League


class EmptyRequest(BaseModel):
    """No field: {} will do (a JSON body, which no form on another site can send)."""

    model_config = ConfigDict(strict=True, extra="ignore")


class LogMessage(Answer):
    """A log line as stored: its catalogue key and parameters (text holds it in words)."""

    key: str
    params: dict[str, Any]


class ExportedMove(Answer):
    """One move of the exported log, as the reader was told of it."""

    ply: int = Field(ge=1)
    player: str
    seat: int = Field(ge=0)
    source: str = Field(description="web, api, mail, timeout, computer, ...")
    at: datetime
    text: list[str] = Field(description="The reader's log lines, in words")
    messages: list[LogMessage]
    move: dict[str, Any] | None = Field(
        default=None, description="The move itself, once the game is over"
    )


class Reshuffle(Answer):
    """Where a take back shuffled the draw pile: a replay shuffles it again there."""

    after_moves: int = Field(ge=0)
    number: int = Field(ge=0)


class Export(Answer):
    """A game's log as one seat may keep it (the page's export.json): while it runs, only
    what the seat was told; once it is over, the moves and the seed too."""

    game: Slug
    id: int
    status: Literal["forming", "active", "over", "cancelled"]
    options: dict[str, Any]
    players: list[str]
    moves: list[ExportedMove]
    seed: int | None = Field(default=None, description="Once the game is over")
    outcome: dict[str, Any] | None = Field(default=None, description="Once the game is over")
    reshuffles: list[Reshuffle] | None = Field(default=None, description="After take backs")
    deal: Deal | None = Field(default=None, description="The checkable deal, as far as shown")
    notes: str | None = Field(default=None, description="The seat's own private notes")
