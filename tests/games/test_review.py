"""Promise 4, the review step: before a move is sent its player sees only what they may see now.

A review that told what the move would reveal (another player's hand, others' sealed bids
or prices, the cards of the next round) would let a player probe for free, since "Change
it" sends nothing.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.games import GAMES
from pbem.games.base import Message
from pbem.games.fantasy_business.cards import card_type, is_special
from pbem.present.text import card_name, render
from tests.games.helpers import CONSUL_WAVES, _edict_table

CB = GAMES["colour-bazaar"]
FB = GAMES["fantasy-business"]


def test_reviewing_a_court_does_not_show_the_next_players_hand() -> None:
    hand = ["castle", "savage", "desert", "ace-suns"]  # no Waves card: the edict shows it
    before = _edict_table(hand)
    sent = CB.describe(before, 0, CONSUL_WAVES, 0)
    assert sent[-1].key == "cb.log.revealed"  # once sent, the log tells everyone
    review = CB.review(before, 0, CONSUL_WAVES)
    assert [m.key for m in review] == ["cb.log.played_court"]
    for lang in ("en", "fr"):
        text = " ".join(render(m, lang) for m in review)
        assert "Consul" in text
        for card in hand:
            assert card_name(card, lang) not in text, card
    # A target holding the suit gives the same review: reviewing tells nothing either way.
    holding = _edict_table(["sailor", "castle", "journey", "savage"])
    assert CB.review(holding, 0, CONSUL_WAVES) == review


def _fb_game(seed: int, n: int, auction: str, specials: str) -> list[tuple[dict, int, dict]]:
    """(state, seat, move) at every ply of a random Fantasy Business game."""
    rng = random.Random(seed)
    state = FB.setup(n, {"auction": auction, "specials": specials}, seed)
    plies = []
    for _ in range(3000):
        due = FB.to_act(state)
        if not due:
            break
        seat = rng.choice(due)
        move = rng.choice(FB.legal_moves(state, seat))
        plies.append((state, seat, move))
        state = FB.apply(state, seat, move)
    return plies


# What a move causes rather than is: never in its review.
CONSEQUENCES = (
    "fb.log.sealed_was",
    "fb.log.prices_revealed",
    "fb.log.income",
    "fb.log.revealed",
    "fb.log.round",
    "fb.log.over",
    "fb.log.score",
    "fb.log.unsold",
    "fb.log.sale",
)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(3, 6),
    auction=st.sampled_from(["open", "sealed"]),
    specials=st.sampled_from(["none", "standard"]),
)
def test_fantasy_business_reviews_show_only_the_movers_own_action(
    seed: int, n: int, auction: str, specials: str
) -> None:
    for state, seat, move in _fb_game(seed, n, auction, specials):
        review = FB.review(state, seat, move)
        assert review, move
        keys = [m.key for m in review]
        assert not [k for k in keys if k.startswith(CONSEQUENCES)], (move, keys)
        # Every line is about the mover: no other seat's sealed bid, price or income.
        for line in review:
            assert line.params.get("seat", seat) == seat, (move, line)
        assert len(review) <= len(FB.describe(state, seat, move, seat))


def test_reviewing_take_does_not_name_a_face_down_special() -> None:
    for seed in range(40):
        for state, seat, move in _fb_game(seed, 3, "open", "standard"):
            auction = state["auction"]
            if move["action"] == "take" and is_special(auction["card"]):
                review = FB.review(state, seat, move)
                said = " ".join(render(m, lang) for m in review for lang in ("en", "fr"))
                assert card_name(card_type(auction["card"]), "en") not in said, said
                assert card_name(card_type(auction["card"]), "fr") not in said, said
                sent = FB.describe(state, seat, move, seat)
                assert auction["card"] in str([m.params for m in sent])  # once sent: named
                return
    raise AssertionError("no face-down special was taken")


def test_last_sealed_bid_review_does_not_open_the_others_bids() -> None:
    for state, seat, move in _fb_game(7, 4, "sealed", "none"):
        after = FB.apply(state, seat, move)
        sent = FB.describe(state, seat, move, seat)
        if any(m.key.startswith("fb.log.sealed_was") for m in sent):
            review = FB.review(state, seat, move)
            assert not any(m.key.startswith("fb.log.sealed_was") for m in review)
            assert [m.key for m in review][0].startswith("fb.log.sealed")
            assert after["ply"] == state["ply"] + 1
            return
    raise AssertionError("no sealed auction was settled")


def test_review_lines_are_messages() -> None:
    assert all(isinstance(m, Message) for m in CB.review(_edict_table(["castle"]), 0, CONSUL_WAVES))
