"""Pairing: a round robin meets every pair once, a Swiss round avoids rematches when it can,
nobody sits twice in a round, and a blocked pair never sits together."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.leagues.pairing import (
    Pair,
    pairs_of,
    round_robin,
    swiss_pairs,
    swiss_tables,
    table_sizes,
)

sizes = st.integers(min_value=2, max_value=12)


@st.composite
def players_and_blocks(draw: st.DrawFn, most: int = 12) -> tuple[list[int], set[Pair]]:
    count = draw(st.integers(min_value=2, max_value=most))
    players = draw(st.permutations(range(100, 100 + count)))
    every = [frozenset(p) for p in combinations(players, 2)]
    blocked = set(draw(st.lists(st.sampled_from(every), max_size=3)))
    return list(players), blocked


def seated_once(tables: list[tuple[int, ...]]) -> bool:
    seated = [p for table in tables for p in table]
    return len(seated) == len(set(seated))


@given(players_and_blocks())
def test_a_two_player_round_robin_meets_every_pair_once_but_the_blocked(
    drawn: tuple[list[int], set[Pair]],
) -> None:
    players, blocked = drawn
    schedule = round_robin(players, 2, 0, blocked)
    met = Counter(frozenset(t) for r in schedule for t in r)
    every = {frozenset(p) for p in combinations(players, 2)}
    assert set(met) == every - blocked and set(met.values()) <= {1}
    assert all(seated_once(r) for r in schedule)
    # Each round, everyone plays but the one with the bye (odd counts) and blocked pairs.
    assert len(schedule) == len(players) - (len(players) % 2 == 0)


@given(players_and_blocks(), st.integers(min_value=3, max_value=5))
def test_round_robin_tables_seat_everyone_at_most_once_and_keep_blocks_apart(
    drawn: tuple[list[int], set[Pair]], size: int
) -> None:
    players, blocked = drawn
    schedule = round_robin(players, size, len(players) - 1, blocked, least=3)
    for tables in schedule:
        assert seated_once(tables)
        assert all(3 <= len(t) <= size for t in tables)
        assert not any(pairs_of(t) & blocked for t in tables)


def test_tables_of_several_spread_the_meetings_evenly() -> None:
    # 6 players at tables of 3, five rounds: 30 seated pairs over 15 pairs, each twice
    # would be perfect; the greedy has no pair meet more than three times or never.
    schedule = round_robin(list(range(6)), 3, 5, set(), least=3)
    met = Counter(p for r in schedule for t in r for p in pairs_of(t))
    assert len(met) == 15 and max(met.values()) <= 3
    assert [len(r) for r in schedule] == [2] * 5


def test_table_sizes_are_even_and_fit_the_game() -> None:
    assert table_sizes(7, 4, 3) == [4, 3]
    assert table_sizes(8, 3, 3) == [3, 3]  # two sit out
    assert table_sizes(9, 5, 3) == [5, 4]
    assert table_sizes(2, 3, 3) == []


def can_avoid_rematches(players: list[int], met: set[Pair], blocked: set[Pair]) -> bool:
    """By brute force: whether some bye and pairing meets nobody again and no blocked pair."""

    def pairs(rest: list[int]) -> bool:
        if not rest:
            return True
        first = rest[0]
        return any(
            frozenset((first, p)) not in met | blocked
            and pairs([q for q in rest if q not in (first, p)])
            for p in rest[1:]
        )

    if len(players) % 2 == 0:
        return pairs(players)
    return any(pairs([p for p in players if p != bye]) for bye in players)


@settings(max_examples=60)
@given(players_and_blocks(most=8), st.integers(min_value=1, max_value=5), st.randoms())
def test_swiss_rounds_never_repeat_a_pairing_when_avoidable_and_keep_blocks_apart(
    drawn: tuple[list[int], set[Pair]], rounds: int, rng: object
) -> None:
    players, blocked = drawn
    met: set[Pair] = set()
    byes: Counter[int] = Counter()
    score: Counter[int] = Counter()
    for _ in range(rounds):
        ranking = sorted(players, key=lambda p: -score[p])
        pairs, bye = swiss_pairs(ranking, met, blocked, byes)
        assert seated_once([*pairs, (bye,) if bye is not None else ()])
        assert not any(frozenset(t) in blocked for t in pairs)
        if any(frozenset(t) in met for t in pairs):
            assert not can_avoid_rematches(players, met, blocked)
        elif bye is None and len(players) % 2 == 0:
            assert len(pairs) * 2 == len(players) or not can_avoid_rematches(players, met, blocked)
        if bye is not None:
            byes[bye] += 1
            score[bye] += 1
        for a, b in pairs:
            met.add(frozenset((a, b)))
            score[rng.choice((a, b))] += 1  # type: ignore[attr-defined]


def test_the_swiss_bye_goes_to_the_lowest_ranked_without_one() -> None:
    ranking = [1, 2, 3, 4, 5]
    pairs, bye = swiss_pairs(ranking, set(), set(), Counter())
    assert bye == 5 and pairs == [(1, 2), (3, 4)]
    pairs, bye = swiss_pairs(ranking, set(), set(), Counter({5: 1}))
    assert bye == 4 and pairs == [(1, 2), (3, 5)]


def test_swiss_tables_of_several_group_by_score() -> None:
    tables = swiss_tables([6, 5, 4, 3, 2, 1], 3, 3, Counter(), set(), Counter())
    assert tables == [(6, 5, 4), (3, 2, 1)]
