"""Colour Bazaar players: what a turn is worth, read from the markets and the chips.

Scoring (Rules, Scoring): a chip is worth, per market, the rank of the card of its suit
nearest the top. A turn changes one market and adds one chip; its worth to a seat is
its chips' value less the best other seat's, with the markets as the turn leaves them.
"""

from __future__ import annotations

import math
import random
from typing import Any

from pbem.games.base import Game, Move, State
from pbem.games.colour_bazaar import allowed_plays, market_values
from pbem.games.decktet import CARDS, SUITS

# The rollout policy plays a random card this often, so simulations vary.
ROLLOUT_NOISE = 0.1
# Root moves the strong level searches (the best by the casual reckoning).
SEARCH_WIDTH = 12


def _market_vector(market: list[str]) -> list[int]:
    values = market_values(market)
    return [values[s]["value"] for s in SUITS]


def _turns(state: State, seat: int) -> list[tuple[float, Move]]:
    """Every whole turn of `seat` (one chip per suit left), with its worth, best first."""
    markets = state["markets"]
    vectors = [_market_vector(m) for m in markets]
    held = [[state["chips"][s][suit] for suit in SUITS] for s in range(state["n"])]
    chips = [i for i, suit in enumerate(SUITS) if state["chips_left"][suit]]
    hand = state["hands"][seat]
    plays = allowed_plays(state, seat)
    scored: list[tuple[float, Move]] = []
    if plays:
        options: list[tuple[dict[str, Any], list[int]]] = []
        for card, market in plays:
            vector = _market_vector(markets[market] + [card])
            totals = [
                sum(v[i] for m, v in enumerate(vectors) if m != market) + vector[i]
                for i in range(len(SUITS))
            ]
            if CARDS[card].kind == "court":
                for named in CARDS[card].suits:
                    options.append(({"card": card, "market": market, "suit": named}, totals))
            else:
                options.append(({"card": card, "market": market}, totals))
    else:
        totals = [sum(v[i] for v in vectors) for i in range(len(SUITS))]
        if hand:
            options = [({"discard": c}, totals) for c in hand]
        else:
            options = [({}, totals)]
    for order, (base, totals) in enumerate(options):
        others = max(
            sum(h * t for h, t in zip(held[s], totals, strict=True))
            for s in range(state["n"])
            if s != seat
        )
        mine = sum(h * t for h, t in zip(held[seat], totals, strict=True))
        for i in chips:
            worth = mine + totals[i] - others
            if "discard" in base:
                # Keep the cards that can raise the suits this seat holds.
                card = base["discard"]
                worth -= 0.01 * sum(held[seat][SUITS.index(s)] for s in CARDS[card].suits)
            scored.append((worth - 1e-6 * order, {**base, "chip": SUITS[i]}))
    scored.sort(key=lambda pair: -pair[0])
    return scored


class ColourBazaarBot:
    """The three levels for Colour Bazaar."""

    # The most visited move: the search alone is strong in Colour Bazaar (bench/bots.py).
    anchor: float | None = None

    def beginner(
        self, game: Game, view: dict[str, Any], legal: list[Move], rng: random.Random
    ) -> Move:
        """A random card, and the chip of the suit worth most on the table now."""
        move = dict(legal[rng.randrange(len(legal))])
        state = game.deal(view, view["seat"], rng)
        values = [sum(v) for v in zip(*(_market_vector(m) for m in state["markets"]), strict=True)]
        chips = [i for i, suit in enumerate(SUITS) if state["chips_left"][suit]]
        move["chip"] = SUITS[max(chips, key=lambda i: (values[i], -i))]
        return move

    def casual(
        self, game: Game, view: dict[str, Any], legal: list[Move], rng: random.Random
    ) -> Move:
        """The turn that leaves this seat's chips furthest ahead of the best other seat's."""
        state = game.deal(view, view["seat"], rng)
        return _turns(state, view["seat"])[0][1]

    def candidates(self, state: State, seat: int, legal: list[Move] | None) -> list[Move]:
        """The best turns by the casual reckoning."""
        return [move for _, move in _turns(state, seat)[:SEARCH_WIDTH]]

    def model_secrets(self, state: State, seat: int, rng: random.Random) -> State:
        """The dealt state as it is: Colour Bazaar has no secret choices, only hidden cards."""
        return state

    def policy(self, state: State, seat: int, rng: random.Random) -> Move:
        """The casual turn, now and then a random card with the best chip for it."""
        turns = _turns(state, seat)
        if rng.random() < ROLLOUT_NOISE:
            return turns[rng.randrange(len(turns))][1]
        return turns[0][1]

    def evaluate(self, state: State, seat: int) -> float:
        """A win 1, a shared win 1/2, a loss 0, nudged by the margin."""
        values = [sum(v) for v in zip(*(_market_vector(m) for m in state["markets"]), strict=True)]
        scores = [
            sum(chips[suit] * values[i] for i, suit in enumerate(SUITS)) for chips in state["chips"]
        ]
        best_other = max(sc for s, sc in enumerate(scores) if s != seat)
        margin = scores[seat] - best_other
        win = 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0
        if not state["over"]:
            win = 0.5 + 0.5 * math.tanh(margin / 20)
        return 0.9 * win + 0.1 * (0.5 + 0.5 * math.tanh(margin / 20))

    def horizon(self, start: State, state: State) -> bool:
        """Simulations run to the last chip."""
        return bool(state["over"])


BOT = ColourBazaarBot()
