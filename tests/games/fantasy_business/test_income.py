"""Fantasy Business income (Spec, A round, 5), worked out by hand, arithmetic in comments."""

from __future__ import annotations

from pbem.games.fantasy_business.income import settle_income
from tests.games.fantasy_business.helpers import PASS, G, bid, play, prices, skip_to_specials


def _amounts(result, article):
    return [per.get(article, {}).get("amount") for per in result]


def _reasons(result, article):
    return [per.get(article, {}).get("reason") for per in result]


def test_ties_at_lowest_and_highest():
    # Medicinal herbs (base 2). Seats 0 and 1 tie lowest at 3, seats 2 and 3 tie highest at 4.
    counts = [{"herbs": 1}, {"herbs": 2}, {"herbs": 1}, {"herbs": 1}]
    asked = [{"herbs": 3}, {"herbs": 3}, {"herbs": 4}, {"herbs": 4}]
    result = settle_income(counts, asked, [], [])
    # seat 0: 3 × 1 + 2 × 1 = 5; seat 1: 3 × 2 + 2 × 2 = 10; the highest get nothing.
    assert _amounts(result, "herbs") == [5, 10, 0, 0]
    assert _reasons(result, "herbs") == ["lowest", "lowest", "highest", "highest"]


def test_lowest_middle_highest():
    # Swords (base 4): seat 0 sells 2 at 5, seat 1 sells 1 at 6, seat 2 sells 3 at 8.
    counts = [{"swords": 2}, {"swords": 1}, {"swords": 3}]
    asked = [{"swords": 5}, {"swords": 6}, {"swords": 8}]
    result = settle_income(counts, asked, [], [])
    # seat 0 lowest: 5 × 2 + 2 × 2 = 14; seat 1 middle: 6 × 1 = 6; seat 2 highest: 0.
    assert _amounts(result, "swords") == [14, 6, 0]
    assert _reasons(result, "swords") == ["lowest", "middle", "highest"]


def test_all_equal_counts_as_lowest():
    # Horses (base 5), both owners at 5: both count as lowest.
    counts = [{"horses": 1}, {"horses": 2}, {}]
    asked = [{"horses": 5}, {"horses": 5}, None]
    result = settle_income(counts, asked, [], [])
    # seat 0: 5 × 1 + 2 × 1 = 7; seat 1: 5 × 2 + 2 × 2 = 14; seat 2 owns none.
    assert _amounts(result, "horses") == [7, 14, None]
    assert _reasons(result, "horses") == ["all_equal", "all_equal", None]


def test_monopoly_sells_at_the_price_set_plus_two():
    # Magic potions (base 6): seat 1 alone holds 4 and asks the maximum, 12.
    counts = [{}, {"potions": 4}, {}]
    asked = [None, {"potions": 12}, None]
    result = settle_income(counts, asked, [], [])
    # 12 × 4 + 2 × 4 = 56: a lone owner is "all equal", so lowest.
    assert result[1]["potions"] == {
        "cards": 4,
        "price": 12,
        "position": "all_equal",
        "reason": "all_equal",
        "owners": 1,
        "amount": 56,
    }


def test_defective_goods_left_out_of_the_comparison():
    # Spell scrolls (base 6): seat 0 one at 7, seat 1 two at 9 but defective, seat 2 one at 12.
    counts = [{"scrolls": 1}, {"scrolls": 2}, {"scrolls": 1}]
    asked = [{"scrolls": 7}, {}, {"scrolls": 12}]
    result = settle_income(counts, asked, [], [[1, "scrolls"]])
    # Compared: 7 and 12 only. seat 0: 7 × 1 + 2 = 9; seat 2 highest: 0; seat 1 off: 0.
    assert _amounts(result, "scrolls") == [9, 0, 0]
    assert _reasons(result, "scrolls") == ["lowest", "defective", "highest"]
    # Herbs: seat 0 at 4, seat 1's herbs defective. Seat 0 is now the only seller, so
    # "all equal": 4 × 1 + 2 × 1 = 6 (it would have been the highest, and got 0).
    counts = [{"herbs": 1}, {"herbs": 1}]
    result = settle_income(counts, [{"herbs": 4}, {}], [], [[1, "herbs"]])
    assert _amounts(result, "herbs") == [6, 0]
    assert result[0]["herbs"]["reason"] == "all_equal"


