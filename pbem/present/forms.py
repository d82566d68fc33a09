"""What the site's forms may send, as small pydantic models that turn form text into values.

A model refuses a bad field with the catalogue key of its message, so the page answers
with the same clear 400 as a rule would (`read_form` raises PlayError). Each game keeps
its own move-form parser, in pbem/present/<game>.py.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from pbem.bots import LEVELS
from pbem.errors import PlayError
from pbem.games.base import Game, Option
from pbem.present.text import neutralise_encoded_words
from pbem.timing.clocks import KINDS

EMAIL = re.compile(r"^[^@\s<>\"',;]+@[^@\s<>\"',;]+\.[^@\s<>\"',;]+$")
NAME_MAX = 40
MAX_VACATION_DAYS = 60
TALK_MAX = 1000
_NAME_JUNK = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")
_TALK_JUNK = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
FISCHER_ADD, FISCHER_CAP, BANK_CAP = 1, 7, 7  # days: the new-game form's defaults
_TICKED = ("1", "on", "true", "yes")
_ITEM = re.compile(r"^\s*(\d{1,3})\s*(h|%)\s*$")  # one reminder: hours or % of the time


class ScheduleError(ValueError):
    """A reminder schedule that cannot be read."""


def parse_schedule(text: str | list[str]) -> list[str]:
    """Normalise a reminder schedule such as "24h, 80%"; ScheduleError if it is not one."""
    items = text if isinstance(text, list) else [p for p in re.split(r"[,\s]+", text) if p]
    result = []
    for item in items:
        match = _ITEM.match(str(item))
        if not match:
            raise ScheduleError(str(item))
        number, unit = int(match[1]), match[2]
        if (unit == "h" and not 1 <= number <= 336) or (unit == "%" and not 1 <= number <= 99):
            raise ScheduleError(str(item))
        result.append(f"{number}{unit}")
    if len(result) > 6:
        raise ScheduleError("too many")
    return sorted(set(result), key=result.index)


class Form(BaseModel):
    """A form's fields; `refusals` names the catalogue key (and parameters) of each bad field."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    refusals: ClassVar[dict[str, tuple[str, dict[str, Any]]]] = {}

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> Self:
        """The form checked; PlayError with the key of the first field it refuses."""
        try:
            return cls.model_validate(dict(data))
        except ValidationError as exc:
            raise _refusal(cls.refusals, exc.errors()[0]) from None

    @model_validator(mode="before")
    @classmethod
    def _as_posted(cls, data: Any) -> Any:
        return cls.posted(dict(data)) if isinstance(data, dict) else data

    @classmethod
    def posted(cls, data: dict[str, Any]) -> dict[str, Any]:
        """The fields as a page's form posts them (a copy), made into the model's fields."""
        return data


def _refusal(refusals: dict[str, tuple[str, dict[str, Any]]], error: Any) -> PlayError:
    """A validation error as PlayError: our own key if a validator gave one, else the field's."""
    if error["type"] not in refusals and "." in error["type"]:
        return PlayError(error["type"], **(error.get("ctx") or {}))
    key, params = refusals[str(error["loc"][0])]
    return PlayError(key, **params)


def _refuse(key: str, **params: Any) -> PydanticCustomError:
    return PydanticCustomError(key, key, params)


def clean_name(name: str) -> str:
    """A display name with no control characters nor encoded words, trimmed to a sane length."""
    # Mail headers: "=?...?=" would be decoded by mail software (CVE-2024-6923).
    return neutralise_encoded_words(_NAME_JUNK.sub("", name)).strip()[:NAME_MAX]


class InviteeForm(BaseModel):
    """One player of the new-game form: a name and a mail address."""

    model_config = ConfigDict(frozen=True)
    name: str
    email: str
    lang: str = "en"

    @field_validator("name", mode="before")
    @classmethod
    def _name(cls, value: Any) -> str:
        name = clean_name(str(value))
        if not name:
            raise _refuse("lobby.error.name_missing")
        return name

    @field_validator("email", mode="before")
    @classmethod
    def _email(cls, value: Any) -> str:
        email = str(value).strip().lower()
        if len(email) > 254 or not EMAIL.match(email):
            raise _refuse("lobby.error.email_invalid")
        return email


