"""Text moves for replies by mail: every legal move's text reads back as that move,
in English and French, and forgiving spellings of a move still read as it."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.games import GAMES
from pbem.present import colour_bazaar_text as cbt
from pbem.present import fantasy_business_text as fbt
from pbem.present.textmove import TextMoveError
from tests.games.helpers import table

CB = GAMES["colour-bazaar"]
FB = GAMES["fantasy-business"]
NAMES = ["Ana", "Léo", "Zoé", "Marc", "Inès", "Bob"]


def _cb_states(seed: int, courts: bool, n: int, plies: int) -> list[dict]:
    """States along a seeded game, up to `plies` moves in."""
    rng = random.Random(seed)
    state = CB.setup(n, {"courts": courts}, seed)
    states = [state]
    for _ in range(plies):
        if CB.outcome(state) is not None:
            break
        seat = CB.to_act(state)[0]
        state = CB.apply(state, seat, rng.choice(CB.legal_moves(state, seat)))
        states.append(state)
    return states


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    courts=st.booleans(),
    n=st.integers(2, 3),
    plies=st.integers(0, 40),
    lang=st.sampled_from(["en", "fr"]),
)
def test_every_colour_bazaar_move_reads_back(seed, courts, n, plies, lang):
    state = _cb_states(seed, courts, n, plies)[-1]
    if CB.outcome(state) is not None:
        return
    seat = CB.to_act(state)[0]
    names = NAMES[:n]
    for entry in cbt.legal_texts(state, seat, lang, names):
        assert cbt.parse(entry["text"], state, seat, names) == entry["move"], entry["text"]


def _fb_states(seed: int, n: int, mode: str, plies: int) -> list[dict]:
    rng = random.Random(seed)
    state = FB.setup(n, {"auction": mode}, seed)
    states = [state]
    for _ in range(plies):
        acting = FB.to_act(state)
        if not acting:
            break
        seat = rng.choice(acting)
        state = FB.apply(state, seat, rng.choice(FB.legal_moves(state, seat)))
        states.append(state)
    return states


FB_MODES = [o for o in FB.options if o.name == "auction"][0].choices


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    n=st.integers(3, 6),
    mode=st.sampled_from(FB_MODES),
    plies=st.integers(0, 150),
    lang=st.sampled_from(["en", "fr"]),
)
def test_every_fantasy_business_move_reads_back(seed, n, mode, plies, lang):
    states = _fb_states(seed, n, mode, plies)
    names = NAMES[:n]
    for state in states[-3:]:
        for seat in range(n):
            for entry in fbt.legal_texts(state, seat, lang, names):
                assert fbt.parse(entry["text"], state, seat, names) == entry["move"], entry["text"]


def test_fantasy_business_reaches_every_step_in_the_round_trip():
    """The sample games above pass through every step, specials with targets included."""
    seen: set[str] = set()
    from pbem.games.fantasy_business.engine import step_name

    for seed in range(12):
        for mode in FB_MODES:
            for state in _fb_states(seed, 4, mode, 400):
                step = step_name(state)
                for seat in range(4):
                    for entry in fbt.legal_texts(state, seat, "fr", NAMES[:4]):
                        assert fbt.parse(entry["text"], state, seat, NAMES[:4]) == entry["move"]
                        seen.add(f"{step}:{entry['move']['action']}")
                        if "target" in entry["move"]:
                            seen.add("play-with-target")
    assert {"choose:choose", "open:bid", "open:pass", "sealed:bid", "specials:done",
            "specials:play", "pricing:prices", "play-with-target"} <= seen  # fmt: skip


CASTLE_HAND = table([["castle", "ace-knots", "forest", "sea"], ["mill", "cave", "pact", "bard"]])


@pytest.mark.parametrize(
    "line",
    [
        "play castle 3 knots",
        "Play the Castle on market 3, take Knots",
        "jouer château 3 noeuds",
        "Jouer le Château sur le marché 3, prendre un jeton Nœuds",
        "JOUER CHATEAU 3 NŒUDS",
        "knots castle 3",
        "castle 3 knot",
        "3 castle knots please",
    ],
)
def test_forgiving_spellings_of_one_move(line):
    state = CASTLE_HAND
    move = cbt.parse(line, state, 0, NAMES[:2])
    assert move["card"] == "castle" and move["market"] == 2 and move["chip"] == "knots"


def test_aces_in_either_language_and_the_card_ids():
    state = CASTLE_HAND
    for line in ("play ace of knots 4 moons", "jouer as de nœuds 4 lunes", "ace-knots 4 moons"):
        move = cbt.parse(line, state, 0, NAMES[:2])
        assert (move["card"], move["chip"]) == ("ace-knots", "moons"), line


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("play castle knots", "mailmove.error.ambiguous"),  # which market?
        ("play mill 3 knots", "mailmove.error.not_in_hand"),  # not in this hand
        ("play castle 3", "mailmove.error.no_chip"),
        ("play castle 2 knots", "mailmove.error.no_match"),  # does not fit there
        ("play 3 knots", "mailmove.error.no_card"),
        ("hello there", "mailmove.error.unknown_word"),
        ("play castle 3 4 knots", "mailmove.error.two_numbers"),
        ("discard castle knots", "mailmove.error.no_match"),  # it can be played
        ("", "mailmove.error.empty"),
    ],
)
def test_lines_that_name_no_single_move_are_refused(line, key):
    with pytest.raises(TextMoveError) as info:
        cbt.parse(line, CASTLE_HAND, 0, NAMES[:2])
    assert info.value.key == key


def _pricing_state(seed: int = 0) -> tuple[dict, int]:
    """A state in the pricing step and a seat that sells."""
    from pbem.games.fantasy_business.engine import step_name

    for state in _fb_states(seed, 4, "open", 400):
        if step_name(state) == "pricing":
            return state, FB.to_act(state)[0]
    raise AssertionError("no pricing step reached")


@pytest.mark.parametrize(
    "line",
    [
        "swords 6, horses 8",
        "Épées 6 et chevaux 8",
        "6 swords, 8 horses",
        "Prix : épées 6 chevaux 8",
    ],
)
def test_prices_in_any_order_and_language(line):
    state, seat = _pricing_state()
    move = fbt.parse(line, state, seat, NAMES[:4])
    assert move == {"action": "prices", "prices": {"swords": 6, "horses": 8}}


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("magic 6", "mailmove.error.unknown_word"),  # components or potions?
        ("swords", "mailmove.error.price_missing"),
        ("swords 6 swords 7", "mailmove.error.price_twice"),
        ("6 7", "mailmove.error.two_numbers"),
    ],
)
def test_prices_that_cannot_be_read(line, key):
    state, seat = _pricing_state()
    with pytest.raises(TextMoveError) as info:
        fbt.parse(line, state, seat, NAMES[:4])
    assert info.value.key == key


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_any_text_is_a_move_or_a_text_move_error(text):
    state = CASTLE_HAND
    try:
        move = cbt.parse(text, state, 0, NAMES[:2])
    except TextMoveError:
        return
    assert move in CB.legal_moves(state, 0)
