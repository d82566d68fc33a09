"""Text moves for replies by mail: every legal move's text reads back as that move,
in English and French, and forgiving spellings of a move still read as it."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.games import GAMES
from pbem.games.base import IllegalMove
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
                        plays = entry["move"].get("plays") or [entry["move"]]
                        if any("target" in play for play in plays):
                            seen.add("play-with-target")
    assert {"choose:choose", "open:bid", "open:pass", "sealed:bid", "specials:done",
            "specials:play", "pricing:prices", "play-with-target", "order:order",
            "limits:limits", "lists:specials", "antitrust_limits:limit"} <= seen  # fmt: skip


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


# --- The orders auction (Spec, Playing by mail): order of sale, limits, lists of specials.


def _orders_state(seed: int, step: str, seat: int | None = None, holds: int = 0) -> dict:
    """The first state of a 4-player orders game (fixed seed) at `step` (where `seat` is
    asked, holding at least `holds` specials)."""
    from pbem.games.fantasy_business.engine import step_name

    for state in _fb_states(seed, 4, "orders", 400):
        if step_name(state) == step and (
            seat is None or (seat in state["asked"] and len(state["specials"][seat]) >= holds)
        ):
            return state
    raise AssertionError(f"no {step} step reached")


# Seed 25: the row is swords, armour, magic potions, horses; seat 3 is the first buyer.
@pytest.mark.parametrize(
    ("line", "order"),
    [
        ("order horses swords armour potions", [3, 0, 1, 2]),
        ("Ordre : chevaux, épées, armures, potions magiques", [3, 0, 1, 2]),
        ("ORDRE CHEVAUX EPEES", [3, 0, 1, 2]),  # the cards left out follow in row order
        ("order 4 1 2 3", [3, 0, 1, 2]),
        ("4, 1", [3, 0, 1, 2]),
        ("sell the magic potions first", [2, 0, 1, 3]),
    ],
)
def test_order_of_sale_by_names_or_numbers(line, order):
    state = _orders_state(25, "order")
    assert [c.split("-")[0] for c in state["row"]] == ["swords", "armour", "potions", "horses"]
    move = fbt.parse(line, state, state["first"], NAMES[:4])
    assert move == {"action": "order", "order": order}
    FB.apply(state, state["first"], move)  # the rules take it


def test_order_of_sale_with_two_cards_of_one_article():
    state = _orders_state(27, "order")  # swords, bows, bows, swords
    seat = state["first"]
    assert fbt.parse("order swords swords bows", state, seat, NAMES[:4])["order"] == [0, 3, 1, 2]
    with pytest.raises(TextMoveError) as info:
        fbt.parse("order swords swords swords", state, seat, NAMES[:4])
    assert info.value.key == "mailmove.error.not_in_row"
    # Numbers past the row are left to the rules, which say why.
    move = fbt.parse("order 5 1", state, seat, NAMES[:4])
    with pytest.raises(IllegalMove) as refused:
        FB.apply(state, seat, move)
    assert refused.value.msg.key == "fb.order_not_permutation"


def _limits_state() -> tuple[dict, int]:
    """Seed 25 after the first buyer sold horses first: the order of sale is horses, swords,
    armour, magic potions."""
    state = _orders_state(25, "order")
    state = FB.apply(state, state["first"], {"action": "order", "order": [3, 0, 1, 2]})
    return state, state["asked"][0]


@pytest.mark.parametrize(
    "line",
    [
        "swords 6, horses 8",
        "Épées 6 et chevaux 8",
        "8 horses, 6 swords",
        "limits: horses 8 swords 6 armour 0",
        "8 6 0 0",  # one number per card, in the order of sale
        "plafonds 8, 6, 0, 0",
    ],
)
def test_limits_by_name_or_in_the_order_of_sale(line):
    state, seat = _limits_state()
    move = fbt.parse(line, state, seat, NAMES[:4])
    assert move == {"action": "limits", "limits": [6, 0, 0, 8]}  # in row slots
    FB.apply(state, seat, move)


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("6 8", "mailmove.error.limits_count"),
        ("swords", "mailmove.error.limit_missing"),
        ("swords 6 7", "mailmove.error.two_numbers"),
        ("dragons 6", "mailmove.error.unknown_word"),
        ("swords 6, swords 7", "mailmove.error.not_in_row"),  # the row holds one Swords card
    ],
)
def test_limits_that_cannot_be_read(line, key):
    state, seat = _limits_state()
    with pytest.raises(TextMoveError) as info:
        fbt.parse(line, state, seat, NAMES[:4])
    assert info.value.key == key


def test_no_limits_at_all():
    state, seat = _limits_state()
    for line in ("pass", "none", "rien", "aucune"):
        assert fbt.parse(line, state, seat, NAMES[:4]) == {"action": "limits", "limits": [0] * 4}


def test_a_list_of_specials_in_its_order_with_targets():
    state = _orders_state(
        5, "lists", seat=0, holds=2
    )  # seat 0 holds a subsidy and a defaulting buyer
    assert sorted(state["specials"][0]) == ["defaulting-1", "subsidy-2"]
    subsidy, defaulting = {"card": "subsidy-2"}, {"card": "defaulting-1", "target": 1}
    for line, plays in [
        ("play subsidy, defaulting Léo", [subsidy, defaulting]),
        ("jouer acheteur défaillant Léo puis subvention", [defaulting, subsidy]),
        ("Leo defaulting subsidy", [defaulting, subsidy]),
        ("subvention", [subsidy]),
        ("aucune", []),
        ("none", []),
    ]:
        assert fbt.parse(line, state, 0, NAMES[:4]) == {"action": "specials", "plays": plays}
    for line, key in [
        ("subsidy, subsidy", "mailmove.error.no_match"),  # one subsidy held
        ("defaulting", "mailmove.error.ambiguous"),  # three players it could name
        ("theft Léo", "mailmove.error.no_match"),
    ]:
        with pytest.raises(TextMoveError) as info:
            fbt.parse(line, state, 0, NAMES[:4])
        assert info.value.key == key, line


def test_a_special_with_one_possible_target_needs_no_target():
    state = _orders_state(
        15, "lists", seat=1, holds=2
    )  # seat 1: an Antitrust law, only Marc's horses fit
    move = fbt.parse("antitrust", state, 1, NAMES[:4])
    assert move == {"action": "specials", "plays": [{"card": "antitrust-4", "target": 3,
                                                     "article": "horses"}]}  # fmt: skip


def test_the_mail_example_comes_from_the_seat_s_own_row():
    state = _orders_state(25, "order")
    assert fbt.example(state, state["first"], "en", NAMES[:4]) == (
        "order horses magic potions armour swords"  # the row, sold backwards
    )
    assert fbt.example(state, state["first"], "fr", NAMES[:4]).startswith("ordre ")
    state, seat = _limits_state()
    example = fbt.example(state, seat, "fr", NAMES[:4])
    assert example.startswith("chevaux ")  # the order of sale, horses first
    assert fbt.parse(example, state, seat, NAMES[:4])["action"] == "limits"