class PlayersForm(BaseModel):
    """The players of a new game, creator first: each named, each address once."""

    players: list[InviteeForm] = Field(min_length=1)

    @model_validator(mode="after")
    def _each_address_once(self) -> Self:
        seen: set[str] = set()
        for person in self.players:
            if person.email in seen:
                raise _refuse("lobby.error.email_twice", email=person.email)
            seen.add(person.email)
        return self

    @classmethod
    def read(cls, players: list[dict[str, Any]]) -> list[InviteeForm]:
        """The players checked; PlayError names the first problem and the row it is on."""
        try:
            return cls.model_validate({"players": players}).players
        except ValidationError as exc:
            error = exc.errors()[0]
            ours = "." in error["type"]  # a key from a validator above, not pydantic's own
            key = error["type"] if ours else "lobby.error.name_missing"
            where, params = error["loc"], dict(error.get("ctx") or {}) if ours else {}
            if len(where) >= 2:  # a bad name or address, on row where[1]
                params = {"number": int(where[1]) + 1}
            elif not params:  # no players at all
                params = {"number": 1}
            raise PlayError(key, **params) from None


class TimeControl(Form):
    """A game's time control: days per move (None: no limit), reminders, absences, and who
    plays an absent seat."""

    days_per_move: int | None = Field(default=3, ge=1, le=14)
    reminders: list[str] = Field(default_factory=lambda: ["24h", "80%"])
    absent_after: int = Field(default=3, ge=1, le=10)
    # The computer level that plays an absent seat until its person is back (None: none).
    takeover: str | None = "casual"
    # The clock kind (pbem.timing.clocks): "move", "fischer" or "bank", with its days.
    clock: str = "move"
    # At least a day: a Fischer clock emptied by a timeout must give the next turn some time.
    clock_add: int | None = Field(default=None, ge=1, le=7)
    clock_cap: int | None = Field(default=None, ge=1, le=60)
    days_off: list[int] = Field(default_factory=list, max_length=6)
    refusals = {
        "clock": ("lobby.error.clock", {}),
        "clock_add": ("lobby.error.clock_add", {}),
        "clock_cap": ("lobby.error.clock_cap", {}),
        "days_off": ("lobby.error.days_off", {}),
        "days_per_move": ("lobby.error.days_per_move", {}),
        "reminders": ("lobby.error.reminders", {}),
        "absent_after": ("lobby.error.absent_after", {}),
        "takeover": ("lobby.error.level", {}),
    }

    @field_validator("takeover", mode="before")
    @classmethod
    def _level(cls, value: Any) -> Any:
        if value in (None, "", "none"):
            return None
        if value not in LEVELS:
            raise _refuse("lobby.error.level")
        return value

    @field_validator("days_per_move", mode="before")
    @classmethod
    def _no_limit(cls, value: Any) -> Any:
        return None if value == "none" else value

    @classmethod
    def posted(cls, data: dict[str, Any]) -> dict[str, Any]:
        """The clock's fields as the form posts them: a box per weekday, a field per kind."""
        # The plain form sends one checkbox per weekday (off_0 Monday .. off_6 Sunday).
        if "days_off" not in data:
            data["days_off"] = [d for d in range(7) if data.get(f"off_{d}") in _TICKED]
        # The form always sends the fields of every kind; only the chosen kind's are read.
        # Each kind has its own "most days" field there (clock_cap_fischer, clock_cap_bank).
        kind = data.get("clock", "move")
        if data.get(f"clock_cap_{kind}") not in ("", None):
            data["clock_cap"] = data[f"clock_cap_{kind}"]
        if kind != "fischer" or data.get("clock_add") in ("", None):
            data.pop("clock_add", None)
        if kind == "move" or data.get("clock_cap") in ("", None):
            data.pop("clock_cap", None)
        return data

    @field_validator("days_off")
    @classmethod
    def _weekdays(cls, value: list[int]) -> list[int]:
        if any(not 0 <= day <= 6 for day in value):
            raise _refuse("lobby.error.days_off")
        return sorted(set(value))

    @model_validator(mode="after")
    def _clock_fits(self) -> Self:
        if self.clock not in KINDS:
            raise _refuse("lobby.error.clock")
        if self.clock != "move" and self.days_per_move is None:
            raise _refuse("lobby.error.clock_no_limit")
        if self.clock == "fischer" and (self.clock_cap or 0) < (self.days_per_move or 0):
            raise _refuse("lobby.error.clock_cap")
        return self

    def clock_settings(self) -> tuple[int | None, int | None]:
        """The chosen kind's (days added per move, cap in days), defaults filled in."""
        if self.clock == "fischer":
            return (
                FISCHER_ADD if self.clock_add is None else self.clock_add,
                self.clock_cap or max(FISCHER_CAP, self.days_per_move or 0),
            )
        if self.clock == "bank":
            return None, self.clock_cap or BANK_CAP
        return None, None

    @field_validator("reminders", mode="before")
    @classmethod
    def _schedule(cls, value: Any) -> list[str]:
        try:
            return parse_schedule(value[:100] if isinstance(value, str) else value)
        except (ScheduleError, TypeError):
            raise _refuse("lobby.error.reminders") from None


