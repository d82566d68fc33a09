"""The errors a request can end in, below every layer so that forms, storage and play share them."""

from __future__ import annotations

from typing import Any


class PlayError(Exception):
    """A request the game cannot take; carries a catalogue key for the page."""

    status = 400

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


class Stale(PlayError):
    """The move was made for a turn that has already been played."""

    status = 409


class Gone(PlayError):
    """The game is not in a state that allows this."""

    status = 409
