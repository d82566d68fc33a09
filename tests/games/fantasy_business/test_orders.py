"""Fantasy Business, the orders auction: one test (or a few) per rule of the spec's section
"Playing by mail: the orders auction", with sales worked out by hand."""

from __future__ import annotations

import json

import pytest

from pbem.games.fantasy_business import engine
from pbem.games.fantasy_business.orders import settle_card
from pbem.games.message import Message
from pbem.present.text import render, translated
from pbem.present.vocabulary import VOCABULARY
from tests.games.fantasy_business.helpers import G, play, raises, skip_to_specials

NAMES = ["Ana", "Léo", "Zoé", "Max"]
ORDERS = {"auction": "orders"}


def fresh(n=3, row=(), first=0, money=None, options=None, seed=1):
    """A new orders-mode game whose round 1 reveals `row`, with `first` the first buyer."""
    state = G.setup(n, {**ORDERS, **(options or {})}, seed)
    rest = [c for c in state["deck"] + state["row"] if c not in row]
    state.update(deck=list(row) + rest, history=[], step="reveal", first=first, events=[])
    if money is not None:
        state["money"] = list(money)
    engine.run(state)
    return state


def order(*slots):
    return {"action": "order", "order": list(slots)}


def limits(*amounts):
    return {"action": "limits", "limits": list(amounts)}


def plays(*entries):
    return {"action": "specials", "plays": list(entries)}


def lines(state, seat, move, viewer, lang="en"):
    return [render(m, lang, NAMES) for m in G.describe(state, seat, move, viewer)]


# --- the sale of one card, worked out by hand (Spec, Playing by mail, 4) -----------------


def test_two_bidders_second_highest_plus_one():
    # Swords, base 4: Ana 7, Léo 5. Ana wins at 5 + 1 = 6.
    assert settle_card(4, [(0, 7), (1, 5)], [10, 10]) == (0, 6)


def test_three_bidders():
    # Base 4: Ana 7, Léo 5, Zoé 9. Zoé wins; second highest 7, so 8.
    assert settle_card(4, [(0, 7), (1, 5), (2, 9)], [10, 10, 10]) == (2, 8)
    # The price never goes over the winner's own limit: 8 and 7 give 8, not 9 ... and 8/8 is
    # a tie, below.
    assert settle_card(4, [(0, 8), (1, 7), (2, 0)], [10, 10, 10]) == (0, 8)


def test_tie_goes_clockwise_from_the_first_buyer_at_that_limit():
    # The list is in tie-break order; Léo and Zoé both say 7: the first listed wins, at 7.
    assert settle_card(4, [(1, 7), (2, 7), (0, 5)], [10, 10, 10]) == (1, 7)
    assert settle_card(4, [(2, 7), (0, 5), (1, 7)], [10, 10, 10]) == (2, 7)


def test_limit_above_the_ecus_held_counts_as_the_ecus_held():
    # Ana says 9 but holds 6: she counts as 6. Léo 5: Ana wins at 6.
    assert settle_card(4, [(0, 9), (1, 5)], [6, 10]) == (0, 6)
    # Léo says 8 but holds 6, against Ana's 7: Ana wins at 6 + 1 = 7.
    assert settle_card(4, [(0, 7), (1, 8)], [10, 6]) == (0, 7)
    # Capped below the base price, a limit is no bid at all.
    assert settle_card(4, [(0, 9), (1, 5)], [3, 10]) == (1, 4)


def test_one_bidder_pays_the_base_price():
    assert settle_card(5, [(0, 9), (1, 0), (2, 3)], [10, 10, 10]) == (0, 5)


def test_nobody_bids():
    assert settle_card(5, [(0, 0), (1, 4)], [10, 10]) == (None, None)
    assert settle_card(5, [], []) == (None, None)


# --- a whole round's sale through the interface --------------------------------------------

ROW3 = ["swords-1", "horses-1", "herbs-1"]


