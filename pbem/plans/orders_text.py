"""Standing orders written in a reply to a Fantasy Business turn mail, English or French.

Lines under the move that begin "standing:" (French "ordres :") set the seat's standing
orders, in place of those it had (pbem.games.fantasy_business.standing):
    standing: pass above 5        ordres : passer au-dessus de 5
    standing: base prices         ordres : prix de base
    standing: none                ordres : aucun
"""

from __future__ import annotations

import re
from typing import Any

from pbem.games import IllegalMove
from pbem.games.fantasy_business.standing import MOST, check_orders
from pbem.present.textmove import TextMoveError, number, words

_LINE = re.compile(r"^\s*(?:standing(?:\s+orders?)?|ordres?(?:\s+permanents?)?)\s*:\s*(.*)$", re.I)
_NONE = {"none", "cancel", "nothing", "aucun", "aucune", "annuler", "rien"}
_PASS = {"pass", "above", "passer", "passe", "dessu"}  # "dessus" folds to "dessu"
_BASE = {"base"}


def standing_lines(lines: list[str]) -> tuple[list[str], list[str]]:
    """The lines that set standing orders, and the others (where the move is looked for)."""
    orders = [line for line in lines if _LINE.match(line)]
    return orders, [line for line in lines if not _LINE.match(line)]


def read_orders(lines: list[str]) -> dict[str, Any]:
    """The orders the lines set ({} for "none"); TextMoveError for a line that sets none."""
    orders: dict[str, Any] = {}
    for line in lines:
        found = _LINE.match(line)
        assert found is not None  # standing_lines chose the lines
        said = words(found.group(1))
        amounts = [n for n in (number(w) for w in said) if n is not None]
        if set(said) & _NONE:
            orders = {}
        elif set(said) & _PASS and len(amounts) == 1:
            orders["pass_above"] = amounts[0]
        elif set(said) & _BASE and not amounts:
            orders["base_prices"] = True
        else:
            raise TextMoveError("standing.error.shape", line=line[:80])
    try:
        return check_orders(orders)
    except IllegalMove:
        raise TextMoveError("standing.error.amount", most=MOST) from None
