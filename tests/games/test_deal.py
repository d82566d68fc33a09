"""Deals: a state dealt from a seat's view gives that view back, and is a real state."""

from __future__ import annotations

import json
import random

import pytest

from pbem.games import GAMES
from tests.bots.positions import SETUPS, card_places, full_cards, random_game, sample_positions


@pytest.mark.parametrize("chunk", range(2))
def test_a_dealt_state_gives_the_seat_its_view_exactly(chunk):
    for slug, state in sample_positions(100, seed=chunk):
        game = GAMES[slug]
        for seat in range(state["n"]):
            view = game.view(state, seat)
            dealt = game.deal(view, seat, random.Random(chunk * 7 + seat))
            assert game.view(dealt, seat) == view
            assert json.loads(json.dumps(dealt)) == dealt
            assert card_places(slug, dealt) == full_cards(slug, dealt)


def test_dealt_states_play_on_to_the_end():
    rng = random.Random(5)
    for slug, state in sample_positions(60, seed=11):
        game = GAMES[slug]
        seat = state["ply"] % state["n"]
        dealt = game.deal(game.view(state, seat), seat, random.Random(3))
        assert game.to_act(dealt) == game.to_act(state)
        for s in range(state["n"]):
            assert game.may_act(dealt, s) == game.may_act(state, s)
        while game.to_act(dealt):
            actor = game.to_act(dealt)[0]
            moves = game.legal_moves(dealt, actor)
            assert moves
            dealt = game.apply(dealt, actor, rng.choice(moves))
            assert card_places(slug, dealt) == full_cards(slug, dealt)
        assert game.outcome(dealt) is not None


def test_deals_differ_where_the_seat_cannot_see():
    # Round 3 of a 4-player game: the pile order and others' specials are unknown to seat 0.
    slug, n, options = SETUPS[5]
    state = next(s for s in random_game(slug, n, options, 4) if s["round"] == 3)
    game = GAMES[slug]
    view = game.view(state, 0)
    decks = {tuple(game.deal(view, 0, random.Random(k))["deck"]) for k in range(5)}
    assert len(decks) == 5
    cb = GAMES["colour-bazaar"]
    start = cb.setup(2, {"courts": False}, 1)
    hands = {tuple(cb.deal(cb.view(start, 0), 0, random.Random(k))["hands"][1]) for k in range(5)}
    assert len(hands) > 1
    assert all(
        cb.deal(cb.view(start, 0), 0, random.Random(k))["hands"][0] == start["hands"][0]
        for k in range(5)
    )


def test_a_seat_bound_by_an_edict_is_dealt_a_card_of_the_named_suit():
    from pbem.games.decktet import CARDS

    cb = GAMES["colour-bazaar"]
    checked = 0
    for seed in range(40):
        for state in random_game("colour-bazaar", 2, {"courts": True}, seed):
            edict = state["edict"]
            if edict is None or state["over"] or state["known"][edict["seat"]]:
                continue
            viewer = 1 - edict["seat"]
            for k in range(5):
                dealt = cb.deal(cb.view(state, viewer), viewer, random.Random(k))
                hand = dealt["hands"][edict["seat"]]
                assert any(edict["suit"] in CARDS[c].suits for c in hand)
            checked += 1
    assert checked > 5
