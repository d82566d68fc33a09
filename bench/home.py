"""What a player's finished games cost the pages that look at all of their games.

A player with F finished Fantasy Business games (each holding the state of a game played to
its last move, 26 KB) and 2 under way, in a fresh SQLite database. Timed in process, CPU per
call: home.next_game (the "next game where it is your move" link of every page after a
move) and home.my_games (the /me page's lists), beside the bare floor of one read of the
player's row by its key in the same kind of read transaction. Printed for F = 0, 10, 30, so
that the growth per finished game shows; nothing is asserted.

    python bench/home.py
    python bench/home.py --finished 0 100 --calls 100
"""

# ruff: noqa: E402
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

import argparse
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy import text

from bench.throughput import make_page_games, make_site
from pbem.models import Player
from pbem.play import Invitee, create_game, join
from pbem.players import home
from pbem.storage.db import make_engine, migrate, read_session, write_session

UNDER_WAY = 2


def per_call(work: Callable[[], object], calls: int) -> float:
    """CPU milliseconds per call, after a tenth as many calls untimed."""
    for _ in range(max(1, calls // 10)):
        work()
    start = time.thread_time()
    for _ in range(calls):
        work()
    return (time.thread_time() - start) / calls * 1000


def measure(finished: int, calls: int) -> tuple[float, float, float]:
    """(bare read, next_game, my_games) in ms per call for a player with `finished` games."""
    scratch = Path(tempfile.mkdtemp(prefix="pbem-bench-home-"))
    url = f"sqlite:///{scratch / 'home.sqlite3'}"
    migrate(url)
    site = make_site(5000)
    long_game = make_page_games(url, site, seed=7)  # its second game is played to the end
    assert long_game.plies > 0
    engine = make_engine(url)
    now = datetime.now(UTC)
    people = [Invitee(f"P{i}", f"p{i}@bench.example") for i in range(4)]
    with write_session(engine) as session:
        for seed in range(finished + UNDER_WAY):
            game = create_game(session, site, "fantasy-business", people, {}, now, seed=seed)
            assert game.id is not None
            for seat in (1, 2, 3):
                join(session, site, game.id, seat, now)
    with engine.begin() as conn:
        # Every game of the player holds the long game's state; all but two are over.
        conn.execute(text("UPDATE game SET state = (SELECT state FROM game WHERE id = 2)"))
        conn.execute(
            text("UPDATE game SET status = 'over' WHERE id > 2 AND id <= :last"),
            {"last": 2 + finished},
        )
        player_id = conn.execute(
            text("SELECT id FROM player WHERE email = 'p1@bench.example'")
        ).scalar_one()

    def bare() -> object:
        with read_session(engine) as session:
            return session.get(Player, player_id)

    def next_game() -> object:
        with read_session(engine) as session:
            return home.next_game(session, site, player_id, now)

    def my_games() -> object:
        with read_session(engine) as session:
            player = session.get(Player, player_id)
            assert player is not None
            return home.my_games(session, site, player, now)

    try:
        return per_call(bare, calls), per_call(next_game, calls), per_call(my_games, calls)
    finally:
        engine.dispose()


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--finished", type=int, nargs="+", default=[0, 10, 30])
    parser.add_argument("--calls", type=int, default=200, help="timed calls of each")
    args = parser.parse_args()
    print(f"a player with N finished games and {UNDER_WAY} under way; CPU ms per call")
    print(f"{'finished':>8} {'bare read':>10} {'next_game':>10} {'my_games':>10}  ratios to bare")
    for finished in args.finished:
        bare, nxt, mine = measure(finished, args.calls)
        ratios = f"{nxt / bare:.1f}, {mine / bare:.1f}"
        print(f"{finished:>8} {bare:>10.2f} {nxt:>10.2f} {mine:>10.2f}  {ratios}")


if __name__ == "__main__":
    main()
