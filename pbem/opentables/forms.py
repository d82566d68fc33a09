"""What the open-table and seek forms may send (pbem.opentables): the game, the seats, the
language, an optional rating range and whether the game is rated."""

from __future__ import annotations

from typing import Any, Self

from pydantic import Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from pbem.games import GAMES
from pbem.present.forms import Form
from pbem.present.i18n import languages

RATING_LOW, RATING_HIGH = 0, 4000  # a bound outside these is no rating anyone has
_TICKED = ("1", "on", "true", "yes")


def _refuse(key: str, **params: Any) -> PydanticCustomError:
    return PydanticCustomError(key, key, params)


class SeekForm(Form):
    """A standing seek: a game kind, a language and the other players' rating range."""

    game: str
    lang: str = "en"
    rating_min: int | None = Field(default=None, ge=RATING_LOW, le=RATING_HIGH)
    rating_max: int | None = Field(default=None, ge=RATING_LOW, le=RATING_HIGH)
    refusals = {
        "game": ("lobby.error.no_such_game", {}),
        "lang": ("open.error.lang", {}),
        "rating_min": ("open.error.bad_range", {"low": RATING_LOW, "high": RATING_HIGH}),
        "rating_max": ("open.error.bad_range", {"low": RATING_LOW, "high": RATING_HIGH}),
    }

    @field_validator("game", mode="before")
    @classmethod
    def _game(cls, value: Any) -> str:
        if not isinstance(value, str) or value not in GAMES:
            raise _refuse("lobby.error.no_such_game")
        return value

    @field_validator("lang", mode="before")
    @classmethod
    def _lang(cls, value: Any) -> str:
        if value not in languages():
            raise _refuse("open.error.lang")
        return str(value)

    @field_validator("rating_min", "rating_max", mode="before")
    @classmethod
    def _blank(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.strip()[:8]
            if not value:
                return None
            if not value.isdecimal():
                raise _refuse("open.error.bad_range", low=RATING_LOW, high=RATING_HIGH)
        return value

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if None not in (self.rating_min, self.rating_max) and (
            (self.rating_min or 0) > (self.rating_max or 0)
        ):
            raise _refuse("open.error.bad_range", low=RATING_LOW, high=RATING_HIGH)
        return self

    @property
    def rating_range(self) -> tuple[int | None, int | None]:
        """(lowest, highest), either end None when open."""
        return self.rating_min, self.rating_max


class OpenTableForm(SeekForm):
    """An open table: a seek's fields, the seats wanted in all and whether it is rated."""

    seats: int = Field(default=2, ge=2, le=8)
    rated: bool = False
    refusals = {**SeekForm.refusals, "seats": ("open.error.seats", {})}

    @field_validator("rated", mode="before")
    @classmethod
    def _ticked(cls, value: Any) -> bool:
        # A checkbox sends its value when ticked and nothing at all when not; the API, true.
        return value is True or value in _TICKED

    @model_validator(mode="after")
    def _seats_fit(self) -> Self:
        rules = GAMES[self.game]
        if not rules.min_players <= self.seats <= rules.max_players:
            raise _refuse("open.error.seats")
        return self
