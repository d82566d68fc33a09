"""Colour Bazaar: one test per rule, on hand-built tables.

Markets are numbered from 0 in moves and from 1 in messages. The Pawns lie in
order: market 1 the Watchman (Moons, Wyrms, Knots), 2 the Borderland (Waves,
Leaves, Wyrms), 3 the Harvest (Moons, Suns, Leaves), 4 the Light Keeper (Suns,
Waves, Knots).
"""

from __future__ import annotations

import copy
import json
import random

import pytest

from pbem.games import BadOptions
from pbem.games.decktet import BASIC, COURTS, PAWNS, SUITS
from pbem.games.message import Message
from pbem.present.text import error_text, render
from tests.games.helpers import (
    BORDERLAND,
    CONSUL_WAVES,
    GAME,
    LIGHT_KEEPER,
    _edict_table,
    check_conservation,
    check_view_hides,
    refusal,
    table,
)

ALL_CHIPS = {suit: 5 for suit in SUITS}


def plays_of(moves: list[dict]) -> set[tuple[str, int]]:
    """The (card, market) pairs among some moves."""
    return {(m["card"], m["market"]) for m in moves if "card" in m}


# --- Setup -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n, courts, deck_size", [(2, False, 36), (3, False, 36), (2, True, 40), (3, True, 40)]
)
def test_setup_deals_four_each_lays_the_pawns_and_puts_out_30_chips(n, courts, deck_size):
    state = GAME.setup(n, {"courts": courts}, 11)
    assert [len(hand) for hand in state["hands"]] == [4] * n
    assert state["markets"] == [[pawn] for pawn in PAWNS]
    assert len(state["deck"]) == deck_size - 4 * n
    dealt = state["deck"] + [c for hand in state["hands"] for c in hand]
    assert sorted(dealt) == sorted(BASIC + (COURTS if courts else ()))
    assert "excuse" not in dealt
    assert state["chips_left"] == ALL_CHIPS and sum(state["chips_left"].values()) == 30
    assert all(sum(held.values()) == 0 for held in state["chips"])
    assert state["discards"] == [] and state["edict"] is None
    assert GAME.to_act(state) == [state["turn"]]
    assert GAME.outcome(state) is None


def test_the_basic_deck_has_no_courts():
    dealt = GAME.setup(3, {}, 5)
    cards = dealt["deck"] + [c for hand in dealt["hands"] for c in hand]
    assert not set(cards) & set(COURTS)


@pytest.mark.parametrize("n", [2, 3])
def test_first_player_option_is_honoured(n):
    for first in range(n):
        for seed in range(10):
            state = GAME.setup(n, {"first": first}, seed)
            assert state["turn"] == first
            assert GAME.to_act(state) == [first]


def test_without_first_option_the_seed_chooses_deterministically():
    assert GAME.setup(3, {}, 42) == GAME.setup(3, {}, 42)
    assert {GAME.setup(3, {}, seed)["turn"] for seed in range(60)} == {0, 1, 2}
    assert GAME.setup(2, {}, 1)["hands"] != GAME.setup(2, {}, 2)["hands"]


@pytest.mark.parametrize(
    "n, options, text",
    [
        (2, {"first": 2}, "The option “first” must be from 0 to 1."),
        (3, {"first": 3}, "The option “first” must be from 0 to 2."),
        (4, {}, "This game takes 2 to 3 players, not 4."),
        (1, {}, "This game takes 2 to 3 players, not 1."),
        (2, {"courts": "yes"}, "The option “courts” must be on or off."),
        (2, {"colours": 3}, "There is no option called “colours”."),
    ],
)
def test_bad_options_are_refused_with_a_reason(n, options, text):
    with pytest.raises(BadOptions) as info:
        GAME.setup(n, options, 0)
    assert error_text(info.value, "en") == text


# --- Step 1: play a card sharing a suit with the top of a market --------------------------


def _plain_table():
    return table(
        [
            ["castle", "sailor", "ace-moons", "savage"],
            ["pact", "mill", "ace-wyrms", "bard"],
        ],
        [[], [], ["forest"], []],
    )


