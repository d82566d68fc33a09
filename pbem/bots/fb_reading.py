"""Fantasy Business: each rival's limits read from the sales it has shown.

Spec, Playing by mail, 4: once a card is sold the log shows every limit sent for it. So
how a seat sets its limits is public: some hold back for later cards, some send each
card's whole worth, some go for one card only, some send all they hold. Each round's
revealed limits are set against what each such habit would have sent then (the seat's
worth of each card, worked out from the table as it stood at that sale), with the scale
that fits it best; the habits that fit, weighted by how well, are that seat's model.
The strong level redraws a rival's secret limits from its model; the casual level
answers the likeliest.
"""

from __future__ import annotations

import math
import random
from collections import OrderedDict

from pbem.bots.fb_worth import card_values
from pbem.games.base import State
from pbem.games.fantasy_business.cards import base_price
from pbem.games.fantasy_business.orders import public_card

# Habits: "reckon" forgoes part of the later cards' surplus (a seat wins one a round),
# "whole" sends each card's worth, "focus" the worth of the card it wants most and nothing
# else, "all" the écus held on every card worth its base price.
HABITS = ("reckon", "whole", "focus", "all")
# Part of the best later card's surplus a reckoning seat gives up (as the casual level).
RECKON_SHARE = 0.6
# How sharply a worse fit loses weight: errors are in écus per card, over the écus held.
SHARPNESS = 8.0
# A habit never seen is still possible (a seat may change): its least weight.
FLOOR = 0.05
_CACHE: OrderedDict[tuple[object, ...], list[tuple[float, str, float]]] = OrderedDict()
_CACHE_SIZE = 256

Model = list[tuple[float, str, float]]  # (weight, habit, scale)


def habit_limits(
    habit: str,
    scale: float,
    values: list[float],
    row: list[str],
    order: list[int],
    money: int,
    rivals: int,
) -> list[int]:
    """The limits a seat of `habit` sends, its worth of each card being `values`."""
    limits = [0] * len(row)
    if habit == "focus":
        best = max(range(len(row)), key=lambda s: (values[s] - base_price(row[s]), -s))
        limits[best] = _in_range(values[best] * scale, base_price(row[best]), money)
        return limits
    for position, slot in enumerate(order):
        base = base_price(row[slot])
        if habit == "all":
            limits[slot] = money if values[slot] >= base and money >= base else 0
            continue
        value = values[slot]
        later = order[position + 1 :]
        if habit == "reckon" and later:
            surplus = max(values[s] - base_price(row[s]) for s in later)
            value -= RECKON_SHARE * min(1.0, len(later) / max(rivals, 1)) * max(0.0, surplus)
        limits[slot] = _in_range(value * scale, base, money)
    return limits


def _in_range(value: float, base: int, money: int) -> int:
    amount = min(math.floor(value), money)
    return amount if amount >= base else 0


def _past_sales(state: State) -> list[tuple[State, dict[int, dict[int, int]]]]:
    """Each finished sale: the table as it stood then (as far as worth reads it) and the
    limit each seat sent per slot. Money is walked back through the rounds' ledgers;
    articles by taking off the cards won since (thefts and Antitrust sales are left)."""
    history = state["history"]
    money = list(state["money"])
    articles = [list(held) for held in state["articles"]]
    found = []
    for index in range(len(history) - 1, -1, -1):
        record = history[index]
        for seat in range(state["n"]):
            money[seat] -= sum(entry["amount"] for entry in record["ledger"][seat])
        lots = record.get("lots") or []
        for lot in lots:
            if lot.get("winner") is not None and lot["card"] in articles[lot["winner"]]:
                articles[lot["winner"]].remove(lot["card"])
        shown: dict[int, dict[int, int]] = {}
        for lot in lots:
            if lot.get("mode") != "orders":
                continue
            for seat, limit in lot["bids"]:
                # A seat still eligible that sent no limit for the card is shown as none.
                shown.setdefault(seat, {})[lot["slot"]] = limit or 0
        if not shown or record.get("order") is None:
            continue
        then = dict(
            state,
            round=record["round"],
            money=list(money),
            articles=[list(held) for held in articles],
            row=record["row"],
            order=record["order"],
            history=[*history[:index], dict(record, income=None)],
        )
        found.append((then, shown))
    return found


def _fit(values: list[float], then: State, seat: int, shown: dict[int, int]) -> Model:
    """Each habit's best scale on one sale, and its error in écus per card."""
    row, order, money = then["row"], then["order"], then["money"][seat]
    rivals = max(len(shown) - 1, 1)
    fitted = []
    for habit in HABITS:
        best: tuple[float, float] = (math.inf, 1.0)
        for scale in (0.6, 0.8, 1.0, 1.25, 1.5):
            predicted = habit_limits(habit, scale, values, row, order, money, rivals)
            error = sum(abs(min(predicted[s], money) - min(v, money)) for s, v in shown.items())
            best = min(best, (error / len(shown), scale))
        fitted.append((best[0] / max(money, 1), habit, best[1]))
    return fitted


def read_limits(state: State, seat: int) -> Model:
    """`seat`'s model: (weight, habit, scale), the weights summing to 1."""
    # What was shown: a deal names afresh each special a seat's view does not show.
    key = (
        seat,
        state["n"],
        tuple(
            (
                r["round"],
                tuple(
                    (
                        lot["slot"],
                        public_card(lot["card"]),
                        tuple(map(tuple, lot["bids"])),
                    )
                    for lot in r["lots"]
                ),
            )
            for r in state["history"]
            if r.get("lots")
        ),
        tuple(state["money"]),
    )
    cached = _CACHE.get(key)
    if cached is not None:
        _CACHE.move_to_end(key)
        return cached
    errors = {habit: 0.0 for habit in HABITS}
    scales: dict[str, list[float]] = {habit: [] for habit in HABITS}
    sales = 0
    for then, shown in _past_sales(state):
        if seat not in shown:
            continue
        values = card_values(then, seat, then["row"])
        for error, habit, scale in _fit(values, then, seat, shown[seat]):
            errors[habit] += error
            scales[habit].append(scale)
        sales += 1
    if not sales:
        model = [(1.0 / len(HABITS), habit, 1.0) for habit in HABITS]
    else:
        raw = {h: math.exp(-SHARPNESS * errors[h] / sales) for h in HABITS}
        total = sum(raw.values())
        model = [
            (FLOOR / len(HABITS) + (1 - FLOOR) * raw[h] / total, h, sorted(scales[h])[sales // 2])
            for h in HABITS
        ]
    _CACHE[key] = model
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return model


def table_now(state: State, seat: int) -> tuple[list[float], list[str], list[int], int, int]:
    """What `habit_limits` reads for `seat` now: its worth of each row card, the row, the
    order of sale, its écus and the rivals asked with it."""
    row = state["row"]
    rivals = max(len([s for s in state.get("asked", []) if s != seat]), 1)
    order = state["order"] or list(range(len(row)))
    return card_values(state, seat, row), row, order, state["money"][seat], rivals


def draw_limits(state: State, seat: int, rng: random.Random, count: int = 1) -> list[list[int]]:
    """`count` sets of limits `seat` may have sent, drawn from its model, a little off."""
    model = read_limits(state, seat)
    table = table_now(state, seat)
    drawn = []
    for _ in range(count):
        pick = rng.random()
        chosen = model[-1]
        for entry in model:
            pick -= entry[0]
            if pick <= 0:
                chosen = entry
                break
        scale = chosen[2] * rng.uniform(0.85, 1.15)
        drawn.append(habit_limits(chosen[1], scale, *table))
    return drawn
