"""Shared helpers for the Colour Bazaar tests: hand-built tables and invariant checks."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest

from pbem.games import GAMES, IllegalMove
from pbem.games.base import Move, State
from pbem.games.decktet import BASIC, COURTS, PAWNS, SUITS
from pbem.present.text import error_text

CONSUL_WAVES = {"card": "consul", "market": 0, "suit": "waves", "chip": "moons"}

GAME = GAMES["colour-bazaar"]

# The Pawns lie in this order: market 0 (shown "market 1") is the Watchman, and so on.
WATCHMAN, BORDERLAND, HARVEST, LIGHT_KEEPER = PAWNS


def table(
    hands: list[list[str]],
    markets: list[list[str]] | None = None,
    *,
    courts: bool = False,
    turn: int = 0,
    deck: list[str] | None = None,
    chips_left: dict[str, int] | None = None,
    chips: list[dict[str, int]] | None = None,
    seed: int = 0,
) -> State:
    """A state from setup(), with hands and markets overwritten.

    `markets` lists the cards on top of each Pawn, bottom first. Unless `deck` is
    given, the draw pile is every other card of the deck in a fixed order, so the
    table still holds each card exactly once.
    """
    state = GAME.setup(len(hands), {"courts": courts}, seed)
    markets = markets or [[] for _ in PAWNS]
    state["hands"] = [list(hand) for hand in hands]
    state["markets"] = [[pawn, *cards] for pawn, cards in zip(PAWNS, markets, strict=True)]
    placed = [c for hand in hands for c in hand] + [c for m in markets for c in m]
    assert len(placed) == len(set(placed)), "a card is placed twice"
    used = set(placed)
    full = list(BASIC) + (list(COURTS) if courts else [])
    state["deck"] = list(deck) if deck is not None else [c for c in full if c not in used]
    state["turn"] = turn
    if chips_left is not None:
        state["chips_left"] = dict(chips_left)
    if chips is not None:
        state["chips"] = [dict(held) for held in chips]
    return state


def refusal(state: State, seat: int, move: Any) -> str:
    """Apply a move that must be refused; return the English message."""
    with pytest.raises(IllegalMove) as info:
        GAME.apply(state, seat, move)
    text = error_text(info.value, "en")
    assert text and not text.startswith(("cb.", "error.")), f"untranslated message {text!r}"
    return text


def expected_cards(state: State) -> Counter[str]:
    """The cards a game with these options holds: the deck it was dealt from and the Pawns."""
    cards = list(BASIC) + list(PAWNS) + (list(COURTS) if state["options"]["courts"] else [])
    return Counter(cards)


def cards_on_table(state: State) -> Counter[str]:
    """Every card in the state, wherever it is, counted."""
    found: Counter[str] = Counter(state["deck"])
    for hand in state["hands"]:
        found.update(hand)
    for market in state["markets"]:
        found.update(market)
    found.update(c for _, c in state["discards"])
    return found


def check_conservation(state: State) -> None:
    """Each card is in exactly one place; the 30 chips are all somewhere."""
    assert cards_on_table(state) == expected_cards(state)
    for suit in SUITS:
        held = sum(chips[suit] for chips in state["chips"])
        assert held + state["chips_left"][suit] == 5, suit
        assert state["chips_left"][suit] >= 0


_JSON_STRING = re.compile(r'"([^"\\]*)"')
_MARKET_VALUE = re.compile(r'"market"\s*[,\]}]')


def strings_in(data: Any) -> set[str]:
    """Every string in the JSON form of `data`, values and keys.

    The key "market" (of an edict) is left out, as it is also a card id (The Market);
    the card "market" is still found wherever it is a value.
    """
    text = json.dumps(data)
    found = set(_JSON_STRING.findall(text))
    if "market" in found and not _MARKET_VALUE.search(text):
        found.discard("market")
    return found


def check_view_hides(state: State, viewer: int | None) -> None:
    """A view shows another seat's hand cards only while revealed, and no face-down discard.

    The view is serialised to JSON and every string in it searched for the id of a
    hidden card. Cards once shown by an edict (the `reveals` record) were seen by
    everyone, so they are not secret even after they became unknown again.
    """
    view = GAME.view(state, viewer)
    strings = strings_in(view)
    n = state["n"]
    shown = {s: set() for s in range(n)}
    for reveal in state["reveals"]:
        shown[reveal["seat"]].update(reveal["cards"])
    if viewer is None:
        assert "hand" not in view and "my_discards" not in view
    else:
        assert view["hand"] == state["hands"][viewer]
        assert view["my_discards"] == [c for s, c in state["discards"] if s == viewer]
    for seat in range(n):
        known = view["hands"][seat]["known"]
        assert set(known) <= set(state["hands"][seat]), "a known card left the hand"
        assert set(known) <= shown[seat], "a card is known that was never revealed"
        assert view["hands"][seat]["count"] == len(state["hands"][seat])
        if seat == viewer:
            continue
        hidden = set(state["hands"][seat]) - set(known) - shown[seat]
        hidden |= {c for s, c in state["discards"] if s == seat} - shown[seat]
        leaked = hidden & strings
        assert not leaked, f"seat {viewer} sees hidden cards of seat {seat}: {leaked}"


def play_random_game(
    n: int, courts: bool, seed: int, choose_seed: int
) -> tuple[State, list[tuple[int, Move]]]:
    """A complete game with uniformly random legal moves; the final state and the move log."""
    import random

    rng = random.Random(choose_seed)
    state = GAME.setup(n, {"courts": courts}, seed)
    log: list[tuple[int, Move]] = []
    while GAME.to_act(state):
        seat = GAME.to_act(state)[0]
        move = rng.choice(GAME.legal_moves(state, seat))
        log.append((seat, move))
        state = GAME.apply(state, seat, move)
    return state, log


def _edict_table(target_hand: list[str], n: int = 2, markets=None, third=None) -> dict:
    """Seat 0 holds the Consul (Moons, Waves, Knots), which fits the Watchman (market 1)."""
    hands = [["consul", "ace-leaves", "mountain", "bard"], target_hand]
    if n == 3:
        hands.append(third or ["lunatic", "mill", "ace-wyrms", "cave"])
    return table(hands, markets, courts=True)
