"""Helpers for the Fantasy Business rule tests: a game in a given state, moves played by name."""

from __future__ import annotations

import pytest

from pbem.games.base import IllegalMove
from pbem.games.fantasy_business import FantasyBusiness, engine

G = FantasyBusiness()
PASS = {"action": "pass"}


def play(state, *moves):
    """Apply (seat, move) pairs in turn; return the final state."""
    for seat, move in moves:
        state = G.apply(state, seat, move)
    return state


def skip_to_specials(state, articles=None, specials=None, money=None):
    """Drop the round's auctions and give seats the cards and écus named; run to specials."""
    n = state["n"]
    for seat, cards in (articles or {}).items():
        state["articles"][seat] = list(cards)
    for seat, cards in (specials or {}).items():
        state["specials"][seat] = list(cards)
    for seat, amount in (money or {}).items():
        state["money"][seat] = amount
    state.update(pending=[], auction=None, step="specials_start", won=[], events=[])
    assert len(state["articles"]) == n
    engine.run(state)
    return state


def bid(amount):
    return {"action": "bid", "amount": amount}


def prices(**by_article):
    return {"action": "prices", "prices": by_article}


def raises(key, state, seat, move):
    with pytest.raises(IllegalMove) as info:
        G.apply(state, seat, move)
    assert info.value.msg.key == key, info.value.msg
    return info.value