def test_order_of_sale_by_the_first_buyer_only():
    state = fresh(3, ROW3, first=1)
    assert engine.step_name(state) == "order" and G.to_act(state) == [1]
    raises("fb.wait_order", state, 0, order(0, 1, 2))
    for bad in ([0, 1], [0, 0, 1], [0, 1, 3], "012", [0, 1, True]):
        with pytest.raises(Exception) as info:
            G.apply(state, 1, {"action": "order", "order": bad})
        assert info.value.msg.key in ("fb.order_not_list", "fb.order_not_permutation")
    state = play(state, (1, order(2, 0, 1)))
    # Spec, Playing by mail, 3: every player who may buy acts at once, seeing the order.
    assert engine.step_name(state) == "limits" and sorted(G.to_act(state)) == [0, 1, 2]
    assert G.view(state, 0)["history"][-1]["order"] == [2, 0, 1]


def test_timeout_order_is_the_rows_and_limits_are_zero():
    state = fresh(3, ROW3)
    assert G.timeout_move(state, 0) == order(0, 1, 2)
    state = play(state, (0, order(0, 1, 2)))
    assert G.timeout_move(state, 2) == limits(0, 0, 0)


def test_the_sale_worked_out_card_by_card():
    # Order: swords (base 4), horses (5), herbs (2); first buyer Ana (seat 0).
    state = play(fresh(3, ROW3), (0, order(0, 1, 2)))
    state = play(state, (0, limits(7, 6, 0)), (1, limits(5, 9, 3)))
    assert G.to_act(state) == [2]
    move = limits(0, 0, 4)
    seen = lines(state, 2, move, None)
    state = G.apply(state, 2, move)
    # Swords: Ana 7, Léo 5, Zoé -: Ana at 6. Horses: Ana has won; Léo 9, Zoé -: Léo at base 5.
    # Herbs: only Zoé is left, 4: she takes it at the base price, 2.
    # The sale is the server's, not Zoé's move: a line says so; each card says why.
    assert seen[1:6] == [
        "All limits are in. The sale, worked out by the server card by card in the order of sale:",
        "Swords (base 4): Ana 7, Léo 5, Zoé –. Ana wins at 6 écus.",
        "Highest limit: pays Léo's 5 + 1.",
        "Horses (base 5): Léo 9, Zoé –. Léo, the only bidder, wins at the base price.",
        "Medicinal herbs (base 2): Zoé 4. Zoé, the only bidder, wins at the base price.",
    ]
    assert state["money"] == [4, 5, 8]
    assert state["articles"] == [["swords-1"], ["horses-1"], ["herbs-1"]]
    lots = state["history"][-1]["lots"]
    assert [lot["bids"] for lot in lots] == [
        [[0, 7], [1, 5], [2, None]],
        [[1, 9], [2, None]],
        [[2, 4]],
    ]
    assert engine.step_name(state) == "pricing"


def test_describe_in_french():
    state = play(fresh(3, ROW3), (0, order(0, 1, 2)), (0, limits(7, 0, 0)), (1, limits(5, 0, 0)))
    seen = lines(state, 2, limits(0, 0, 0), None, "fr")
    # French typography: a no-break space before the colon.
    assert "Épées (base 4)\u00a0: Ana 7, Léo 5, Zoé –. Ana l'emporte à 6 écus." in seen
    assert (
        "Chevaux (base 5)\u00a0: Léo –, Zoé –. Personne n'enchérit\u00a0: la carte est défaussée."
        in seen
    )


def test_ineligible_after_winning_and_the_last_eligible_player():
    # Ana and Léo both want everything; Ana wins swords, Léo horses, Zoé is left for herbs.
    row = ["swords-1", "horses-1", "herbs-1"]
    state = play(fresh(3, row), (0, order(0, 1, 2)))
    state = play(state, (0, limits(8, 8, 8)), (1, limits(8, 8, 8)), (2, limits(0, 0, 2)))
    lots = state["history"][-1]["lots"]
    # Swords: tie at 8 goes to Ana (first buyer) at 8; horses: Léo alone (Ana out) at 5.
    assert [(lot["winner"], lot["price"]) for lot in lots] == [(0, 8), (1, 5), (2, 2)]


