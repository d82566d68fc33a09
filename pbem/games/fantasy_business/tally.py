"""Fantasy Business holdings: article cards counted by seat, monopolies, goods value."""

from __future__ import annotations

from pbem.games.base import State
from pbem.games.fantasy_business.cards import ARTICLE_IDS, CARD_TYPE, base_price, card_type


def counts(state: State) -> list[dict[str, int]]:
    """Each seat's article cards, counted by article."""
    result: list[dict[str, int]] = []
    for held in state["articles"]:
        tally: dict[str, int] = {}
        for card in held:
            kind = CARD_TYPE[card] if card in CARD_TYPE else card_type(card)
            tally[kind] = tally.get(kind, 0) + 1
        result.append(tally)
    return result


def monopolies(state: State) -> dict[int, list[str]]:
    """Per seat, the articles of which they are the only owner."""
    held = counts(state)
    result: dict[int, list[str]] = {}
    for article in ARTICLE_IDS:
        owners = [seat for seat, c in enumerate(held) if article in c]
        if len(owners) == 1:
            result.setdefault(owners[0], []).append(article)
    return result


def goods_value(state: State, seat: int) -> int:
    """The base prices of the article cards a seat holds."""
    return sum(base_price(card) for card in state["articles"][seat])