def test_a_card_must_share_a_suit_with_the_top_of_the_market():
    state = _plain_table()
    assert (
        refusal(state, 0, {"card": "castle", "market": 2, "chip": "suns"})
        == "The Castle shares no suit with the top of market 3 (The Forest)."
    )
    assert (
        refusal(state, 0, {"card": "castle", "market": 1, "chip": "suns"})
        == "The Castle shares no suit with the top of market 2 (The Borderland)."
    )


def test_legal_plays_are_exactly_the_cards_sharing_a_suit_with_a_top():
    state = _plain_table()
    moves = GAME.legal_moves(state, 0)
    # Castle: Suns/Knots. Sailor: Waves/Leaves. Ace: Moons. Savage: Leaves/Wyrms.
    # Tops: Watchman (Mo Wy Kn), Borderland (Wa Le Wy), Forest (Mo Le), Light Keeper (Su Wa Kn).
    assert plays_of(moves) == {
        ("castle", 0),
        ("castle", 3),
        ("sailor", 1),
        ("sailor", 2),
        ("sailor", 3),
        ("ace-moons", 0),
        ("ace-moons", 2),
        ("savage", 0),
        ("savage", 1),
        ("savage", 2),
    }
    assert len(moves) == 10 * 6  # every play with every chip
    assert GAME.view(state, 0)["playable"] == sorted(["castle", "sailor", "ace-moons", "savage"])


def test_a_played_card_goes_on_top_and_the_turn_passes():
    state = _plain_table()
    top_of_deck = state["deck"][-1]
    after = GAME.apply(state, 0, {"card": "castle", "market": 3, "chip": "leaves"})
    assert after["markets"][3] == [LIGHT_KEEPER, "castle"]
    assert after["hands"][0] == ["sailor", "ace-moons", "savage", top_of_deck]
    assert after["turn"] == 1 and GAME.to_act(after) == [1]
    check_conservation(after)


def test_a_card_not_in_hand_cannot_be_played_or_discarded():
    state = _plain_table()
    assert (
        refusal(state, 0, {"card": "pact", "market": 0, "chip": "suns"})
        == "The Pact is not in your hand."
    )
    assert refusal(state, 0, {"discard": "pact", "chip": "suns"}) == "The Pact is not in your hand."


def test_discarding_is_refused_while_any_card_can_be_played():
    state = _plain_table()
    text = refusal(state, 0, {"discard": "sailor", "chip": "suns"})
    assert text == "You cannot discard while a card can be played: The Castle fits market 1."
    GAME.apply(state, 0, {"card": "castle", "market": 0, "chip": "suns"})  # as the message says


def _stuck_table():
    # Seat 0 holds only Suns and Knots; the tops show only Moons, Waves, Leaves and Wyrms.
    return table(
        [
            ["castle", "painter", "ace-suns", "bard"],
            ["pact", "mill", "ace-wyrms", "lunatic"],
        ],
        [["ace-moons"], [], ["forest"], ["sea"]],
    )


def test_with_nothing_playable_the_only_moves_are_discards():
    state = _stuck_table()
    moves = GAME.legal_moves(state, 0)
    assert {m["discard"] for m in moves} == {"castle", "painter", "ace-suns", "bard"}
    assert all(set(m) == {"discard", "chip"} for m in moves)
    assert len(moves) == 4 * 6
    assert GAME.view(state, 0)["playable"] == []
    assert (
        refusal(state, 0, {"card": "castle", "market": 0, "chip": "suns"})
        == "The Castle shares no suit with the top of market 1 (Ace of Moons)."
    )
    assert (
        refusal(state, 0, {"chip": "suns"})
        == "Choose a card to play or, if none can be played, one to discard."
    )


def test_a_discard_is_face_down_and_still_earns_a_chip():
    state = _stuck_table()
    after = GAME.apply(state, 0, {"discard": "painter", "chip": "moons"})
    assert after["discards"] == [[0, "painter"]]
    assert all("painter" not in market for market in after["markets"])
    assert after["chips"][0]["moons"] == 1 and after["chips_left"]["moons"] == 4
    assert len(after["hands"][0]) == 4  # the draw still happens
    check_conservation(after)
    assert GAME.view(after, 0)["my_discards"] == ["painter"]
    for viewer in (1, None):
        view = GAME.view(after, viewer)
        assert view["discard_counts"] == [1, 0]
        assert "painter" not in json.dumps(view)
        check_view_hides(after, viewer)


