"""What every game's pages and mails share: the game's title and its move log for one reader."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from pbem.games.message import Message
from pbem.models import Game, Seat
from pbem.present.i18n import tr
from pbem.present.text import game_name, render_for


class FormError(ValueError):
    """A game's turn form is incomplete or garbled; carries a catalogue key."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def game_title(game: Game, lang: str) -> str:
    """The game's name and number, e.g. "Colour Bazaar #12"."""
    return f"{game_name(game.slug, lang)} #{game.id}"


def result_names(seats: list[Seat], lang: str) -> list[str]:
    """The players' names for a results table, a seat whose player left marked as such."""
    return [tr(lang, "%(name)s (left)", name=s.name) if s.left else s.name for s in seats]


class LogEntry(Protocol):
    """What the log needs of a move: a Move row, or the lighter store.LoggedMove."""

    ply: int
    seat: int
    source: str
    created_at: datetime
    lines: dict[str, Any]


def log_lines(
    moves: Sequence[LogEntry], viewer: int | None, lang: str, names: list[str]
) -> list[dict[str, Any]]:
    """The move log as `viewer` may read it: ply, seat, source, time and sentences (its own
    moves said to it as "you"), with each sentence's catalogue key (a game may show some
    lines as a table of their own)."""
    key = "watch" if viewer is None else str(viewer)
    return [
        {
            "ply": m.ply,
            "seat": m.seat,
            "source": m.source,
            "at": m.created_at,
            "text": [
                render_for(Message.from_json(x), lang, names, viewer) for x in m.lines.get(key, [])
            ],
            "keys": [str(x["key"]) for x in m.lines.get(key, [])],
        }
        for m in moves
    ]
