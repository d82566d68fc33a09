"""The sentence a game speaks in: a catalogue key and its parameters, as plain data."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Message:
    """A translatable sentence: a catalogue key and its parameters.

    Parameters follow a naming convention read by `pbem.present.text`: a key
    ending in `card` holds a card id, `cards` a list of card ids, `suit` a suit
    id, `seat` a seat number, `market` a market index (shown from 1), `limits` a list
    of [seat, amount or None] pairs ("Ana 7, Léo –"); others are shown as they are.
    """

    key: str
    params: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The message as plain data, for storage."""
        return {"key": self.key, "params": dict(self.params)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Message:
        """Rebuild a message stored with `to_json`."""
        return cls(data["key"], dict(data.get("params", {})))