def test_describe_shows_a_discarded_card_only_to_its_owner():
    state = _stuck_table()
    move = {"discard": "painter", "chip": "moons"}
    own = GAME.describe(state, 0, move, 0)
    assert [render(m) for m in own] == [
        "Player 1 could not play, discarded The Painter face down and took a Moons chip."
    ]
    for viewer in (1, None):
        lines = GAME.describe(state, 0, move, viewer)
        assert [render(m) for m in lines] == [
            "Player 1 could not play, discarded a card face down and took a Moons chip."
        ]
        assert "painter" not in json.dumps([m.to_json() for m in lines])


# --- Step 2: take a chip of any suit that has chips left ---------------------------------


def test_any_available_chip_may_be_taken_whatever_was_played():
    state = _plain_table()
    for suit in SUITS:  # the Ace of Moons, with each of the six chips
        after = GAME.apply(state, 0, {"card": "ace-moons", "market": 0, "chip": suit})
        assert after["chips"][0][suit] == 1 and after["chips_left"][suit] == 4
    chips = {m["chip"] for m in GAME.legal_moves(state, 0) if m.get("card") == "ace-moons"}
    assert chips == set(SUITS)


def test_a_chip_is_required():
    state = _plain_table()
    assert refusal(state, 0, {"card": "castle", "market": 0}) == "Choose the chip you take."


def test_a_suit_whose_chips_ran_out_cannot_be_taken():
    state = _plain_table()
    state["chips_left"]["suns"] = 0
    state["chips"][1]["suns"] = 5
    check_conservation(state)
    assert (
        refusal(state, 0, {"card": "castle", "market": 0, "chip": "suns"})
        == "There are no Suns chips left."
    )
    assert all(m["chip"] != "suns" for m in GAME.legal_moves(state, 0))
    GAME.apply(state, 0, {"card": "castle", "market": 0, "chip": "knots"})


# --- Step 3: the automatic draw -----------------------------------------------------------


def test_the_draw_is_automatic_from_the_top_of_the_pile():
    state = _plain_table()
    top = state["deck"][-1]
    after = GAME.apply(state, 0, {"card": "sailor", "market": 1, "chip": "waves"})
    assert top in after["hands"][0] and len(after["hands"][0]) == 4
    assert after["deck"] == state["deck"][:-1]


def test_with_an_empty_draw_pile_there_is_no_draw_but_play_goes_on():
    state = _plain_table()
    state["deck"] = []
    after = GAME.apply(state, 0, {"card": "sailor", "market": 1, "chip": "waves"})
    assert after["hands"][0] == ["castle", "ace-moons", "savage"]
    assert after["deck"] == [] and not after["over"]
    assert GAME.to_act(after) == [1]
    again = GAME.apply(after, 1, GAME.legal_moves(after, 1)[0])
    assert len(again["hands"][1]) == 3 and GAME.to_act(again) == [0]


# --- Turn order and the end --------------------------------------------------------------


def test_a_seat_may_not_move_out_of_turn():
    state = _plain_table()
    assert refusal(state, 1, {"card": "pact", "market": 0, "chip": "suns"}) == (
        "It is not your turn."
    )
    assert GAME.legal_moves(state, 1) == []
    assert GAME.view(state, 1)["playable"] == []


@pytest.mark.parametrize("n, turns_each", [(2, 15), (3, 10)])
@pytest.mark.parametrize("courts", [False, True])
def test_the_game_ends_exactly_at_the_30th_chip(n, turns_each, courts):
    rng = random.Random(n * 10 + courts)
    state = GAME.setup(n, {"courts": courts}, 3)
    made = [0] * n
    for ply in range(30):
        assert GAME.to_act(state), f"over after {ply} chips"
        assert GAME.outcome(state) is None
        seat = GAME.to_act(state)[0]
        state = GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
        made[seat] += 1
    assert made == [turns_each] * n
    assert GAME.to_act(state) == [] and state["over"]
    assert sum(state["chips_left"].values()) == 0
    assert [sum(held.values()) for held in state["chips"]] == [turns_each] * n
    assert GAME.outcome(state) is not None
    assert all(GAME.legal_moves(state, seat) == [] for seat in range(n))
    assert refusal(state, state["turn"], {"chip": "suns"}) == "The game is over."