def test_nobody_bids_and_a_special_stays_unseen():
    row = ["swords-1", "subsidy-1", "herbs-1"]
    state = play(fresh(3, row), (0, order(1, 0, 2)))
    state = play(state, (0, limits(0, 0, 0)), (1, limits(0, 0, 0)), (2, limits(0, 0, 0)))
    assert state["discard"] == ["swords-1", "herbs-1"] and state["unseen"] == ["subsidy-1"]
    assert all(lot["winner"] is None for lot in state["history"][-1]["lots"])


def test_special_won_is_named_to_its_winner_only():
    row = ["swords-1", "subsidy-1", "herbs-1"]
    state = play(fresh(3, row), (0, order(1, 0, 2)), (0, limits(0, 3, 0)), (1, limits(0, 0, 0)))
    move = limits(0, 2, 0)
    mine = lines(state, 2, move, 0)
    theirs = lines(state, 2, move, 1) + lines(state, 2, move, None)
    assert "Face-down special card (base 1): Ana 3, Léo –, Zoé 2. Ana wins it at 3 écus." in mine
    assert any("Special subsidy" in line for line in mine)
    assert not any("Special subsidy" in line for line in theirs)


def test_limits_are_checked():
    state = play(fresh(3, ROW3, money=[10, 4, 10]), (0, order(0, 1, 2)))
    raises("fb.limits_not_list", state, 0, limits(5, 5))
    raises("fb.limits_not_list", state, 0, {"action": "limits", "limits": {"0": 5}})
    raises("fb.limit_not_int", state, 0, limits(5, 5.0, 0))
    raises("fb.limit_too_low", state, 0, limits(3, 0, 0))  # swords: base 4
    raises("fb.limit_too_high", state, 0, limits(11, 0, 0))
    # Léo holds 4: the horses (base 5) are out of his reach; swords at 4 is fine.
    raises("fb.limit_cannot_afford", state, 1, limits(0, 5, 0))
    state = play(state, (1, limits(4, 0, 2)))
    assert G.view(state, 1)["me"]["limit_ranges"] == [[4, 4], None, [2, 4]]


def test_a_player_who_can_buy_nothing_is_not_asked():
    state = play(fresh(3, ROW3, money=[10, 1, 10]), (0, order(0, 1, 2)))
    assert sorted(G.to_act(state)) == [0, 2] and not G.may_act(state, 1)
    raises("fb.no_limits_needed", state, 1, limits(0, 0, 0))


def test_limits_are_secret_and_revisable_until_the_last_is_in():
    state = play(fresh(3, ROW3), (0, order(0, 1, 2)), (0, limits(7, 0, 0)))
    token = G.turn_token(state, 1)
    # Ana may revise; Léo's form stays valid across Ana's moves.
    assert G.may_act(state, 0) and 0 not in G.to_act(state)
    state = play(state, (0, limits(9, 0, 0)))
    assert G.turn_token(state, 1) == token
    for viewer in (None, 1, 2):
        view = G.view(state, viewer)
        assert "limits" not in view.get("me", {}) or view["me"]["limits"] is None
        assert view["limits"] == {"seats": [0, 1, 2], "set": [0]}
        assert "9" not in json.dumps(view["me"]["limits"] if viewer is not None else None)
        assert lines(state, 0, limits(8, 0, 0), viewer) == ["Ana has set their limits."]
    assert G.view(state, 0)["me"]["limits"] == [9, 0, 0]
    assert lines(state, 0, limits(8, 0, 0), 0) == [
        "Ana changed their limits:",
        "Swords: up to 8 écus.",
        "Horses: no bid.",
        "Medicinal herbs: no bid.",
    ]
    state = play(state, (1, limits(5, 0, 0)), (2, limits(0, 0, 0)))
    # The revised limit is the one that counts: Ana 9, Léo 5: Ana at 6.
    assert state["history"][-1]["lots"][0]["price"] == 6


