"""Colour Bazaar scoring: market values, Crowns, shared ranks and whole tables worked by hand.

Cards used (rank: suits): Author 2 Mo/Kn, Desert 2 Su/Wy, Origin 2 Wa/Le, Journey 3 Mo/Wa,
Painter 3 Su/Kn, Savage 3 Le/Wy, Mountain 4 Mo/Su, Sailor 4 Wa/Le, Battle 4 Wy/Kn,
Forest 5 Mo/Le, Discovery 5 Su/Wa, Soldier 5 Wy/Kn, Lunatic 6 Mo/Wa, Penitent 6 Su/Wy,
Market 6 Le/Kn, Chance Meeting 7 Mo/Le, Castle 7 Su/Kn, Cave 7 Wa/Wy, Diplomat 8 Mo/Su,
Mill 8 Wa/Le, Betrayal 8 Wy/Kn, Pact 9 Mo/Su, Darkness 9 Wa/Wy, Merchant 9 Le/Kn.
Crowns: Huntress Mo, Bard Su, Sea Wa, End Le, Calamity Wy, Windfall Kn.
Markets are listed bottom first; each starts with its Pawn, which never scores.
"""

from __future__ import annotations

import pytest

from pbem.games.base import shared_ranks
from pbem.games.colour_bazaar import market_values, score, suit_values
from pbem.games.decktet import PAWNS, SUITS
from tests.games.helpers import GAME, table

WATCHMAN, BORDERLAND, HARVEST, LIGHT_KEEPER = PAWNS


def chips(moons=0, suns=0, waves=0, leaves=0, wyrms=0, knots=0) -> dict[str, int]:
    """A seat's chips, by suit."""
    return {
        "moons": moons,
        "suns": suns,
        "waves": waves,
        "leaves": leaves,
        "wyrms": wyrms,
        "knots": knots,
    }


def gave(entry: dict) -> tuple[int, str | None, str | None]:
    """A market value as (value, card that gave it, card a Crown copied)."""
    return entry["value"], entry["card"], entry["copied"]


# --- One market --------------------------------------------------------------------------


def test_the_card_of_a_suit_nearest_the_top_gives_its_rank():
    values = market_values([WATCHMAN, "soldier", "battle", "ace-knots", "castle"])
    assert gave(values["knots"]) == (7, "castle", None)
    assert gave(values["wyrms"]) == (4, "battle", None)  # the Soldier is covered
    assert gave(values["suns"]) == (7, "castle", None)
    assert gave(values["moons"]) == (0, None, None)  # only the Pawn has Moons


def test_a_crown_copies_the_highest_rank_of_its_suit_and_shows_the_copied_card():
    # Penitent 6 lies deeper than Desert 2: the Bard copies the highest, not the nearest.
    values = market_values([LIGHT_KEEPER, "penitent", "desert", "bard"])
    assert gave(values["suns"]) == (6, "bard", "penitent")
    assert gave(values["wyrms"]) == (2, "desert", None)


def test_a_crown_may_copy_an_ace():
    values = market_values([WATCHMAN, "ace-wyrms", "calamity"])
    assert gave(values["wyrms"]) == (1, "calamity", "ace-wyrms")


def test_a_crown_alone_in_its_suit_gives_nothing():
    values = market_values([BORDERLAND, "sea"])
    assert gave(values["waves"]) == (0, "sea", None)
    # A Crown does not copy Pawns or Courts of its suit either.
    values = market_values([LIGHT_KEEPER, "island", "sea"])
    assert gave(values["waves"]) == (0, "sea", None)


def test_a_crown_below_a_card_of_its_suit_gives_nothing():
    # The End would copy the Merchant's 9, but the Origin lies above it.
    values = market_values([HARVEST, "merchant", "end", "origin"])
    assert gave(values["leaves"]) == (2, "origin", None)
    assert gave(values["knots"]) == (9, "merchant", None)


def test_pawns_and_courts_are_ignored():
    assert all(gave(v) == (0, None, None) for v in market_values([WATCHMAN]).values())
    # The Rite (Mo/Le/Wy) on top is not the nearest Moons card: the Lunatic is.
    values = market_values([WATCHMAN, "consul", "lunatic", "rite"])
    assert gave(values["moons"]) == (6, "lunatic", None)
    assert gave(values["waves"]) == (6, "lunatic", None)
    for suit in ("suns", "leaves", "wyrms", "knots"):
        assert gave(values[suit]) == (0, None, None)