def test_taking_the_last_chip_ends_the_game_at_once():
    held = [
        {"moons": 3, "suns": 3, "waves": 2, "leaves": 2, "wyrms": 2, "knots": 2},
        {"moons": 2, "suns": 2, "waves": 2, "leaves": 3, "wyrms": 3, "knots": 3},
    ]
    left = {suit: 0 for suit in SUITS} | {"waves": 1}
    state = table(
        [["castle", "sailor", "ace-moons", "savage"], ["pact", "mill", "ace-wyrms", "bard"]],
        chips_left=left,
        chips=held,
    )
    check_conservation(state)
    assert {m["chip"] for m in GAME.legal_moves(state, 0)} == {"waves"}
    after = GAME.apply(state, 0, {"card": "castle", "market": 0, "chip": "waves"})
    assert after["over"] and GAME.to_act(after) == []
    assert after["hands"][0] == ["sailor", "ace-moons", "savage"]  # no draw after the end
    outcome = GAME.outcome(after)
    assert outcome is not None and len(outcome.scores) == 2
    lines = GAME.describe(state, 0, {"card": "castle", "market": 0, "chip": "waves"}, None)
    assert lines[-1] == Message("cb.log.last_chip", {})


# --- Courts and the royal edict ----------------------------------------------------------


def test_a_court_must_name_one_of_its_own_suits():
    state = _edict_table(["sailor", "castle", "journey", "savage"])
    assert (
        refusal(state, 0, {"card": "consul", "market": 0, "chip": "suns"})
        == "Name one of the suits of The Consul for the royal edict."
    )
    assert (
        refusal(state, 0, {"card": "consul", "market": 0, "suit": "suns", "chip": "suns"})
        == "Suns is not a suit of The Consul."
    )
    court_moves = [m for m in GAME.legal_moves(state, 0) if m["card"] == "consul"]
    assert {m["suit"] for m in court_moves} == {"moons", "waves", "knots"}
    assert {m["market"] for m in court_moves} == {0, 1, 2, 3}


def test_a_card_that_is_not_a_court_names_no_suit():
    state = _edict_table(["sailor", "castle", "journey", "savage"])
    assert (
        refusal(state, 0, {"card": "ace-leaves", "market": 1, "suit": "leaves", "chip": "suns"})
        == "Ace of Leaves is not a Court, so it names no suit."
    )
    assert all("suit" not in m for m in GAME.legal_moves(state, 0) if m["card"] != "consul")


def test_a_court_is_played_like_any_card():
    state = _edict_table(
        ["sailor", "castle", "journey", "savage"], markets=[["ace-wyrms"], [], [], []]
    )
    assert (
        refusal(state, 0, {"card": "consul", "market": 0, "suit": "waves", "chip": "suns"})
        == "The Consul shares no suit with the top of market 1 (Ace of Wyrms)."
    )


def test_edict_target_holding_the_named_suit_must_play_it_on_that_market():
    # The target holds two Waves cards (Sailor, Journey) and two others.
    state = GAME.apply(_edict_table(["sailor", "castle", "journey", "savage"]), 0, CONSUL_WAVES)
    assert state["edict"] == {"market": 0, "suit": "waves", "court": "consul", "seat": 1}
    assert plays_of(GAME.legal_moves(state, 1)) == {("sailor", 0), ("journey", 0)}
    assert GAME.view(state, 1)["playable"] == ["journey", "sailor"]
    edict_text = (
        "The royal edict of The Consul calls for a Waves card on market 1, and you hold one."
    )
    # The Castle would fit the Light Keeper, and the Consul too (Knots), but not now.
    assert refusal(state, 1, {"card": "castle", "market": 3, "chip": "suns"}) == edict_text
    assert refusal(state, 1, {"card": "castle", "market": 0, "chip": "suns"}) == edict_text
    assert refusal(state, 1, {"card": "sailor", "market": 1, "chip": "suns"}) == edict_text
    assert (
        refusal(state, 1, {"discard": "savage", "chip": "suns"})
        == "You cannot discard while a card can be played: The Sailor fits market 1."
    )
    after = GAME.apply(state, 1, {"card": "sailor", "market": 0, "chip": "suns"})
    assert after["markets"][0][-2:] == ["consul", "sailor"]


