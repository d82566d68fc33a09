"""Fantasy Business prices: each rival's next price guessed from the prices they showed.

Spec, A round, 4-5: every price is revealed after the round, so how a seat prices is
public. Players keep habits: the same price again, the cheapest rival's last price, one
écu under it, the floor or the ceiling. Each habit is scored by how often it would have
foretold a seat's past prices on articles it shared; the habits that did best, weighted
by their hits, give that seat's likely prices now. A price is then chosen to earn most
against them: in one round, matching the lowest rival earns price + 2 a card, one écu
under earns one less, and the highest price earns nothing.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from pbem.games.base import State
from pbem.games.fantasy_business.cards import ARTICLE_BY_ID
from pbem.games.fantasy_business.income import earned

# A habit: (the seat's own last price, the other sellers' last prices, base) -> a price.
Habit = Callable[[int | None, list[int], int], int | None]


def _match(own: int | None, others: list[int], base: int) -> int | None:
    return min(others) if others else None


def _undercut(own: int | None, others: list[int], base: int) -> int | None:
    return min(others) - 1 if others else None


HABITS: tuple[Habit, ...] = (
    lambda own, others, base: own,
    _match,
    _undercut,
    lambda own, others, base: 2 * base,
    lambda own, others, base: base,
)


def _clip(price: int, base: int) -> int:
    return max(base, min(2 * base, price))


def _sellers(record: dict[str, Any]) -> dict[str, dict[int, int]]:
    """Per article, the price each seat asked for it in one finished round."""
    found: dict[str, dict[int, int]] = {}
    for seat, per_article in enumerate(record["income"] or []):
        for article, entry in per_article.items():
            if entry["price"] is not None:
                found.setdefault(article, {})[seat] = entry["price"]
    return found


def _finished(state: State) -> list[dict[str, Any]]:
    return [r for r in state["history"] if r["income"] is not None]


def habit_weights(state: State, seat: int) -> list[float]:
    """How well each habit foretold `seat`'s past prices on shared articles (hits + 1/2)."""
    rounds = [_sellers(r) for r in _finished(state)]
    hits = [0.5] * len(HABITS)
    for before, now in itertools.pairwise(rounds):
        for article, asked in now.items():
            if seat not in asked or len(asked) < 2:
                continue
            base = ARTICLE_BY_ID[article].base
            last = before.get(article, {})
            others = [p for s, p in last.items() if s != seat]
            for k, habit in enumerate(HABITS):
                guess = habit(last.get(seat), others, base)
                if guess is not None and _clip(guess, base) == asked[seat]:
                    hits[k] += 1
    return hits


def likely_prices(state: State, seat: int, article: str, weights: list[float]) -> dict[int, float]:
    """`seat`'s likely price for `article` this round, as price -> probability."""
    base = ARTICLE_BY_ID[article].base
    finished = _finished(state)
    last = _sellers(finished[-1]).get(article, {}) if finished else {}
    others = [p for s, p in last.items() if s != seat]
    found: dict[int, float] = {}
    for habit, weight in zip(HABITS, weights, strict=True):
        guess = habit(last.get(seat), others, base)
        if guess is not None:
            price = _clip(guess, base)
            found[price] = found.get(price, 0.0) + weight
    if not found:
        found = {base: 1.0}
    total = sum(found.values())
    return {price: w / total for price, w in found.items()}


def best_price(base: int, cards: int, rivals: list[dict[int, float]]) -> int:
    """The price from base to twice the base that earns most against the rivals' likely
    prices (the lower of equals, as a lower price is the safer one)."""
    if not rivals:
        return 2 * base
    outcomes: list[tuple[list[int], float]] = [([], 1.0)]
    for likely in rivals:
        outcomes = [(ps + [p], w * q) for ps, w in outcomes for p, q in likely.items()]
    best, best_value = base, -1.0
    for price in range(base, 2 * base + 1):
        value = sum(
            w * earned(price, min(price, *ps), max(price, *ps), cards) for ps, w in outcomes
        )
        if value > best_value + 1e-9:
            best, best_value = price, value
    return best