def test_aces_count_one():
    values = market_values([HARVEST, "mountain", "ace-moons"])
    assert gave(values["moons"]) == (1, "ace-moons", None)
    assert gave(values["suns"]) == (4, "mountain", None)


def test_suit_values_add_the_four_markets():
    markets = [
        [WATCHMAN, "author"],  # Mo 2, Kn 2
        [BORDERLAND, "savage", "penitent"],  # Le 3, Wy 6, Su 6
        [HARVEST, "forest"],  # Mo 5, Le 5
        [LIGHT_KEEPER, "ace-waves"],  # Wa 1
    ]
    assert suit_values(markets) == chips(moons=7, suns=6, waves=1, leaves=8, wyrms=6, knots=2)


# --- Ranks -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "scores, ranks",
    [
        ([139, 136], [1, 2]),
        ([75, 75], [1, 1]),
        ([58, 58, 49], [1, 1, 3]),
        ([44, 93, 93], [3, 1, 1]),
        ([10, 20, 15], [3, 1, 2]),
        ([7, 7, 7], [1, 1, 1]),
    ],
)
def test_ranks_are_shared_by_equal_scores_and_the_next_rank_is_skipped(scores, ranks):
    assert shared_ranks(scores) == ranks


# --- Whole tables, worked by hand --------------------------------------------------------
# Each example: markets, chips, then the expected suit values, totals, ranks, a few breakdown
# cards, and the French shortcut (drop the chips all hold in common, take the lowest suit
# value off every suit), which must rank the same.