def test_edict_target_holding_the_named_suit_keeps_their_hand_hidden():
    state = GAME.apply(_edict_table(["sailor", "castle", "journey", "savage"]), 0, CONSUL_WAVES)
    assert state["reveals"] == [] and state["known"][1] == []
    for viewer in (0, None):
        assert GAME.view(state, viewer)["hands"][1] == {"count": 4, "known": []}
        check_view_hides(state, viewer)
    lines = GAME.describe(
        _edict_table(["sailor", "castle", "journey", "savage"]), 0, CONSUL_WAVES, 0
    )
    assert [m.key for m in lines] == ["cb.log.played_court"]
    assert render(lines[0]) == (
        "Player 1 played The Consul on market 1, named Waves in a royal edict, "
        "and took a Moons chip."
    )


def test_edict_target_without_the_suit_shows_their_hand_and_plays_on_that_market():
    # No Waves card; the Castle shares Knots with the Consul; the others share nothing with it.
    hand = ["castle", "savage", "desert", "ace-suns"]
    before = _edict_table(hand)
    state = GAME.apply(before, 0, CONSUL_WAVES)
    assert state["reveals"] == [{"ply": 1, "seat": 1, "cards": hand}]
    for viewer in (0, None):
        assert GAME.view(state, viewer)["hands"][1] == {"count": 4, "known": hand}
        check_view_hides(state, viewer)
    lines = GAME.describe(before, 0, CONSUL_WAVES, None)
    assert render(lines[-1]) == (
        "Player 2 holds no Waves card and shows their hand: "
        "The Castle, The Savage, The Desert, Ace of Suns."
    )
    assert plays_of(GAME.legal_moves(state, 1)) == {("castle", 0)}
    market_text = (
        "You hold no card of the named suit, but The Castle shares a suit with The Consul: "
        "the edict says you must play on market 1."
    )
    assert refusal(state, 1, {"card": "savage", "market": 1, "chip": "suns"}) == market_text
    assert refusal(state, 1, {"card": "castle", "market": 3, "chip": "suns"}) == market_text
    after = GAME.apply(state, 1, {"card": "castle", "market": 0, "chip": "suns"})
    # What was shown and is still in hand stays known; the new card does not.
    assert GAME.view(after, 0)["hands"][1]["known"] == ["savage", "desert", "ace-suns"]
    for viewer in (0, None):
        check_view_hides(after, viewer)


def test_edict_target_sharing_nothing_with_the_court_may_play_elsewhere():
    hand = ["savage", "desert", "ace-suns", "penitent"]
    state = GAME.apply(_edict_table(hand), 0, CONSUL_WAVES)
    assert state["known"][1] == hand  # shown: no Waves card
    assert plays_of(GAME.legal_moves(state, 1)) == {
        ("savage", 1),
        ("savage", 2),
        ("desert", 1),
        ("desert", 2),
        ("desert", 3),
        ("ace-suns", 2),
        ("ace-suns", 3),
        ("penitent", 1),
        ("penitent", 2),
        ("penitent", 3),
    }
    after = GAME.apply(state, 1, {"card": "savage", "market": 1, "chip": "wyrms"})
    assert after["markets"][1] == [BORDERLAND, "savage"]


def test_edict_target_who_can_play_nothing_discards():
    hand = ["savage", "desert", "ace-suns", "penitent"]  # Suns, Leaves, Wyrms only
    markets = [[], ["ace-waves"], ["ace-moons"], ["ace-knots"]]
    state = GAME.apply(_edict_table(hand, markets=markets), 0, CONSUL_WAVES)
    moves = GAME.legal_moves(state, 1)
    assert moves and all(set(m) == {"discard", "chip"} for m in moves)
    after = GAME.apply(state, 1, {"discard": "desert", "chip": "suns"})
    assert after["discards"] == [[1, "desert"]]
    # After a face-down discard the others no longer know which shown cards remain.
    assert GAME.view(after, 0)["hands"][1]["known"] == []
    for viewer in (0, None):
        check_view_hides(after, viewer)