def test_a_row_of_one_card_needs_no_order():
    state = G.setup(3, ORDERS, 1)
    state.update(deck=["swords-1"], history=[], step="reveal", first=0, events=[])
    engine.run(state)
    assert engine.step_name(state) == "limits" and state["row"] == ["swords-1"]
    assert state["history"][-1]["order"] == [0]


# --- specials as simultaneous lists (Spec, Playing by mail, 5) ---------------------------------


def test_lists_are_simultaneous_secret_and_carried_out_clockwise():
    state = skip_to_specials(
        fresh(3, ROW3, first=1),
        articles={0: ["herbs-1"], 2: ["horses-1"]},
        specials={0: ["subsidy-1"], 1: ["defaulting-1", "subsidy-2"]},
    )
    assert engine.step_name(state) == "lists" and sorted(G.to_act(state)) == [0, 1]
    assert G.timeout_move(state, 0) == plays()
    state = play(state, (0, plays({"card": "subsidy-1"})))
    assert lines(state, 1, plays(), 2)[0] == "Léo has listed their special cards."
    assert G.view(state, 2)["lists"] == {"holders": [1, 0], "set": [0]}
    assert G.view(state, 0)["me"]["plays"] == [
        {"seat": 0, "card": "subsidy-1", "kind": "subsidy", "target": None, "article": None}
    ]
    move = plays({"card": "subsidy-2"}, {"card": "defaulting-1", "target": 2})
    assert lines(state, 1, move, 1)[:3] == [
        "Léo will play, in this order:",
        "1. Special subsidy",
        "2. Defaulting buyer, against Zoé",
    ]
    seen = lines(state, 1, move, None)
    state = G.apply(state, 1, move)
    # Clockwise from the first buyer (Léo), each list in its own order, then Ana's.
    assert [line for line in seen if "plays" in line] == [
        "Léo plays Special subsidy and takes 5 écus from the bank.",
        "Léo plays Defaulting buyer: Zoé receives no income this round.",
        "Ana plays Special subsidy and takes 5 écus from the bank.",
    ]
    assert state["effects"]["defaulting"] == [2] and engine.step_name(state) == "pricing"


def test_a_target_that_became_invalid_is_skipped_and_logged():
    # First buyer Ana (0). Ana steals Zoé's only horses; Léo's defective goods on Zoé's
    # horses then has no target; Léo's antitrust on Max's herbs monopoly stays valid only
    # until Ana's second theft breaks it, and Ana plays before Léo.
    state = skip_to_specials(
        fresh(4, ["swords-1", "horses-2", "herbs-3", "bows-1"], first=0),
        articles={2: ["horses-1"], 3: ["herbs-1", "herbs-2"]},
        specials={0: ["theft-1", "theft-2"], 1: ["defective-1", "antitrust-1"]},
    )
    state = play(
        state,
        (
            1,
            plays(
                {"card": "defective-1", "target": 2, "article": "horses"},
                {"card": "antitrust-1", "target": 3, "article": "herbs"},
            ),
        ),
    )
    move = plays(
        {"card": "theft-1", "target": 2, "article": "horses"},
        {"card": "theft-2", "target": 3, "article": "herbs"},
    )
    seen = lines(state, 0, move, None)
    state = G.apply(state, 0, move)
    assert [line for line in seen if line.startswith(("Ana plays", "Léo's"))] == [
        "Ana plays Theft and takes one Horses card from Zoé.",
        "Ana plays Theft and takes one Medicinal herbs card from Max.",
        "Léo's Defective goods, against Zoé's Horses, has no effect: they no longer hold any."
        " The card is discarded.",
        "Léo's Antitrust law, against Max's Medicinal herbs, has no effect: they are no longer"
        " its only owner. The card is discarded.",
    ]
    assert state["effects"]["defective"] == []
    assert state["articles"][0] == ["horses-1", "herbs-2"]
    assert {"defective-1", "antitrust-1"} <= set(state["discard"])
    assert state["specials"][1] == [] and engine.step_name(state) == "pricing"
    skipped = [p.get("skipped") for p in state["history"][-1]["played"]]
    assert skipped == [None, None, "no_article", "no_monopoly"]