EXAMPLES = {
    "plain numerals, two players": dict(
        markets=[
            [WATCHMAN, "soldier", "battle", "ace-knots", "castle"],  # Su 7, Wy 4, Kn 7
            [BORDERLAND, "mill", "origin", "forest"],  # Mo 5, Wa 2, Le 5
            [HARVEST, "pact", "discovery"],  # Mo 9, Su 5, Wa 5
            [LIGHT_KEEPER, "lunatic", "journey"],  # Mo 3, Wa 3
        ],
        # Mo 5+9+3=17, Su 7+5=12, Wa 2+5+3=10, Le 5, Wy 4, Kn 7
        values=chips(moons=17, suns=12, waves=10, leaves=5, wyrms=4, knots=7),
        chips=[
            chips(moons=3, suns=2, waves=2, leaves=3, wyrms=2, knots=3),
            chips(moons=2, suns=3, waves=3, leaves=2, wyrms=3, knots=2),
        ],
        # 3*17 + 2*12 + 2*10 + 3*5 + 2*4 + 3*7 = 51+24+20+15+8+21 = 139
        # 2*17 + 3*12 + 3*10 + 2*5 + 3*4 + 2*7 = 34+36+30+10+12+14 = 136
        totals=[139, 136],
        ranks=[1, 2],
        cards={(0, "wyrms"): "battle", (1, "moons"): "forest", (2, "waves"): "discovery"},
        # Common: 2 of each suit. Lowest value: Wyrms 4.
        # Reduced values Mo 13, Su 8, Wa 6, Le 1, Wy 0, Kn 3.
        # Seat 1 keeps Mo, Le, Kn: 13+1+3 = 17; seat 2 keeps Su, Wa, Wy: 8+6+0 = 14.
        common=chips(moons=2, suns=2, waves=2, leaves=2, wyrms=2, knots=2),
        lowest=(4, ["wyrms"]),
        reduced=[17, 14],
    ),
    "crowns, two players": dict(
        markets=[
            # Calamity copies the Betrayal's 8 (not the Ace right under it).
            [WATCHMAN, "savage", "betrayal", "ace-wyrms", "calamity"],  # Le 3, Wy 8, Kn 8
            [BORDERLAND, "sea"],  # the Sea alone: Wa 0
            [HARVEST, "merchant", "end", "origin"],  # Origin over the End: Le 2, Wa 2; Kn 9
            [LIGHT_KEEPER, "penitent", "desert", "bard"],  # Bard copies Penitent: Su 6; Wy 2
        ],
        # Mo 0, Su 6, Wa 0+2=2, Le 3+2=5, Wy 8+2=10, Kn 8+9=17
        values=chips(moons=0, suns=6, waves=2, leaves=5, wyrms=10, knots=17),
        chips=[
            chips(moons=5, waves=5, wyrms=5),
            chips(suns=5, leaves=5, knots=5),
        ],
        # 5*0 + 5*2 + 5*10 = 60; 5*6 + 5*5 + 5*17 = 30+25+85 = 140
        totals=[60, 140],
        ranks=[2, 1],
        cards={(0, "wyrms"): "calamity", (1, "waves"): "sea", (2, "leaves"): "origin"},
        # Nothing in common; the lowest value is Moons 0: the shortcut changes nothing.
        common=chips(),
        lowest=(0, ["moons"]),
        reduced=[60, 140],
    ),
    "a tie for first, three players": dict(
        markets=[
            [WATCHMAN, "ace-moons"],  # Mo 1
            [BORDERLAND, "cave", "darkness"],  # Wa 9, Wy 9
            [HARVEST, "chance-meeting", "forest"],  # Mo 5, Le 5
            [LIGHT_KEEPER, "painter", "ace-suns"],  # Su 1, Kn 3
        ],
        # Mo 1+5=6, Su 1, Wa 9, Le 5, Wy 9, Kn 3
        values=chips(moons=6, suns=1, waves=9, leaves=5, wyrms=9, knots=3),
        chips=[
            chips(moons=2, suns=2, waves=3, leaves=1, wyrms=1, knots=1),
            chips(moons=2, suns=2, waves=1, leaves=1, wyrms=3, knots=1),
            chips(moons=1, suns=1, waves=1, leaves=3, wyrms=1, knots=3),
        ],
        # 12+2+27+5+9+3 = 58; 12+2+9+5+27+3 = 58; 6+1+9+15+9+9 = 49
        totals=[58, 58, 49],
        ranks=[1, 1, 3],
        cards={(0, "moons"): "ace-moons", (2, "moons"): "forest", (3, "suns"): "ace-suns"},
        # Common: 1 of each. Lowest: Suns 1. Reduced values Mo 5, Su 0, Wa 8, Le 4, Wy 8, Kn 2.
        # Seat 1 keeps Mo, Su, Wa, Wa: 5+0+16 = 21; seat 2 Mo, Su, Wy, Wy: 21;
        # seat 3 Le, Le, Kn, Kn: 8+4 = 12.
        common=chips(moons=1, suns=1, waves=1, leaves=1, wyrms=1, knots=1),
        lowest=(1, ["suns"]),
        reduced=[21, 21, 12],
    ),
    "courts and crowns, three players": dict(
        markets=[
            [WATCHMAN, "consul", "lunatic", "rite"],  # Courts ignored: Mo 6, Wa 6
            [BORDERLAND, "island", "discovery", "window"],  # Su 5, Wa 5
            [HARVEST, "mountain", "diplomat", "huntress"],  # Huntress copies Diplomat: Mo 8; Su 8
            [LIGHT_KEEPER, "windfall", "merchant", "market", "ace-leaves"],  # Kn 6, Le 1
        ],
        # Mo 6+8=14, Su 5+8=13, Wa 6+5=11, Le 1, Wy 0, Kn 6
        values=chips(moons=14, suns=13, waves=11, leaves=1, wyrms=0, knots=6),
        chips=[
            chips(moons=4, suns=1, waves=1, leaves=2, wyrms=1, knots=1),
            chips(moons=1, suns=3, waves=3, leaves=1, wyrms=1, knots=1),
            chips(moons=0, suns=1, waves=1, leaves=2, wyrms=3, knots=3),
        ],
        # 56+13+11+2+0+6 = 88; 14+39+33+1+0+6 = 93; 0+13+11+2+0+18 = 44
        totals=[88, 93, 44],
        ranks=[2, 1, 3],
        cards={(0, "moons"): "lunatic", (2, "moons"): "huntress", (3, "knots"): "market"},
        # Common: Su, Wa, Le, Wy, Kn 1 each (worth 13+11+1+0+6 = 31). Lowest: Wyrms 0.
        # 88-31 = 57 (4 Mo + 1 Le), 93-31 = 62 (1 Mo + 2 Su + 2 Wa), 44-31 = 13 (Le + 2 Wy + 2 Kn)
        common=chips(suns=1, waves=1, leaves=1, wyrms=1, knots=1),
        lowest=(0, ["wyrms"]),
        reduced=[57, 62, 13],
    ),
    "an empty market and a tie, two players": dict(
        markets=[
            [WATCHMAN, "author"],  # Mo 2, Kn 2
            [BORDERLAND, "savage", "penitent"],  # Le 3, Wy 6, Su 6
            [HARVEST, "forest"],  # Mo 5, Le 5
            [LIGHT_KEEPER, "ace-waves"],  # Wa 1
        ],
        # Mo 7, Su 6, Wa 1, Le 8, Wy 6, Kn 2
        values=chips(moons=7, suns=6, waves=1, leaves=8, wyrms=6, knots=2),
        chips=[
            chips(moons=2, suns=3, waves=3, leaves=3, wyrms=2, knots=2),
            chips(moons=3, suns=2, waves=2, leaves=2, wyrms=3, knots=3),
        ],
        # 14+18+3+24+12+4 = 75; 21+12+2+16+18+6 = 75
        totals=[75, 75],
        ranks=[1, 1],
        cards={(0, "knots"): "author", (1, "suns"): "penitent", (3, "waves"): "ace-waves"},
        # Common: 2 of each. Lowest: Waves 1. Reduced values Mo 6, Su 5, Wa 0, Le 7, Wy 5, Kn 1.
        # Seat 1 keeps Su, Wa, Le: 5+0+7 = 12; seat 2 keeps Mo, Wy, Kn: 6+5+1 = 12.
        common=chips(moons=2, suns=2, waves=2, leaves=2, wyrms=2, knots=2),
        lowest=(1, ["waves"]),
        reduced=[12, 12],
    ),
}


