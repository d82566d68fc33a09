"""A game's options in words, as the invitation, the rules page and the game page list them."""

from __future__ import annotations

from typing import Any

from pbem.games import GAMES
from pbem.present.i18n import ntr, tr
from pbem.present.text import say


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


def time_control(days_per_move: int | None, lang: str) -> str:
    """The game's time per move in words: "3 days per move" or "No time limit"."""
    if days_per_move is None:
        return tr(lang, "No time limit")
    return ntr(lang, "%(num)s day per move", "%(num)s days per move", days_per_move)