def test_defaulting_buyer_price_still_counts():
    # Bows and arrows (base 3): seat 0 at 3 (defaulting), seat 1 at 5, seat 2 at 6.
    counts = [{"bows": 1}, {"bows": 1}, {"bows": 1}]
    asked = [{"bows": 3}, {"bows": 5}, {"bows": 6}]
    result = settle_income(counts, asked, [0], [])
    # Seat 0 set the lowest price but gets nothing; seat 1 is only "middle": 5 × 1 = 5,
    # no bonus, because seat 0's 3 still counts as the lowest; seat 2 highest: 0.
    assert _amounts(result, "bows") == [0, 5, 0]
    assert _reasons(result, "bows") == ["defaulting", "middle", "highest"]
    assert result[0]["bows"]["position"] == "lowest"


def test_defaulting_and_defective_through_a_round():
    state = skip_to_specials(
        G.setup(3, {"auction": "open"}, 1),
        articles={0: ["swords-1"], 1: ["swords-2", "herbs-1"], 2: ["swords-3", "herbs-2"]},
        specials={0: ["defaulting-1", "defective-1"]},
    )
    state["first"] = 0
    state = play(
        state,
        (0, {"action": "play", "card": "defaulting-1", "target": 1}),
        (0, {"action": "play", "card": "defective-1", "target": 2, "article": "swords"}),
    )
    state = play(
        state,
        (0, prices(swords=8)),
        (1, prices(swords=4, herbs=4)),
        (2, prices(herbs=3)),
    )
    record = state["history"][-2]
    # Swords: seat 2's are defective, so 8 (seat 0) vs 4 (seat 1): seat 0 highest, 0;
    # seat 1 lowest, 4 + 2 = 6, but defaulting: 0.
    # Herbs: seat 1 at 4 (defaulting: 0), seat 2 at 3, lowest: 3 × 1 + 2 = 5.
    assert record["income"][0]["swords"]["amount"] == 0
    assert record["income"][1]["swords"]["reason"] == "defaulting"
    assert record["income"][2]["swords"]["reason"] == "defective"
    assert record["income"][2]["herbs"]["amount"] == 5
    assert state["money"] == [10, 10, 15]
    breakdown = G.outcome({**state, "step": "over"}).breakdown
    assert breakdown["rounds"][0]["players"][2]["income"]["herbs"]["reason"] == "lowest"
    assert breakdown["rounds"][0]["players"][2]["net"] == 5


def test_antitrust_proceeds_and_income():
    state = skip_to_specials(
        G.setup(4, {"auction": "open"}, 1),
        articles={1: ["horses-1", "horses-2", "herbs-1"], 2: ["herbs-2"]},
        specials={0: ["antitrust-1"]},
    )
    state = play(state, (0, {"action": "play", "card": "antitrust-1", "target": 1}))
    # Sold left of seat 1: 2, 3, 0. horses-1: seat 2 at 7; horses-2: seat 3 at the base, 5.
    state = play(state, (2, bid(7)), (3, PASS), (0, PASS))
    # Seat 2 has 3 écus left, under the base price of 5: out of the second sale.
    state = play(state, (3, bid(5)), (0, PASS))
    assert state["articles"][1] == ["herbs-1"]
    state = play(
        state,
        (1, prices(herbs=2)),
        (2, prices(herbs=4, horses=6)),
        (3, prices(horses=10)),
    )
    # Herbs: seat 1 lowest at 2: 2 + 2 = 4; seat 2 highest: 0.
    # Horses: seat 2 lowest at 6: 6 + 2 = 8; seat 3 highest: 0.
    # seat 0: 10; seat 1: 10 + 7 + 5 + 4 = 26; seat 2: 10 - 7 + 8 = 11; seat 3: 10 - 5 = 5.
    assert state["money"] == [10, 26, 11, 5]
    players = G.outcome({**state, "step": "over"}).breakdown["rounds"][0]["players"]
    assert players[1]["antitrust_proceeds"] == 12
    assert players[2]["paid_at_auction"] == 7 and players[3]["paid_at_auction"] == 5
    assert [p["net"] for p in players] == [0, 16, 1, -5]


def test_subsidy_and_auction_payments_in_the_breakdown():
    state = G.setup(3, {"auction": "open"}, 2)
    state.update(first=0)
    state = skip_to_specials(state, articles={0: ["herbs-1"]}, specials={0: ["subsidy-1"]})
    state = play(state, (0, {"action": "play", "card": "subsidy-1"}), (0, prices(herbs=4)))
    # Subsidy 5, then herbs alone at 4: 4 + 2 = 6. 10 + 5 + 6 = 21.
    assert state["money"][0] == 21
    players = G.outcome({**state, "step": "over"}).breakdown["rounds"][0]["players"]
    assert players[0]["subsidies"] == 5 and players[0]["net"] == 11