@pytest.mark.parametrize("example", EXAMPLES.values(), ids=list(EXAMPLES))
def test_whole_table_scores_as_worked_by_hand(example):
    outcome = score(example["markets"], example["chips"])
    breakdown = outcome.breakdown
    assert breakdown["suit_values"] == example["values"]
    assert outcome.scores == example["totals"] == breakdown["totals"]
    assert outcome.ranks == example["ranks"]
    assert outcome.winners() == [s for s, r in enumerate(example["ranks"]) if r == 1]
    for (market, suit), card in example["cards"].items():
        assert breakdown["markets"][market][suit]["card"] == card
    for seat, held in enumerate(example["chips"]):
        assert breakdown["lines"][seat] == {s: held[s] * example["values"][s] for s in SUITS}
    # Each suit's five chips share out its value: the table holds 5 * (sum of values).
    assert sum(outcome.scores) == 5 * sum(example["values"].values())


@pytest.mark.parametrize("example", EXAMPLES.values(), ids=list(EXAMPLES))
def test_french_shortcuts_give_the_same_ranking(example):
    shortcut = score(example["markets"], example["chips"]).breakdown["shortcut"]
    low, low_suits = example["lowest"]
    assert shortcut["common"] == example["common"]
    assert (shortcut["lowest_value"], shortcut["lowest_suits"]) == (low, low_suits)
    assert shortcut["values"] == {s: v - low for s, v in example["values"].items()}
    assert shortcut["chips"] == [
        {s: held[s] - example["common"][s] for s in SUITS} for held in example["chips"]
    ]
    assert shortcut["totals"] == example["reduced"]
    assert shortcut["ranks"] == example["ranks"]
    # The shortcut takes the same amount off every seat.
    pairs = zip(example["totals"], example["reduced"], strict=True)
    assert len({full - reduced for full, reduced in pairs}) == 1


@pytest.mark.parametrize("example", EXAMPLES.values(), ids=list(EXAMPLES))
def test_a_finished_game_reports_the_same_outcome(example):
    n = len(example["chips"])
    state = table([[] for _ in range(n)], [m[1:] for m in example["markets"]], courts=True)
    state["chips"] = example["chips"]
    state["chips_left"] = chips()
    assert GAME.outcome(state) is None  # the game is not marked over yet
    state["over"] = True
    outcome = GAME.outcome(state)
    assert outcome.scores == example["totals"] and outcome.ranks == example["ranks"]
