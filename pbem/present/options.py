"""A game's options in words, as the invitation, the rules page and the game page list them."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from babel import Locale

from pbem.games import GAMES
from pbem.models import Game, League, Seat
from pbem.present.i18n import ntr, tr
from pbem.present.text import join_names, say
from pbem.present.timefmt import format_left


def option_lines(slug: str, options: dict[str, Any], names: list[str], lang: str) -> list[str]:
    """One line per option the game offers: its label and the value chosen for this game."""
    lines = []
    for opt in GAMES[slug].options:
        value = options.get(opt.name, opt.default)
        label = say(lang, f"option.{slug}.{opt.name}")
        if opt.kind == "bool":
            shown = tr(lang, "yes") if value else tr(lang, "no")
        elif opt.kind == "int" and opt.default is None:
            if isinstance(value, int) and 0 <= value < len(names):
                shown = names[value]
            else:
                shown = say(lang, "option.random")
        elif opt.kind == "choice" and isinstance(value, str):
            shown = say(lang, f"option.{slug}.{opt.name}.{value}")
        else:
            shown = str(value)
        lines.append(tr(lang, "%(option)s: %(value)s", option=label, value=shown))
    return lines


def time_control(game: Game | League, lang: str) -> str:
    """The clock of a game (or of a league's games) in words: "3 days per move", a Fischer
    clock or a time bank, and the weekdays on which the clocks stop; or "No time limit"."""
    days = game.days_per_move
    if days is None:
        return tr(lang, "No time limit")
    if game.clock == "fischer":
        text = tr(
            lang,
            "Fischer clock: %(start)s to start, %(add)s more after each move, at most %(cap)s",
            start=_days(days, lang),
            add=_days(game.clock_add or 0, lang),
            cap=_days(game.clock_cap or days, lang),
        )
    elif game.clock == "bank":
        text = tr(
            lang,
            "%(days)s per move, and unused time kept in a bank of up to %(cap)s",
            days=_days(days, lang),
            cap=_days(game.clock_cap or 0, lang),
        )
    else:
        text = ntr(lang, "%(num)s day per move", "%(num)s days per move", days)
    # A league's games have no days off (pbem.leagues.rounds.timing_of).
    days_off = game.days_off if isinstance(game, Game) else []
    if days_off:
        off = join_names([weekday_name(d, lang) for d in days_off], lang)
        text = tr(
            lang,
            "%(clock)s; no clock runs on %(days)s (in each player's time zone)",
            clock=text,
            days=off,
        )
    return text


def banked(game: Game, seat: Seat) -> timedelta | None:
    """The time the seat keeps for its coming turns (public, as clocks are); None for a
    per-move clock or a computer seat (a computer has no clock)."""
    if seat.computer:
        return None
    if game.clock == "fischer":
        if seat.banked is None:
            return timedelta(days=game.days_per_move or 0)
        return timedelta(seconds=seat.banked)
    if game.clock == "bank":
        return timedelta(seconds=seat.banked or 0)
    return None


def banks_text(game: Game, seats: list[Seat], lang: str) -> str:
    """Every seat's banked time in words, "Ana: 2 days, Zoé: less than an hour"; "" for a
    per-move clock."""
    parts = []
    for seat in seats:
        kept = banked(game, seat)
        if kept is not None:
            when = format_left(kept, lang) if kept else say(lang, "clock.nothing")
            parts.append(tr(lang, "%(name)s: %(time)s", name=seat.name, time=when))
    return ", ".join(parts)


def weekday_name(day: int, lang: str) -> str:
    """A weekday's name (0 Monday .. 6 Sunday) in the language (CLDR)."""
    return str(Locale.parse(lang).days["format"]["wide"][day])


def _days(number: int, lang: str) -> str:
    return ntr(lang, "%(num)s day", "%(num)s days", number)