def read_options(rules: Game, slug: str, form: Mapping[str, Any]) -> dict[str, Any]:
    """The game's options from the lobby form, typed by a model built from its Option list.

    Ranges and choices stay the rules' own check (Game.check_options); this reads the text.
    """
    fields: dict[str, Any] = {
        opt.name: (_OPTION_TYPES[opt.kind], opt.default) for opt in rules.options
    }
    model = create_model(f"Options_{slug}", **fields)
    data = {
        opt.name: _option_text(opt, form.get(f"opt_{slug}_{opt.name}")) for opt in rules.options
    }
    try:
        checked: dict[str, Any] = model.model_validate(data).model_dump()
        return checked
    except ValidationError as exc:
        raise PlayError("error.option_int", name=str(exc.errors()[0]["loc"][0])) from None


_OPTION_TYPES: dict[str, Any] = {"bool": bool, "int": int | None, "choice": str}


def _option_text(opt: Option, raw: Any) -> Any:
    if opt.kind == "bool":
        # A checkbox sends its value when ticked and nothing at all when not; the API, true.
        return raw is True or raw in _TICKED
    if opt.kind == "int" and raw in (None, "", "random"):
        return opt.default
    return raw if raw is not None else opt.default


class VacationForm(Form):
    """How many days of vacation to take, from now."""

    days: int = Field(ge=1, le=MAX_VACATION_DAYS)
    refusals = {"days": ("settings.error.days", {"high": MAX_VACATION_DAYS})}


class ExtendForm(Form):
    """The creator gives a seat more days on its move (how many: account.add_time's rule)."""

    seat: int = Field(ge=0, le=99)
    days: int = Field(ge=0, le=999)
    refusals = {"seat": ("extend.error.days", {}), "days": ("extend.error.days", {})}


class TalkForm(Form):
    """A table-talk message, to everyone ("all") or to one seat."""

    text: str = ""
    to: int | None = None
    refusals = {"to": ("talk.error.recipient", {}), "text": ("talk.error.empty", {})}

    @field_validator("to", mode="before")
    @classmethod
    def _recipient(cls, value: Any) -> Any:
        if value in (None, "all"):
            return None
        if not (isinstance(value, str) and value.isdecimal() and len(value) < 3):
            raise _refuse("talk.error.recipient")
        return int(value)

    @field_validator("text", mode="before")
    @classmethod
    def _text(cls, value: Any) -> str:
        text = _TALK_JUNK.sub("", str(value)).strip()
        if not text:
            raise _refuse("talk.error.empty")
        if len(text) > TALK_MAX:
            raise _refuse("talk.error.long", limit=TALK_MAX)
        return text


NOTE_MAX = 4000  # a seat's private notes on one game


class NoteForm(Form):
    """A seat's private notes on a game; empty clears them."""

    text: str = ""
    refusals = {"text": ("notes.error.long", {"limit": NOTE_MAX})}

    @field_validator("text", mode="before")
    @classmethod
    def _text(cls, value: Any) -> str:
        if not isinstance(value, str):
            raise _refuse("notes.error.long", limit=NOTE_MAX)
        text = _TALK_JUNK.sub("", value.replace("\r\n", "\n")).strip()
        if len(text) > NOTE_MAX:
            raise _refuse("notes.error.long", limit=NOTE_MAX)
        return text
