"""A panel of Fantasy Business players for bench/bots.py, written from the rules alone.

Each player is a style: how it values a card, how it shades its limits, how it sets its
prices, how it orders a sale and where its specials go. None of them reads pbem/bots;
they see what a seat sees (a state dealt from its view, whose hidden parts are guesses).
The styles differ on purpose, so a computer level tuned against some of them is
measured against the others too (bench/bots.py keeps HELD_OUT out of every tuning run).

- "bidder" (bench/opponents.py): half the income of the rounds left, flat limits,
  undercutting prices, specials at the leader.
- "investor": every round's income left counted in full, flat limits at the whole value,
  prices that match the cheapest rival's last price (a tie shares the bonus), specials at
  the leader.
- "collector": monopolies: an article nobody else holds is worth its lone price every
  round, one a rival holds little; the whole limit goes on the card wanted most; twice the
  base when alone, the base when shared; thefts complete its sets.
- "sniper": a bare limit (the base price and one) on the cards sold early, its whole value
  on the last ones, when most rivals have won their card; prices at the rivals' lowest;
  subsidies only, weapons kept for the end.
- "banker": cash first: limits at three quarters of a cautious value, never more than half
  its écus before the last rounds; always twice the base (it waits for a rival to match);
  defaulting buyers on the richest seat.
- "discounter": values cards as the collector does but sends its whole value on every
  card (flat), and asks the base price wherever a rival sells the same article, so it is
  always among the lowest and earns the bonus; twice the base when alone.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from pbem.games.base import Game, Move, State
from pbem.games.fantasy_business.cards import ARTICLE_BY_ID, base_price, card_type, is_special
from pbem.games.fantasy_business.income import earned
from pbem.games.fantasy_business.tally import goods_value

Player = Callable[[Game, dict[str, Any], list[Move], random.Random], Move]


def _owners(state: State, article: str) -> list[int]:
    return [
        s for s in range(state["n"]) if any(card_type(c) == article for c in state["articles"][s])
    ]


def _rounds_left(state: State) -> int:
    return state["rounds"] - state["round"] + 1


def _value(state: State, seat: int, card: str, style: str) -> float:
    """What owning `card` is worth to `seat` under a valuation style."""
    if is_special(card):
        special = {"investor": 5.0, "collector": 3.0, "sniper": 4.0, "banker": 4.0}
        return special.get(style, 4.0) if state["round"] < state["rounds"] else 0.0
    article = card_type(card)
    base = ARTICLE_BY_ID[article].base
    rivals = [s for s in _owners(state, article) if s != seat]
    rounds = _rounds_left(state)
    alone = 2 * base + 2
    shared = base + 1
    if style == "investor":
        return base + (alone if not rivals else shared) * rounds
    if style in ("collector", "discounter"):
        return base + (0.9 * alone * rounds if not rivals else 0.2 * shared * rounds)
    if style == "banker":
        return base + 0.4 * (alone if not rivals else shared) * rounds
    return base + 0.6 * (alone if not rivals else shared) * rounds


def _in_range(value: float, base: int, money: int) -> int:
    amount = min(money, math.floor(value))
    return amount if amount >= base else 0


def _wealth(state: State, seat: int) -> int:
    return state["money"][seat] + goods_value(state, seat)


def _leader(state: State, seat: int) -> int:
    others = [s for s in range(state["n"]) if s != seat]
    return max(others, key=lambda s: (_wealth(state, s), -s))


def _limits(state: State, seat: int, style: str) -> list[int]:
    row, money = state["row"], state["money"][seat]
    values = [_value(state, seat, card, style) for card in row]
    bases = [base_price(card) for card in row]
    if style == "collector":
        best = max(range(len(row)), key=lambda s: (values[s] - bases[s], -s))
        return [_in_range(values[s], bases[s], money) if s == best else 0 for s in range(len(row))]
    if style == "sniper":
        order = state["order"] or list(range(len(row)))
        late = set(order[-2:])
        return [
            _in_range(values[s] if s in late else bases[s] + 1, bases[s], money)
            for s in range(len(row))
        ]
    if style == "banker":
        cap = money if state["round"] >= state["rounds"] - 2 else money // 2
        return [_in_range(0.75 * v, b, cap) for v, b in zip(values, bases, strict=True)]
    return [_in_range(v, b, money) for v, b in zip(values, bases, strict=True)]


def _last_prices(state: State, seat: int, article: str) -> list[int]:
    rivals = [s for s in _owners(state, article) if s != seat]
    base = ARTICLE_BY_ID[article].base
    return [state["last_prices"][s].get(article, 2 * base) for s in rivals]


def _best_answer(base: int, cards: int, others: list[int]) -> int:
    """The price that earns most if the others ask what they asked last."""
    best, best_value = base, -1
    for price in range(base, 2 * base + 1):
        value = earned(price, min(price, *others), max(price, *others), cards)
        if value > best_value:
            best, best_value = price, value
    return best


def _prices(state: State, seat: int, legal: list[Move], style: str) -> dict[str, int]:
    prices = {}
    for article in legal[0]["prices"]:
        base = ARTICLE_BY_ID[article].base
        last = _last_prices(state, seat, article)
        if not last or style == "banker":
            prices[article] = 2 * base
        elif style in ("collector", "discounter"):
            prices[article] = base
        elif style in ("investor", "sniper"):
            prices[article] = max(base, min(2 * base, min(last)))
        else:
            cards = sum(1 for c in state["articles"][seat] if card_type(c) == article)
            prices[article] = _best_answer(base, cards, last)
    return prices


def _pick_play(state: State, seat: int, card: str, options: list[dict[str, Any]], style: str):
    kind = card_type(card)
    if kind == "subsidy":
        return options[0]
    if style == "sniper" and state["round"] < state["rounds"]:
        return None  # weapons kept for the last round
    aimed = [p for p in options if p.get("target") is not None]
    if not aimed:
        return None
    if style == "collector" and kind == "theft":
        mine = {card_type(c) for c in state["articles"][seat]}
        return max(aimed, key=lambda p: (p["article"] in mine, ARTICLE_BY_ID[p["article"]].base))
    if style == "banker" and kind == "defaulting":
        return max(aimed, key=lambda p: (state["money"][p["target"]], -p["target"]))
    leader = _leader(state, seat)

    def worth(play: dict[str, Any]) -> tuple[bool, int]:
        article = play.get("article")
        held = sum(1 for c in state["articles"][play["target"]] if card_type(c) == article)
        return play["target"] == leader, held * (ARTICLE_BY_ID[article].base if article else 1)

    return max(aimed, key=worth)


def _plays(state: State, seat: int, options: list[dict[str, Any]], style: str) -> list[Any]:
    by_card: dict[str, list[dict[str, Any]]] = {}
    for play in options:
        by_card.setdefault(play["card"], []).append(play)
    chosen = [_pick_play(state, seat, card, found, style) for card, found in by_card.items()]
    return [p for p in chosen if p is not None]


def style_player(style: str) -> Player:
    """A panel player of `style`, for the orders auction (the panel's table)."""

    def move(game: Game, view: dict[str, Any], legal: list[Move], rng: random.Random) -> Move:
        seat = view["seat"]
        state = game.deal(view, seat, rng)
        action = legal[0]["action"]
        if action == "order":
            row = state["row"]
            values = [_value(state, seat, c, style) - base_price(c) for c in row]
            order = sorted(range(len(row)), key=lambda s: (values[s], s))
            if style == "sniper":
                order = order[::-1]  # the card wanted most first, while all may still bid
            return {"action": "order", "order": order}
        if action == "limits":
            return {"action": "limits", "limits": _limits(state, seat, style)}
        if action == "limit":
            base = state["auction"]["base"]
            value = _value(state, seat, f"{state['auction']['cards'][0]}", style)
            return {"action": "limit", "amount": _in_range(value, base, state["money"][seat])}
        if action == "specials":
            options = [m["plays"][0] for m in legal if m["plays"]]
            return {"action": "specials", "plays": _plays(state, seat, options, style)}
        if action == "prices":
            return {"action": "prices", "prices": _prices(state, seat, legal, style)}
        return legal[0]

    move.__name__ = style
    return move


STYLES = ("investor", "collector", "sniper", "banker", "discounter")