def test_lists_are_checked_when_sent():
    state = skip_to_specials(
        fresh(3, ROW3), articles={2: ["horses-1"]}, specials={0: ["theft-1", "subsidy-1"]}
    )
    raises("fb.plays_not_list", state, 0, {"action": "specials", "plays": "theft-1"})
    raises("fb.plays_not_list", state, 0, plays({"target": 2}))
    raises("fb.play_twice", state, 0, plays({"card": "subsidy-1"}, {"card": "subsidy-1"}))
    raises("fb.target_lacks", state, 0, plays({"card": "theft-1", "target": 1, "article": "bows"}))
    raises("fb.not_held", state, 0, plays({"card": "theft-2", "target": 2, "article": "horses"}))
    raises("fb.unknown_field", state, 0, plays({"card": "subsidy-1", "why": 1}))
    raises("fb.no_specials_held", state, 1, plays())


# --- the Antitrust sale by limits (Spec, Playing by mail, 6, and Rulings) -----------------------


def _antitrust_state():
    # Léo (1) alone owns three horses (base 5); Ana (0) plays antitrust on them. Zoé (2)
    # won a card this round and may still bid: the sale is not one of the round's auctions.
    state = skip_to_specials(
        fresh(4, ["swords-1", "bows-2", "herbs-3", "armour-1"], first=0),
        articles={1: ["horses-1", "horses-2", "horses-3"], 2: ["bows-1"]},
        specials={0: ["antitrust-1"]},
        money={0: 10, 1: 10, 2: 12, 3: 7},
    )
    state["won"] = [2]
    return play(state, (0, plays({"card": "antitrust-1", "target": 1})))


def test_antitrust_sale_by_limits():
    state = _antitrust_state()
    assert engine.step_name(state) == "antitrust_limits"
    assert sorted(G.to_act(state)) == [0, 2, 3]
    raises("fb.own_antitrust", state, 1, {"action": "limit", "amount": 5})
    raises("fb.sealed_too_low", state, 2, {"action": "limit", "amount": 4})
    raises("fb.bid_too_high", state, 3, {"action": "limit", "amount": 8})
    state = play(
        state, (2, {"action": "limit", "amount": 7}), (3, {"action": "limit", "amount": 7})
    )
    assert lines(state, 0, {"action": "limit", "amount": 6}, 2)[0] == "Ana has set their limit."
    seen = lines(state, 0, {"action": "limit", "amount": 6}, None)
    state = G.apply(state, 0, {"action": "limit", "amount": 6})
    # Order from the left of Léo: Zoé, Max, Ana. Card 1: Zoé 7, Max 7 tie -> Zoé at 7 (12 -> 5).
    # Card 2: Zoé now counts as 5, Max 7, Ana 6: Max at 7 (7 -> 0). Card 3: Zoé 5, Max 0,
    # Ana 6: Ana at 6.
    assert [line for line in seen if line.startswith("Antitrust sale")] == [
        "Antitrust sale 1 of 3, Horses (base 5): Zoé 7, Max 7, Ana 6. Zoé buys it at 7 écus,"
        " paid to Léo.",
        "Antitrust sale 2 of 3, Horses (base 5): Zoé 7, Max 7, Ana 6. Max buys it at 7 écus,"
        " paid to Léo.",
        "Antitrust sale 3 of 3, Horses (base 5): Zoé 7, Max 7, Ana 6. Ana buys it at 6 écus,"
        " paid to Léo.",
    ]
    assert state["money"] == [4, 30, 5, 0]
    assert state["articles"][1] == [] and state["articles"][2] == ["bows-1", "horses-1"]
    assert engine.step_name(state) == "pricing"