def test_the_edict_lasts_one_turn_only():
    state = _edict_table(["sailor", "castle", "journey", "savage"], n=3)
    state = GAME.apply(state, 0, CONSUL_WAVES)
    state = GAME.apply(state, 1, {"card": "sailor", "market": 0, "chip": "suns"})
    assert state["edict"] is None and GAME.to_act(state) == [2]
    # Seat 2 holds Waves cards too, but is free: the Mill may go on the Borderland.
    assert ("mill", 1) in plays_of(GAME.legal_moves(state, 2))
    GAME.apply(state, 2, {"card": "mill", "market": 1, "chip": "leaves"})


# --- Malformed moves ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "move, text",
    [
        ("castle", "A move must say which card you play and where"),
        ({"card": "castle", "market": 0, "chip": "suns", "bid": 3}, "no field called “bid”"),
        ({"card": "the-castle", "market": 0, "chip": "suns"}, "There is no card called"),
        ({"card": "castle", "market": 4, "chip": "suns"}, "Choose a market from 1 to 4."),
        ({"card": "castle", "market": "1", "chip": "suns"}, "Choose a market from 1 to 4."),
        ({"card": "castle", "market": True, "chip": "suns"}, "Choose a market from 1 to 4."),
        ({"card": "castle", "market": 0, "chip": "gold"}, "“gold” is not a suit."),
        ({"card": "castle", "discard": "sailor", "chip": "suns"}, "not both"),
        ({"discard": "castle", "market": 0, "chip": "suns"}, "Choose a card to go with"),
        ({"discard": "castle", "suit": "suns", "chip": "suns"}, "Only a Court names a suit"),
    ],
)
def test_malformed_moves_are_refused_with_a_reason(move, text):
    assert text in refusal(_plain_table(), 0, move)


# --- Purity and plain data ---------------------------------------------------------------


def _sample_moves():
    """(state, seat, move): plays, a discard, a Court with a reveal, the last chip, refusals."""
    plain, stuck = _plain_table(), _stuck_table()
    edict = _edict_table(["castle", "savage", "desert", "ace-suns"])
    revealed = GAME.apply(edict, 0, CONSUL_WAVES)
    last = table(
        [["castle", "sailor", "ace-moons", "savage"], ["pact", "mill", "ace-wyrms", "bard"]],
        chips_left={suit: 0 for suit in SUITS} | {"waves": 1},
    )
    return [
        (plain, 0, {"card": "castle", "market": 3, "chip": "leaves"}),
        (plain, 0, {"card": "castle", "market": 2, "chip": "leaves"}),
        (stuck, 0, {"discard": "painter", "chip": "moons"}),
        (edict, 0, CONSUL_WAVES),
        (revealed, 1, {"card": "castle", "market": 0, "chip": "suns"}),
        (revealed, 1, {"card": "savage", "market": 1, "chip": "suns"}),
        (last, 0, {"card": "castle", "market": 0, "chip": "waves"}),
    ]


def test_no_function_of_the_interface_changes_its_input_state():
    for state, seat, move in _sample_moves():
        before = copy.deepcopy(state)
        try:
            after = GAME.apply(state, seat, move)
        except ValueError:
            after = None
        assert state == before, move
        if after is not None:
            for viewer in (0, 1, None):
                GAME.describe(state, seat, move, viewer)
                GAME.view(after, viewer)
            GAME.outcome(after)
            after_copy = copy.deepcopy(after)
            GAME.legal_moves(after, 0)
            if GAME.to_act(after):
                GAME.timeout_move(after, GAME.to_act(after)[0])
            assert after == after_copy
        GAME.legal_moves(state, seat)
        GAME.timeout_move(state, seat)
        assert state == before


def test_states_and_views_survive_a_json_round_trip():
    rng = random.Random(5)
    state = GAME.setup(3, {"courts": True}, 9)
    while GAME.to_act(state):
        seat = GAME.to_act(state)[0]
        restored = json.loads(json.dumps(state))
        assert restored == state
        for viewer in (0, 1, 2, None):
            view = GAME.view(state, viewer)
            assert json.loads(json.dumps(view)) == view
        move = rng.choice(GAME.legal_moves(restored, seat))
        assert GAME.apply(restored, seat, json.loads(json.dumps(move))) == GAME.apply(
            state, seat, move
        )
        state = GAME.apply(restored, seat, move)
    outcome = GAME.outcome(state)
    assert json.loads(json.dumps(outcome.breakdown)) == outcome.breakdown
