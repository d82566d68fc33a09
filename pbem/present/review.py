"""A game's review (pbem.bots.review's result) in words, for its page and its mail."""

from __future__ import annotations

from typing import Any

from pbem.games.message import Message
from pbem.present.text import render_for


def _words(said: list[dict[str, Any]], lang: str, names: list[str], seat: int, ahead: bool) -> str:
    """A move's lines as the seat reads its own: "You played…" (or, `ahead`, "You play…")."""
    return " ".join(
        render_for(Message.from_json(line), lang, names, seat, review=ahead) for line in said
    )


def percent(value: float) -> int:
    """A win chance (0..1) as a whole percentage."""
    return round(value * 100)


def decision_words(
    decision: dict[str, Any], lang: str, names: list[str], seat: int
) -> dict[str, Any]:
    """One decision for a page or a mail: its move number, both moves in words, both chances
    to win in percent and what the move played cost (percentage points)."""
    return {
        "ply": decision["ply"],
        "number": decision["ply"] + 1,
        "source": decision["source"],
        "played": _words(decision["played_said"], lang, names, seat, False),
        "best": _words(decision["best_said"], lang, names, seat, True),
        "played_chance": percent(decision["played_value"]),
        "best_chance": percent(decision["best_value"]),
        "cost": percent(decision["loss"]),
        "agrees": decision["agrees"],
    }


def review_words(result: dict[str, Any], lang: str, names: list[str]) -> dict[str, Any]:
    """The whole review in `lang`: the costliest moments first, then every decision."""
    seat = result["seat"]
    decisions = [decision_words(d, lang, names, seat) for d in result["decisions"]]
    by_ply = {d["ply"]: d for d in decisions}
    return {
        "costliest": [by_ply[ply] for ply in result["costliest"] if ply in by_ply],
        "decisions": decisions,
        "agreed": sum(1 for d in decisions if d["agrees"]),
        "simulations": result["simulations"],
    }