def test_antitrust_limits_are_secret_until_the_sale():
    state = play(_antitrust_state(), (2, {"action": "limit", "amount": 9}))
    for viewer in (None, 0, 1, 3):
        view = G.view(state, viewer)
        assert view["auction"]["limit_in"] == [2]
        assert "my_limit" not in view["auction"] or view["auction"]["my_limit"] is None
    assert G.view(state, 2)["auction"]["my_limit"] == 9
    assert G.timeout_move(state, 3) == {"action": "limit", "amount": 0}


def test_antitrust_in_orders_mode_names_another_player_only():
    state = skip_to_specials(
        fresh(3, ROW3), articles={0: ["horses-1"]}, specials={0: ["antitrust-1"]}
    )
    raises("fb.target_self", state, 0, plays({"card": "antitrust-1", "target": 0}))
    state = play(state, (0, plays({"card": "antitrust-1"})))
    assert state["articles"][0] == ["horses-1"] and "antitrust-1" in state["discard"]


def test_describe_keys_exist_in_both_languages():
    keys = [k for k in VOCABULARY if k.startswith(("fb.log.sold", "fb.log.antitrust_sold"))]
    assert len(keys) >= 9 and all(translated(k, lang) for k in keys for lang in ("en", "fr"))
    assert render(
        Message(
            "fb.log.sold", {"card": "swords", "base": 4, "limits": [[0, 7]], "seat": 0, "price": 4}
        ),
        "en",
        NAMES,
    )


# --- why each card went where it went (issue 31: a round you can read) --------------------------


def test_a_tie_says_it_goes_first_clockwise_from_the_first_buyer():
    # Léo (1) is the first buyer: the order is Léo, Zoé, Ana. Ana and Léo both say 6 for the
    # swords: Léo, first clockwise from himself, wins at that limit, though Ana sits at seat 0.
    state = play(fresh(3, ROW3, first=1), (1, order(0, 1, 2)))
    state = play(state, (0, limits(6, 0, 0)), (1, limits(6, 0, 0)))
    seen = lines(state, 2, limits(0, 0, 0), None)
    state = G.apply(state, 2, limits(0, 0, 0))
    assert state["history"][-1]["lots"][0]["winner"] == 1
    at = seen.index("Swords (base 4): Léo 6, Zoé –, Ana 6. Léo wins at 6 écus.")
    assert seen[at + 1] == (
        "Tie at 6 with Ana: first clockwise from the first buyer, pays that limit."
    )


def test_an_antitrust_sale_says_whose_limit_counted_as_their_ecus():
    state = _antitrust_state()
    state = play(
        state, (2, {"action": "limit", "amount": 7}), (3, {"action": "limit", "amount": 7})
    )
    seen = lines(state, 0, {"action": "limit", "amount": 6}, None)
    # Card 1: Zoé and Max tie at 7, Zoé first from Léo's left. Card 2: Zoé, left with 5 écus,
    # counts as 5; Max wins, paying Ana's 6 + 1.
    first = seen.index(next(line for line in seen if line.startswith("Antitrust sale 1 of 3")))
    assert seen[first + 1] == "Tie at 7 with Max: first clockwise from Léo's left, pays that limit."
    second = seen.index(next(line for line in seen if line.startswith("Antitrust sale 2 of 3")))
    assert seen[second + 1 : second + 3] == [
        "Highest limit: pays Ana's 6 + 1.",
        "Zoé's limit counted as the 5 écus they still held.",
    ]
