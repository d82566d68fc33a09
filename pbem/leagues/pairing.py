"""Who plays whom in a league: round-robin schedules and Swiss rounds, for two-player games
and for tables of several players, never seating a blocked pair together. Pure: ids in,
tables out.

Tables of several players (Fantasy Business, Colour Bazaar with three) are filled greedily,
one table at a time: it starts with the first free player in the round's order, then takes
the free player who has met those already seated the fewest times (earlier in the order on
a tie) and sits with none of them blocked. A round robin's order is the players' order
turned by one each round; a Swiss round's order is by score, best first. A player who
fits no table sits the round out (a bye); the byes go first to those who had fewest.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

Pair = frozenset[int]
Table = tuple[int, ...]
SEARCH_LIMIT = 20_000  # steps a Swiss pairing tries before it allows a rematch


def pairs_of(table: Iterable[int]) -> set[Pair]:
    """Every pair of players sitting at `table`."""
    seated = list(table)
    return {frozenset((a, b)) for i, a in enumerate(seated) for b in seated[i + 1 :]}


def circle(players: Sequence[int]) -> list[list[Table]]:
    """The circle method: N-1 rounds (N even) or N rounds (N odd, one bye each round) in
    which every pair meets exactly once."""
    ring: list[int | None] = list(players)
    if len(ring) % 2:
        ring.append(None)  # whoever meets None has the bye
    count = len(ring)
    rounds: list[list[Table]] = []
    for _ in range(count - 1):
        games: list[Table] = []
        for i in range(count // 2):
            a, b = ring[i], ring[count - 1 - i]
            if a is not None and b is not None:
                games.append((a, b))
        rounds.append(games)
        ring = [ring[0], ring[-1], *ring[1:-1]]  # the first stays, the others turn
    return rounds


def round_robin(
    players: Sequence[int], table_size: int, rounds: int, blocked: set[Pair], least: int = 2
) -> list[list[Table]]:
    """The whole schedule of a round robin, round by round.

    Two-player games: the circle method, every pair once, a blocked pair's game left out.
    Tables of `table_size` (at least `least` players each): `rounds` rounds filled greedily
    as the module says."""
    if table_size == 2:
        return [[t for t in r if frozenset(t) not in blocked] for r in circle(players)]
    met: Counter[Pair] = Counter()
    byes: Counter[int] = Counter()
    schedule = []
    order = list(players)
    for _ in range(rounds):
        tables = seat_tables(order, table_size, least, met, blocked, byes)
        for table in tables:
            met.update(pairs_of(table))
        schedule.append(tables)
        order = order[1:] + order[:1]
    return schedule


def table_sizes(count: int, table_size: int, least: int) -> list[int]:
    """How many sit at each table when `count` players play at tables of at most
    `table_size` and at least `least`: as even as can be; [] when too few."""
    tables = -(-count // table_size)
    while tables and count // tables < least:
        tables -= 1
    if not tables:
        return []
    seated = min(count, tables * table_size)
    return [seated // tables + (i < seated % tables) for i in range(tables)]


def seat_tables(
    order: Sequence[int],
    table_size: int,
    least: int,
    met: Counter[Pair],
    blocked: set[Pair],
    byes: Counter[int],
) -> list[Table]:
    """One round's tables by the greedy fill of the module's docstring; `byes` counts the
    byes given (updated here)."""
    sizes = table_sizes(len(order), table_size, least)
    out = len(order) - sum(sizes)
    # Those with the fewest byes sit out first, the last in the order on a tie.
    sitting_out = set(sorted(reversed(order), key=lambda p: byes[p])[:out])
    free = [p for p in order if p not in sitting_out]
    tables = []
    for size in sizes:
        if not free:
            break
        table = [free.pop(0)]
        while len(table) < size:
            fits = [p for p in free if not any(frozenset((p, q)) in blocked for q in table)]
            if not fits:
                break
            best = min(
                fits, key=lambda p: (sum(met[frozenset((p, q))] for q in table), free.index(p))
            )
            table.append(best)
            free.remove(best)
        if len(table) >= least:
            tables.append(tuple(table))
        else:
            free.extend(table)  # too few fit with them: they wait for a later table
    for player in [*sitting_out, *free]:
        byes[player] += 1
    return tables


def swiss_pairs(
    ranking: Sequence[int], met: set[Pair], blocked: set[Pair], byes: Counter[int]
) -> tuple[list[Table], int | None]:
    """One Swiss round of two-player games: `ranking` is best first. Each player meets the
    nearest in the ranking they have not met, never a blocked one; with an odd count, the
    bye goes to the lowest ranked of those with fewest byes for whom the rest can be paired.
    A rematch only when no pairing without one exists."""
    players = list(ranking)
    candidates: list[int | None] = [None]
    if len(players) % 2:
        fewest = min(byes[p] for p in players)
        lowest_first = list(reversed(players))
        candidates = [p for p in lowest_first if byes[p] == fewest]
        candidates += [p for p in lowest_first if byes[p] != fewest]
    for allow_rematch in (False, True):
        for bye in candidates:
            rest = [p for p in players if p != bye]
            found = _match(rest, met, blocked, allow_rematch, [SEARCH_LIMIT])
            if found is not None:
                return found, bye
    # Blocks leave no way to pair everyone: pair whom the greedy can, the rest sit out.
    return _greedy(players, blocked), None


def _match(
    rest: list[int], met: set[Pair], blocked: set[Pair], rematch: bool, budget: list[int]
) -> list[Table] | None:
    """Pair `rest` in order, the first with the nearest that fits, backtracking; None when
    none fits (or the search ran out of its budget)."""
    if not rest:
        return []
    budget[0] -= 1
    if budget[0] < 0:
        return None
    first, others = rest[0], rest[1:]
    options = [p for p in others if frozenset((first, p)) not in blocked]
    if rematch:
        # Those not met first, each group nearest first.
        options.sort(key=lambda p: frozenset((first, p)) in met)
    else:
        options = [p for p in options if frozenset((first, p)) not in met]
    for other in options:
        found = _match([p for p in others if p != other], met, blocked, rematch, budget)
        if found is not None:
            return [(first, other), *found]
    return None


def _greedy(players: list[int], blocked: set[Pair]) -> list[Table]:
    """Pair each free player with the next free one not blocked with them."""
    free = list(players)
    pairs: list[Table] = []
    while free:
        first = free.pop(0)
        other = next((p for p in free if frozenset((first, p)) not in blocked), None)
        if other is not None:
            free.remove(other)
            pairs.append((first, other))
    return pairs


# One Swiss round of tables of several players: the greedy fill, in ranking order.
swiss_tables = seat_tables
