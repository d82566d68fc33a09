"""Random positions of both games, for the deal and bot tests: seeded, so reproducible."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

from pbem.games import GAMES
from pbem.games.base import State
from pbem.games.fantasy_business.cards import build_deck
from tests.games.helpers import cards_on_table, expected_cards

# (game slug, players, options): every mode and player count the tests cover.
SETUPS: list[tuple[str, int, dict[str, Any]]] = [
    ("colour-bazaar", 2, {"courts": False}),
    ("colour-bazaar", 2, {"courts": True}),
    ("colour-bazaar", 3, {"courts": False}),
    ("colour-bazaar", 3, {"courts": True}),
    ("fantasy-business", 3, {"auction": "open"}),
    ("fantasy-business", 4, {"auction": "sealed"}),
    ("fantasy-business", 5, {"auction": "open"}),
    ("fantasy-business", 4, {"auction": "open", "specials": "none"}),
    ("fantasy-business", 8, {"auction": "sealed"}),
]
# The orders auction (Spec, Playing by mail), the default mode.
SETUPS += [
    ("fantasy-business", 4, {"auction": "orders"}),
    ("fantasy-business", 3, {"auction": "orders", "specials": {"antitrust": 10, "theft": 8}}),
    ("fantasy-business", 6, {"auction": "orders"}),
]


def actors(slug: str, state: State) -> list[int]:
    """The seats that may send a move now (in pricing, also those revising)."""
    game = GAMES[slug]
    return [s for s in range(state["n"]) if game.may_act(state, s)]


def random_game(slug: str, n: int, options: dict[str, Any], seed: int) -> Iterator[State]:
    """Every state of one game played with random legal moves, the last one over."""
    game = GAMES[slug]
    rng = random.Random(seed)
    state = game.setup(n, options, seed)
    yield state
    while game.to_act(state):
        # Mostly a seat the table waits on; now and then a price revision.
        seat = rng.choice(game.to_act(state) if rng.random() < 0.9 else actors(slug, state))
        state = game.apply(state, seat, rng.choice(game.legal_moves(state, seat)))
        yield state


def sample_positions(count: int, seed: int, per_game: int = 6) -> list[tuple[str, State]]:
    """`count` positions spread over every setup and over whole games (`per_game` each)."""
    rng = random.Random(seed)
    out: list[tuple[str, State]] = []
    k = 0
    while len(out) < count:
        slug, n, options = SETUPS[k % len(SETUPS)]
        states = list(random_game(slug, n, options, seed * 1000 + k))
        out.extend((slug, s) for s in rng.sample(states, min(per_game, len(states))))
        k += 1
    return out[:count]


def full_cards(slug: str, state: State) -> Counter[str]:
    """Every card of this game's deck."""
    if slug == "colour-bazaar":
        return expected_cards(state)
    return Counter(build_deck(state["table"]))


def card_places(slug: str, state: State) -> Counter[str]:
    """Every card in the state, wherever it lies; each must be in exactly one place."""
    if slug == "colour-bazaar":
        return cards_on_table(state)
    cards = list(state["deck"]) + [state["row"][slot] for slot in state["pending"]]
    for held in state["articles"] + state["specials"]:
        cards.extend(held)
    cards += state["discard"] + state["unseen"]
    if state["step"] == "auction":
        cards.append(state["auction"]["card"])
        cards.extend(state["auction"].get("queue", []))
    if state["step"] == "antitrust_limits":
        cards.extend(state["auction"]["cards"])  # orders mode: an Antitrust sale by limits
    return Counter(cards)
