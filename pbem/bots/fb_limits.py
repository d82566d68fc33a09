"""Fantasy Business limits (Spec, Playing by mail, 3): the sets a seat may send, and the
answer to what each rival's past sales say it sends (fb_reading).

A seat wins at most one card a round, so a limit on one card is worth what the card adds
less the surplus it forgoes on the cards sold after it. The casual level tries a few sets
against a few draws of the rivals' limits and keeps the one that gains it most; the strong
level tries more sets against more draws. (Scoring a sale by the standing it leaves, the
rivals' gains counted too, did worse: bench/README.md.)
"""

from __future__ import annotations

import math
import random

from pbem.bots import fb_reading
from pbem.bots.fb_worth import card_values
from pbem.games.base import State
from pbem.games.fantasy_business.cards import base_price
from pbem.games.fantasy_business.orders import settle_card

# Part of the best later lot's surplus a seat gives up by winning this one.
WAIT_SHARE = fb_reading.RECKON_SHARE
# Écus another set of limits must gain over the own reckoning to be sent instead.
ANSWER_MARGIN = 2.0
# Draws of the rivals' limits a set is tried against: casual, strong.
CASUAL_DRAWS = 8
STRONG_DRAWS = 40


def in_range(value: float, base: int, money: int) -> int:
    """A limit or bid: 0, or a whole number from the base price to the écus held."""
    amount = min(math.floor(value), money)
    return amount if amount >= base else 0


def order_limits(state: State, seat: int, scale: float = 1.0, reckon: bool = True) -> list[int]:
    """Per card, its worth to this seat less (`reckon`) the surplus forgone on the cards
    sold after it, as a seat wins one card a round: the "reckon" or "whole" habit that
    fb_reading reads in the rivals, sent by this seat."""
    habit = "reckon" if reckon else "whole"
    return fb_reading.habit_limits(habit, scale, *fb_reading.table_now(state, seat))


def focused_limits(state: State, seat: int, count: int = 2) -> list[list[int]]:
    """Limits going for one card only, its whole worth and nothing on the others: for the
    `count` cards whose worth to this seat is furthest above their base price."""
    row, money = state["row"], state["money"][seat]
    values = card_values(state, seat, row)
    best = sorted(range(len(row)), key=lambda s: (base_price(row[s]) - values[s], s))[:count]
    found = []
    for slot in best:
        limits = [0] * len(row)
        limits[slot] = in_range(values[slot], base_price(row[slot]), money)
        if limits[slot]:
            found.append(limits)
    return found


def distinct(items: list[list[int]]) -> list[list[int]]:
    """The sets without repeats, in their order."""
    result: list[list[int]] = []
    for item in items:
        if item not in result:
            result.append(item)
    return result


def sale(state: State, limits: dict[int, list[int]]) -> list[tuple[int, int, int]]:
    """(seat, slot, price) of each card sold (Spec, Playing by mail, 4)."""
    row, money, first = state["row"], state["money"], state["first"]
    eligible = sorted(limits, key=lambda s: (s - first) % state["n"])
    sold = []
    for slot in state["order"] or list(range(len(row))):
        bids = [(s, limits[s][slot]) for s in eligible]
        winner, price = settle_card(base_price(row[slot]), bids, money)
        if winner is not None and price is not None:
            sold.append((winner, slot, price))
            eligible.remove(winner)
    return sold


def _surplus(seat: int, values: list[float], sold: list[tuple[int, int, int]]) -> float:
    """What `seat` gains in a sale: its worth of the card it won less the price."""
    for winner, slot, price in sold:
        if winner == seat:
            return values[slot] - price
    return 0.0


def _options(state: State, seat: int, strong: bool) -> list[list[int]]:
    own = order_limits(state, seat)
    found = [
        own,
        order_limits(state, seat, 0.8),
        order_limits(state, seat, 1.25),
        order_limits(state, seat, reckon=False),
        *focused_limits(state, seat, 3 if strong else 2),
    ]
    if strong:
        found += [order_limits(state, seat, 0.6), order_limits(state, seat, 1.5, reckon=False)]
    return distinct(found)


def answer_limits(state: State, seat: int, rng: random.Random, strong: bool = False) -> list[int]:
    """Of a few sets of limits, the one that gains most in the sale (the worth of the card
    won less its price) on average over limits drawn for each rival from its past sales;
    the strong level tries more sets against more draws."""
    options = _options(state, seat, strong)
    rivals = [r for r in state["asked"] if r != seat]
    if not rivals:
        return options[0]
    draws = STRONG_DRAWS if strong else CASUAL_DRAWS
    drawn = {r: fb_reading.draw_limits(state, r, rng, draws) for r in rivals}
    values = card_values(state, seat, state["row"])
    gains = [0.0] * len(options)
    for k in range(draws):
        for index, limits in enumerate(options):
            sold = sale(state, {**{r: drawn[r][k] for r in rivals}, seat: limits})
            gains[index] += _surplus(seat, values, sold)
    best = max(range(len(options)), key=lambda k: (gains[k], -k))
    # The own reckoning unless another set does clearly better: the rivals' limits are a guess.
    return options[best] if gains[best] > gains[0] + ANSWER_MARGIN * draws else options[0]
