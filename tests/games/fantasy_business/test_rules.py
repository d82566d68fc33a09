"""Fantasy Business: one test (or a few) per rule of shared/rules/fantasy-business-spec.md."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from pbem.games import GAMES
from pbem.games.base import BadOptions, IllegalMove
from pbem.games.fantasy_business import FantasyBusiness, engine
from pbem.games.fantasy_business.cards import (
    ALL_CARD_IDS,
    ARTICLES,
    SPECIAL_KINDS,
    build_deck,
    card_type,
    standard_table,
)
from pbem.present.text import card_name, render, translated
from pbem.present.vocabulary import VOCABULARY
from tests.games.fantasy_business.helpers import (
    PASS,
    G,
    bid,
    play,
    prices,
    raises,
    skip_to_specials,
)

FULL_DECK = build_deck(standard_table())


# --- helpers shared by the other Fantasy Business test files ------------------------------


def fresh(n=4, row=(), first=0, options=None, seed=1):
    """A new game whose round 1 reveals `row` (then the rest of a shuffled pile).

    Bid by bid unless `options` say otherwise: most rules are shown on the open auction."""
    state = G.setup(n, {"auction": "open", **(options or {})}, seed)
    rest = [c for c in state["deck"] + state["row"] if c not in row]
    state.update(deck=list(row) + rest, history=[], step="reveal", first=first, events=[])
    engine.run(state)
    return state


def choose(slot):
    return {"action": "choose", "slot": slot}


DONE = {"action": "done"}
TAKE = {"action": "take"}


ROW4 = ["herbs-1", "swords-1", "horses-1", "potions-1"]


# --- components and setup (Spec, Components; Setup) ----------------------------------------


def test_registered():
    assert isinstance(GAMES["fantasy-business"], FantasyBusiness)
    assert (G.min_players, G.max_players) == (3, 8)


def test_card_data():
    assert len(FULL_DECK) == 72
    assert len(set(FULL_DECK)) == 72
    kinds = Counter(card_type(c) for c in FULL_DECK)
    assert all(kinds[a.id] == 6 for a in ARTICLES)
    assert [a.base for a in ARTICLES] == [2, 3, 3, 4, 5, 5, 6, 6]
    assert kinds["subsidy"] == 5 and kinds["theft"] == 4
    assert kinds["defaulting"] == kinds["defective"] == kinds["antitrust"] == 5
    assert all(c == c.lower() and " " not in c for c in FULL_DECK)
    assert "herbs-1" in FULL_DECK and "antitrust-5" in FULL_DECK


@pytest.mark.parametrize("n", range(3, 9))
def test_setup(n):
    state = G.setup(n, None, 42)
    assert state["money"] == [10] * n
    assert state["rounds"] == (8 if n >= 7 else 10)
    assert len(state["row"]) == n
    assert sorted(state["deck"] + state["row"]) == sorted(FULL_DECK)
    assert 0 <= state["first"] < n
    assert state == G.setup(n, None, 42)
    assert json.loads(json.dumps(state)) == state


def test_player_count_checked():
    for n in (2, 9):
        with pytest.raises(BadOptions):
            G.setup(n, None, 1)


def test_seed_gives_shuffle_and_first_buyer():
    states = [G.setup(5, None, seed) for seed in range(40)]
    assert len({tuple(s["row"]) for s in states}) > 30
    assert {s["first"] for s in states} == set(range(5))


def test_options():
    # Spec, Playing by mail: the orders auction is the default for new games.
    assert G.check_options(3, None) == {"auction": "orders", "specials": "standard"}
    assert G.check_options(3, {"auction": "open"})["auction"] == "open"
    assert G.check_options(3, {"auction": "sealed"})["auction"] == "sealed"
    for bad, key in [
        ({"auction": "dutch"}, "error.option_choice"),
        ({"colour": 1}, "error.option_unknown"),
        ({"specials": "lots"}, "fb.option_specials"),
        ({"specials": 3}, "fb.option_specials"),
        ({"specials": {"bribe": 2}}, "fb.option_specials_kind"),
        ({"specials": {"theft": 11}}, "fb.option_specials_copies"),
        ({"specials": {"theft": True}}, "fb.option_specials_copies"),
        ({"specials": {"theft": {"amount": 2}}}, "fb.option_specials_field"),
        ({"specials": {"subsidy": {"amount": 0}}}, "fb.option_specials_amount"),
    ]:
        with pytest.raises(BadOptions) as info:
            G.check_options(4, bad)
        assert info.value.msg.key == key
    with pytest.raises(BadOptions):
        G.check_options(4, ["auction"])


def test_specials_option_changes_the_deck():
    state = G.setup(3, {"specials": "none"}, 1)
    assert len(state["deck"] + state["row"]) == 48
    opts = {"specials": {"subsidy": {"copies": 2, "amount": 7}, "theft": 0, "antitrust": 10}}
    checked = G.check_options(3, opts)
    assert G.check_options(3, checked) == checked
    state = G.setup(3, opts, 1)
    kinds = Counter(card_type(c) for c in state["deck"] + state["row"])
    assert kinds["subsidy"] == 2 and kinds["theft"] == 0 and kinds["antitrust"] == 10
    assert kinds["defaulting"] == 5
    assert state["table"]["subsidy"]["amount"] == 7


# --- reveal (Spec, A round, 1) -------------------------------------------------------------


def test_reveal_articles_face_up_specials_face_down():
    state = fresh(4, ["herbs-1", "theft-1", "horses-1", "subsidy-2"])
    for seat in (None, 0, 1):
        row = G.view(state, seat)["row"]
        assert [r["card"] for r in row] == ["herbs-1", None, "horses-1", None]
        assert [r["special"] for r in row] == [False, True, False, True]
        assert [r["base"] for r in row] == [2, 1, 5, 1]


def test_short_pile_reveals_fewer_cards():
    state = G.setup(8, {"specials": "none"}, 3)  # 48 cards, 8 a round: the 7th round is short
    while state["round"] < 7:
        seat = G.to_act(state)[0]
        state = G.apply(state, seat, G.timeout_move(state, seat))
    assert state["deck"] == [] and len(state["row"]) == 0
    while G.to_act(state):
        seat = G.to_act(state)[0]
        state = G.apply(state, seat, G.timeout_move(state, seat))
    assert state["round"] == 8


# --- auctions (Spec, A round, 2) -----------------------------------------------------------


def test_first_buyer_chooses_the_order():
    state = fresh(4, ROW4, first=2)
    assert G.to_act(state) == [2]
    assert G.legal_moves(state, 2) == [choose(i) for i in range(4)]
    raises("fb.wait_choose", state, 0, choose(1))
    raises("fb.bad_slot", state, 2, choose(4))
    raises("fb.bad_slot", state, 2, choose(True))
    raises("fb.expect_choose", state, 2, bid(3))
    state = play(state, (2, choose(1)))
    assert state["auction"]["card"] == "swords-1"
    # Bidding starts with the first buyer, then clockwise.
    assert G.to_act(state) == [2]


def test_open_auction_bids_and_passes():
    state = play(fresh(4, ROW4, first=0), (0, choose(1)))  # swords, base 4
    raises("fb.wait_bid", state, 1, bid(4))
    raises("fb.bid_too_low", state, 0, bid(3))
    raises("fb.bid_too_high", state, 0, bid(11))
    raises("fb.amount_not_int", state, 0, bid("4"))
    raises("fb.expect_open", state, 0, TAKE)
    state = play(state, (0, bid(4)))
    assert G.to_act(state) == [1]
    raises("fb.bid_too_low", state, 1, bid(4))  # at least one écu over the current bid
    state = play(state, (1, PASS))
    raises("fb.out_of_auction", state, 1, bid(8))  # a pass is final
    state = play(state, (2, bid(6)), (3, PASS))
    assert G.to_act(state) == [0]
    state = play(state, (0, PASS))
    # Everyone else passed after the last bid: seat 2 wins and pays.
    assert state["articles"][2] == ["swords-1"]
    assert state["money"] == [10, 10, 4, 10]
    assert state["step"] == "choose" and state["won"] == [2]
    lot = state["history"][-1]["lots"][0]
    assert (lot["winner"], lot["price"]) == (2, 6)
    assert lot["bids"] == [[0, 4], [1, None], [2, 6], [3, None], [0, None]]


def test_winner_cannot_bid_again_this_round():
    state = play(fresh(4, ROW4), (0, choose(1)), (0, bid(4)), (1, PASS), (2, PASS), (3, PASS))
    assert state["won"] == [0]
    state = play(state, (0, choose(0)))
    # The first buyer won already: bidding starts with the next eligible player.
    assert G.to_act(state) == [1]
    assert state["auction"]["eligible"] == [1, 2, 3]
    raises("fb.not_eligible", state, 0, bid(5))


def test_everyone_passes_card_discarded():
    state = play(fresh(4, ROW4), (0, choose(0)), (0, PASS), (1, PASS), (2, PASS), (3, PASS))
    assert state["discard"] == ["herbs-1"]
    assert state["won"] == [] and state["money"] == [10] * 4


def test_high_bidder_is_skipped_until_the_others_pass():
    state = play(fresh(3, ROW4[:3]), (0, choose(0)), (0, bid(2)), (1, PASS))
    assert G.to_act(state) == [2]
    state = play(state, (2, bid(3)))
    assert G.to_act(state) == [0]
    state = play(state, (0, PASS))
    assert state["articles"][2] == ["herbs-1"]


def test_no_bid_over_money_and_auto_pass():
    state = fresh(4, ROW4)
    state["money"][0] = 3
    state = play(state, (0, choose(1)))  # swords at 4: seat 0 cannot bid
    assert G.to_act(state) == [1]
    assert state["auction"]["in"] == [1, 2, 3]
    state = play(state, (1, bid(10)))
    # Nobody else can top 10 écus: they pass without being asked, and seat 1 wins.
    assert state["articles"][1] == ["swords-1"] and state["money"][1] == 0


def test_last_card_is_auctioned_without_a_choice():
    state = play(fresh(3, ["herbs-1", "swords-1", "horses-1"]), (0, choose(0)))
    state = play(state, (0, PASS), (1, PASS), (2, PASS))  # herbs discarded
    state = play(state, (0, choose(2)), (0, bid(5)), (1, PASS), (2, PASS))
    # Swords is the last card; two players may still buy: an ordinary auction.
    assert state["step"] == "auction" and state["auction"]["card"] == "swords-1"
    assert state["auction"]["mode"] == "open" and G.to_act(state) == [1]


def test_last_card_single_player_takes_or_declines():
    state = play(fresh(3, ["herbs-1", "swords-1", "horses-1"]), (0, choose(0)))
    state = play(state, (0, bid(2)), (1, PASS), (2, PASS))
    state = play(state, (0, choose(1)), (1, bid(4)), (2, PASS))
    assert state["auction"]["mode"] == "single" and G.to_act(state) == [2]
    assert G.legal_moves(state, 2) == [TAKE, PASS]
    raises("fb.expect_single", state, 2, bid(6))
    took = play(state, (2, TAKE))
    assert took["articles"][2] == ["horses-1"] and took["money"][2] == 5
    declined = play(state, (2, PASS))
    assert declined["articles"][2] == [] and "horses-1" in declined["discard"]


def test_last_card_single_player_who_cannot_pay_goes_without():
    state = play(fresh(3, ["herbs-1", "swords-1", "horses-1"]), (0, choose(0)))
    state = play(state, (0, bid(2)), (1, PASS), (2, PASS), (0, choose(1)), (1, bid(4)))
    state["money"][2] = 4  # horses cost 5
    state = play(state, (2, PASS))
    assert "horses-1" in state["discard"] and state["step"] != "auction"


def test_special_card_base_price_and_winner():
    state = play(fresh(3, ["subsidy-1", "herbs-1", "swords-1"]), (0, choose(0)))
    raises("fb.bid_too_low_1", state, 0, bid(0))  # "1 écu": the singular variant
    state = play(state, (0, bid(1)), (1, PASS), (2, PASS))
    assert state["specials"][0] == ["subsidy-1"] and state["money"][0] == 9


def test_sealed_bids():
    state = play(fresh(4, ROW4, options={"auction": "sealed"}), (0, choose(1)))
    assert G.to_act(state) == [0, 1, 2, 3]
    raises("fb.sealed_too_low", state, 1, bid(3))
    raises("fb.bid_too_high", state, 1, bid(11))
    raises("fb.expect_sealed", state, 1, PASS)
    state = play(state, (2, bid(5)))
    assert G.to_act(state) == [0, 1, 3]
    raises("fb.already_bid", state, 2, bid(6))
    assert G.view(state, 2)["auction"]["my_bid"] == 5
    assert G.view(state, 1)["auction"]["my_bid"] is None
    assert G.view(state, 1)["auction"]["bid_in"] == [2]
    state = play(state, (0, bid(0)), (3, bid(7)), (1, bid(7)))
    # A tie goes to the tied player first clockwise from the first buyer (seat 0): seat 1.
    assert state["articles"][1] == ["swords-1"] and state["money"][1] == 3
    lot = state["history"][-1]["lots"][0]
    assert lot["bids"] == [[0, 0], [1, 7], [2, 5], [3, 7]]


def test_sealed_tie_counts_from_the_first_buyer():
    state = play(fresh(4, ROW4, first=2, options={"auction": "sealed"}), (2, choose(1)))
    state = play(state, (0, bid(0)), (1, bid(7)), (2, bid(5)), (3, bid(7)))
    assert state["articles"][3] == ["swords-1"]  # clockwise from 2: 2, 3, 0, 1


def test_sealed_all_zero_discards():
    state = play(fresh(3, ROW4[:3], options={"auction": "sealed"}), (0, choose(0)))
    state = play(state, (0, bid(0)), (1, bid(0)), (2, bid(0)))
    assert state["discard"] == ["herbs-1"]


def test_sealed_player_who_cannot_pay_bids_nothing():
    state = fresh(3, ROW4[:3], options={"auction": "sealed"})
    state["money"][1] = 1
    state = play(state, (0, choose(1)))
    assert G.to_act(state) == [0, 2]


# --- special cards (Spec, A round, 3; Special cards) ---------------------------------------


def test_specials_order_holders_only():
    state = skip_to_specials(
        fresh(4, ROW4, first=2), specials={1: ["subsidy-1"], 3: ["subsidy-2", "subsidy-3"]}
    )
    assert state["step"] == "specials" and G.to_act(state) == [3]
    raises("fb.wait_specials", state, 1, DONE)
    raises("fb.expect_specials", state, 3, bid(1))
    state = play(state, (3, {"action": "play", "card": "subsidy-2"}))
    assert G.to_act(state) == [3]  # one at a time, until done
    state = play(state, (3, DONE))
    assert G.to_act(state) == [1]
    state = play(state, (1, {"action": "play", "card": "subsidy-1"}))
    # Seat 1 holds no more specials: the step moves on without a "done".
    assert state["step"] != "specials"


def test_subsidy():
    state = skip_to_specials(fresh(3, ROW4[:3]), specials={0: ["subsidy-1"]})
    raises("fb.no_target", state, 0, {"action": "play", "card": "subsidy-1", "target": 1})
    state = play(state, (0, {"action": "play", "card": "subsidy-1"}))
    assert state["money"][0] == 15
    assert "subsidy-1" in state["discard"] and state["specials"][0] == []
    custom = fresh(3, ROW4[:3], options={"specials": {"subsidy": {"amount": 8}}})
    custom = skip_to_specials(custom, specials={0: ["subsidy-1"]})
    assert play(custom, (0, {"action": "play", "card": "subsidy-1"}))["money"][0] == 18


def test_theft():
    state = skip_to_specials(
        fresh(3, ROW4[:3]),
        articles={1: ["horses-1", "herbs-2"], 2: ["herbs-1"]},
        specials={0: ["theft-1"]},
    )
    card = {"action": "play", "card": "theft-1"}
    raises("fb.target_needed", state, 0, card)
    raises("fb.target_self", state, 0, {**card, "target": 0, "article": "horses"})
    raises("fb.bad_target", state, 0, {**card, "target": 3, "article": "horses"})
    raises("fb.article_needed", state, 0, {**card, "target": 1})
    raises("fb.unknown_article", state, 0, {**card, "target": 1, "article": "gold"})
    raises("fb.target_lacks", state, 0, {**card, "target": 2, "article": "horses"})
    state = play(state, (0, {**card, "target": 1, "article": "horses"}))
    assert state["articles"][0] == ["horses-1"] and state["articles"][1] == ["herbs-2"]


def test_defaulting_and_defective_are_recorded():
    state = skip_to_specials(
        fresh(3, ROW4[:3]),
        articles={1: ["horses-1"], 2: ["herbs-1"]},
        specials={0: ["defaulting-1", "defective-1"]},
    )
    raises(
        "fb.no_article",
        state,
        0,
        {"action": "play", "card": "defaulting-1", "target": 1, "article": "horses"},
    )
    state = play(state, (0, {"action": "play", "card": "defaulting-1", "target": 1}))
    state = play(
        state, (0, {"action": "play", "card": "defective-1", "target": 2, "article": "herbs"})
    )
    assert state["effects"] == {"defaulting": [1], "defective": [[2, "herbs"]]}
    # Defective herbs are off the market: seat 2 has nothing to price this round.
    assert G.to_act(state) == [1]
    raises("fb.no_prices_needed", state, 2, prices(herbs=2))


def test_special_play_errors():
    state = skip_to_specials(fresh(3, ROW4[:3]), specials={0: ["subsidy-1"]})
    raises("fb.unknown_card", state, 0, {"action": "play", "card": "gold-1"})
    raises("fb.unknown_card", state, 0, {"action": "play", "card": ["subsidy-1"]})
    raises("fb.not_special", state, 0, {"action": "play", "card": "herbs-1"})
    raises("fb.not_held", state, 0, {"action": "play", "card": "subsidy-2"})
    raises("fb.unknown_field", state, 0, {"action": "play", "card": "subsidy-1", "x": 1})


def test_antitrust_auctions_the_monopoly():
    state = skip_to_specials(
        fresh(4, ROW4),
        articles={1: ["horses-1", "horses-2", "herbs-1"], 2: ["herbs-2"]},
        specials={0: ["antitrust-1", "subsidy-1"]},
    )
    card = {"action": "play", "card": "antitrust-1"}
    raises("fb.antitrust_target", state, 0, card)
    raises("fb.no_monopoly", state, 0, {**card, "target": 2})
    raises("fb.not_monopoly", state, 0, {**card, "target": 1, "article": "herbs"})
    # The article may be left out: seat 1 has a single monopoly (horses).
    state = play(state, (0, {**card, "target": 1}))
    assert state["articles"][1] == ["herbs-1"]
    auction = state["auction"]
    assert (auction["kind"], auction["mode"], auction["card"], auction["base"]) == (
        "antitrust",
        "open",
        "horses-1",
        5,
    )
    # Among the other players, starting left of the named player.
    assert auction["eligible"] == [2, 3, 0] and G.to_act(state) == [2]
    raises("fb.own_antitrust", state, 1, bid(5))
    state = play(state, (2, bid(5)), (3, PASS), (0, bid(6)), (2, PASS))
    assert state["articles"][0] == ["horses-1"]
    assert state["money"][0] == 4 and state["money"][1] == 16
    assert state["auction"]["card"] == "horses-2" and G.to_act(state) == [2]
    # Seat 0 holds 4 écus, under the base price of 5: it passes without being asked.
    state = play(state, (2, PASS), (3, PASS))
    assert "horses-2" in state["discard"]
    # Back to the specials step: seat 0 still holds a subsidy.
    assert state["step"] == "specials" and G.to_act(state) == [0]
    sales = state["history"][-1]["played"][0]["sales"]
    assert [(s["card"], s["winner"], s["price"]) for s in sales] == [
        ("horses-1", 0, 6),
        ("horses-2", None, None),
    ]
    ledger = state["history"][-1]["ledger"]
    assert {"what": "antitrust_sale", "amount": 6, "card": "horses-1"} in ledger[1]


def test_antitrust_winner_may_buy_several_and_won_lots_do_not_matter():
    state = skip_to_specials(
        fresh(3, ROW4[:3]), articles={1: ["herbs-1", "herbs-2"]}, specials={0: ["antitrust-1"]}
    )
    state["won"] = [0, 2]
    state = play(state, (0, {"action": "play", "card": "antitrust-1", "target": 1}))
    state = play(state, (2, bid(2)), (0, PASS), (2, bid(2)), (0, PASS))
    assert sorted(state["articles"][2]) == ["herbs-1", "herbs-2"]


def test_antitrust_names_the_article_of_several_monopolies():
    state = skip_to_specials(
        fresh(3, ROW4[:3]),
        articles={1: ["horses-1", "potions-1"]},
        specials={0: ["antitrust-1"]},
    )
    card = {"action": "play", "card": "antitrust-1", "target": 1}
    raises("fb.which_monopoly", state, 0, card)
    state = play(state, (0, {**card, "article": "potions"}))
    assert state["auction"]["card"] == "potions-1" and state["articles"][1] == ["horses-1"]


@pytest.mark.parametrize("mode", ["open", "sealed", "orders"])
def test_antitrust_names_another_player_only(mode):
    # Spec, Rulings: Antitrust names another player; one's own monopoly is no target, and
    # with no other player's monopoly in play the card has no effect.
    state = skip_to_specials(
        fresh(3, ROW4[:3], options={"auction": mode}),
        articles={0: ["horses-1"]},
        specials={0: ["antitrust-1"]},
    )
    if mode == "orders":
        raises(
            "fb.target_self",
            state,
            0,
            {"action": "specials", "plays": [{"card": "antitrust-1", "target": 0}]},
        )
        moves = G.legal_moves(state, 0)
        assert {"action": "specials", "plays": [{"card": "antitrust-1"}]} in moves
        return
    raises("fb.target_self", state, 0, {"action": "play", "card": "antitrust-1", "target": 0})
    assert G.legal_moves(state, 0) == [DONE, {"action": "play", "card": "antitrust-1"}]


def test_antitrust_without_monopoly_has_no_effect():
    state = skip_to_specials(
        fresh(3, ROW4[:3]),
        articles={1: ["horses-1"], 2: ["horses-2"]},
        specials={0: ["antitrust-1"]},
    )
    assert G.legal_moves(state, 0) == [DONE, {"action": "play", "card": "antitrust-1"}]
    state = play(state, (0, {"action": "play", "card": "antitrust-1"}))
    assert "antitrust-1" in state["discard"] and state["step"] == "pricing"
    assert state["articles"][1] == ["horses-1"]


# --- pricing (Spec, A round, 4) ------------------------------------------------------------


def _pricing_state():
    return skip_to_specials(
        fresh(3, ROW4[:3]), articles={0: ["herbs-1", "swords-1"], 1: ["herbs-2"], 2: []}
    )


def test_pricing_is_simultaneous_and_revisable():
    state = _pricing_state()
    assert state["step"] == "pricing" and G.to_act(state) == [0, 1]
    raises("fb.no_prices_needed", state, 2, prices(herbs=2))
    raises("fb.expect_pricing", state, 0, DONE)
    raises("fb.prices_not_object", state, 0, {"action": "prices", "prices": [2, 4]})
    raises("fb.price_missing", state, 0, prices(herbs=3))
    raises("fb.price_not_owned", state, 1, prices(herbs=3, swords=5))
    raises("fb.unknown_article", state, 1, prices(herbs=3, gold=5))
    raises("fb.price_range", state, 0, prices(herbs=1, swords=5))
    raises("fb.price_range", state, 0, prices(herbs=3, swords=9))
    raises("fb.price_not_int", state, 0, prices(herbs=3.0, swords=5))
    state = play(state, (0, prices(herbs=4, swords=8)))
    assert G.to_act(state) == [1]
    assert G.may_act(state, 0) and not G.may_act(state, 2)
    # Own prices are visible to self, to no one else.
    assert G.view(state, 0)["me"]["prices"] == {"herbs": 4, "swords": 8}
    assert G.view(state, 1)["me"]["prices"] is None
    assert G.view(state, 1)["pricing"]["set"] == [0]
    state = play(state, (0, prices(herbs=3, swords=8)))  # revised
    assert state["prices"][0] == {"herbs": 3, "swords": 8}
    state = play(state, (1, prices(herbs=4)))
    # The last player set: prices are revealed and income paid at once.
    record = state["history"][-2]
    assert record["prices"] == [{"herbs": 3, "swords": 8}, {"herbs": 4}, None]
    assert record["income"][0]["herbs"]["amount"] == 3 * 1 + 2
    assert record["income"][1]["herbs"]["amount"] == 0
    assert record["income"][0]["swords"]["amount"] == 8 + 2


def test_round_passes_first_buyer_left_and_articles_stay():
    state = _pricing_state()
    state = play(state, (0, prices(herbs=2, swords=4)), (1, prices(herbs=2)))
    assert state["round"] == 2 and state["first"] == 1
    assert state["articles"][0] == ["herbs-1", "swords-1"]
    assert len(state["history"]) == 2 and state["history"][-1]["first"] == 1


# --- end of game (Spec, End of game) -------------------------------------------------------


def _finish(state):
    while G.to_act(state):
        seat = G.to_act(state)[0]
        state = G.apply(state, seat, G.timeout_move(state, seat))
    return state


@pytest.mark.parametrize("n", [3, 7])
def test_game_ends_after_its_rounds(n):
    state = _finish(G.setup(n, None, 5))
    assert state["step"] == "over" and len(state["history"]) == state["rounds"]
    assert G.to_act(state) == [] and G.legal_moves(state, 0) == []
    raises("error.game_over", state, 0, PASS)


def test_outcome_scores_and_shared_ranks():
    state = _finish(G.setup(3, None, 5))
    assert G.outcome(G.setup(3, None, 5)) is None
    state["money"] = [12, 9, 3]
    state["articles"] = [["herbs-1"], ["horses-1"], ["potions-1", "herbs-2"]]
    state["specials"] = [["subsidy-1"], [], []]
    result = G.outcome(state)
    assert result.scores == [14, 14, 11]  # specials count nothing
    assert result.ranks == [1, 1, 3]
    players = result.breakdown["players"]
    assert players[2]["articles"]["potions"] == {"cards": 1, "base": 6, "value": 6}
    assert len(result.breakdown["rounds"]) == 10


# --- timeouts (Spec, Timeouts) -------------------------------------------------------------


def test_timeouts():
    state = fresh(4, ROW4)
    assert G.timeout_move(state, 0) == choose(0)
    with pytest.raises(IllegalMove):
        G.timeout_move(state, 1)
    state = play(state, (0, choose(1)))
    assert G.timeout_move(state, 0) == PASS
    sealed = play(fresh(4, ROW4, options={"auction": "sealed"}), (0, choose(1)))
    assert G.timeout_move(sealed, 2) == bid(0)
    specials = skip_to_specials(fresh(3, ROW4[:3]), specials={1: ["subsidy-1"]})
    assert G.timeout_move(specials, 1) == DONE
    pricing = _pricing_state()
    assert G.timeout_move(pricing, 0) == prices(herbs=2, swords=4)
    pricing["last_prices"][0] = {"herbs": 3, "horses": 9}
    assert G.timeout_move(pricing, 0) == prices(herbs=3, swords=4)


# --- what each player sees (Spec, What each player sees) -----------------------------------


def test_view_hides_specials_of_others():
    state = play(fresh(3, ["theft-2", "herbs-1", "swords-1"]), (0, choose(0)))
    assert "theft-2" not in json.dumps(G.view(state, 0))
    state = play(state, (0, bid(1)), (1, PASS), (2, PASS))
    assert G.view(state, 0)["me"]["specials"] == ["theft-2"]
    assert G.view(state, 0)["row"][0]["card"] == "theft-2"
    for seat in (None, 1, 2):
        view = G.view(state, seat)
        assert "theft-2" not in json.dumps(view)
        assert view["players"][0]["specials"] == 1


def test_unsold_special_never_shown():
    state = play(fresh(3, ["theft-2", "herbs-1", "swords-1"]), (0, choose(0)))
    state = play(state, (0, PASS), (1, PASS), (2, PASS))
    state = _finish(state)
    for seat in (None, 0, 1, 2):
        assert "theft-2" not in json.dumps(G.view(state, seat))
    assert "theft-2" not in json.dumps(G.outcome(state).breakdown)


def test_view_shows_the_auction():
    state = play(fresh(4, ROW4), (0, choose(2)), (0, bid(5)), (1, PASS))
    auction = G.view(state, 2)["auction"]
    assert auction["card"] == "horses-1" and auction["bid"] == 5 and auction["bidder"] == 0
    assert auction["still_in"] == [0, 2, 3] and auction["turn"] == 2
    assert auction["min_bid"] == 6 and G.view(state, 2)["me"]["bid_range"] == [6, 10]


def test_view_and_state_are_json_and_apply_does_not_mutate():
    state = play(fresh(4, ROW4), (0, choose(2)))
    before = json.dumps(state, sort_keys=True)
    G.apply(state, 0, bid(5))
    assert json.dumps(state, sort_keys=True) == before
    json.dumps(G.view(state, None))


# --- messages ------------------------------------------------------------------------------


def test_catalogues_match_and_cover_every_card():
    fb_keys = [k for k in VOCABULARY if k.startswith("fb.")]
    assert len(fb_keys) > 100
    assert [k for k in fb_keys if not translated(k, "fr")] == []
    for lang in ("en", "fr"):
        assert all(translated(f"card.{card}", lang) for card in ALL_CARD_IDS)
    # Card names in the catalogues are the names in the card data.
    for article in ARTICLES:
        assert card_name(f"{article.id}-3", "en") == article.en
        assert card_name(article.id, "fr") == article.fr
    for kind in SPECIAL_KINDS:
        assert card_name(f"{kind.id}-10", "fr") == kind.fr
        assert card_name(kind.id, "en") == kind.en
    assert card_name("herbs-3", "fr") == "Plantes médicinales"


def test_describe_hides_what_the_viewer_may_not_see():
    state = play(fresh(3, ["theft-2", "herbs-1", "swords-1"]), (0, choose(0)), (0, bid(1)))
    state = play(state, (1, PASS))
    own = G.describe(state, 2, PASS, 0)
    other = G.describe(state, 2, PASS, 1)
    assert any(m.key == "fb.log.won_special_own_1" for m in own)
    assert any(m.key == "fb.log.won_special_1" for m in other)
    assert "theft-2" not in json.dumps([m.to_json() for m in other])
    assert render(own[-1], "en") != render(other[-1], "en")
    pricing = _pricing_state()
    lines = G.describe(pricing, 0, prices(herbs=3, swords=5), 1)
    assert [m.key for m in lines] == ["fb.log.prices_set"]
    lines = G.describe(pricing, 0, prices(herbs=3, swords=5), 0)
    assert [m.key for m in lines][0] == "fb.log.prices_own"
    sealed = play(fresh(4, ROW4, options={"auction": "sealed"}), (0, choose(1)))
    assert [m.key for m in G.describe(sealed, 1, bid(6), 2)] == ["fb.log.sealed_bid"]
    assert G.describe(sealed, 1, bid(6), 1)[0].params["amount"] == 6


def test_junk_moves_raise_illegal_move():
    state = fresh(4, ROW4)
    for move in [
        None,
        3,
        "pass",
        [],
        {},
        {"action": 3},
        {"action": "fly"},
        {"action": ["x"]},
        {"action": "choose"},
        {"action": "choose", "slot": "1"},
        {"action": "choose", "slot": 1, "amount": 3},
    ]:
        with pytest.raises(IllegalMove):
            G.apply(state, 0, move)
    for seat in (None, -1, 4, "0", True):
        with pytest.raises(IllegalMove):
            G.apply(state, seat, choose(0))


def test_simultaneous_steps_keep_each_seats_form_valid():
    """A sealed bid or a price set by one seat does not make another seat's form stale."""
    game = GAMES["fantasy-business"]
    state = game.setup(4, {"auction": "sealed", "specials": "none"}, 5)
    while engine.step_name(state) != "sealed":
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, game.legal_moves(state, seat)[0])
    waiting = game.to_act(state)
    assert len(waiting) > 1
    tokens = {seat: game.turn_token(state, seat) for seat in waiting}
    state = game.apply(state, waiting[0], {"action": "bid", "amount": 0})
    for seat in waiting[1:]:
        assert game.turn_token(state, seat) == tokens[seat]
    # In a sequential step, any move makes the old form stale.
    before = game.turn_token(state, waiting[1])
    while engine.step_name(state) == "sealed":
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, {"action": "bid", "amount": 0})
    if game.to_act(state):
        assert game.turn_token(state, game.to_act(state)[0]) != before
