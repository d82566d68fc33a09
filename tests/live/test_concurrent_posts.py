"""Against a live gunicorn server: racing twin POSTs apply once; many writers never lock out."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from sqlmodel import func, select

from pbem.models import Game, Move, Outbox
from pbem.storage.db import read_session
from tests.live.server import Browser, gunicorn, make_games, server_env, turn_form, whose_turn

RACES = 200


def race(port: int, path: str, fields: dict[str, str]) -> list[int]:
    """POST the same form twice at the same moment, from two connections."""
    codes: list[int] = []
    barrier = threading.Barrier(2)
    browsers = [Browser(port), Browser(port)]

    def send(browser: Browser) -> None:
        barrier.wait()
        codes.append(browser.post(path, fields))

    pair = [threading.Thread(target=send, args=(b,)) for b in browsers]
    for thread in pair:
        thread.start()
    for thread in pair:
        thread.join()
    return codes


def test_twin_posts_apply_once_two_hundred_times(app: Any, tmp_path: Any) -> None:
    games = make_games(app, RACES // 30 + 1)
    outcomes: Counter[tuple[int, ...]] = Counter()
    with gunicorn(server_env(app, tmp_path), tmp_path / "gunicorn.log") as port:
        races = 0
        for game_id, seats in enumerate(games, start=1):
            while races < RACES and (turn := whose_turn(app, game_id)) is not None:
                status, page = Browser(port).get(seats[turn])
                assert status == 200
                fields = turn_form(page)
                codes = race(port, f"{seats[turn]}/move", fields)
                outcomes[tuple(sorted(codes))] += 1
                races += 1
    assert races == RACES
    assert outcomes == Counter({(303, 409): RACES})
    with read_session(app.extensions["pbem"]["engine"]) as session:
        twins = session.exec(
            select(Move.game_id, Move.ply, func.count()).group_by(Move.game_id, Move.ply)
        ).all()
        assert len(twins) == RACES and all(n == 1 for _, _, n in twins)
        for game in session.exec(select(Game)):
            played = session.exec(
                select(func.count()).select_from(Move).where(Move.game_id == game.id)
            ).one()
            turn_mails = session.exec(
                select(func.count())
                .select_from(Outbox)
                .where(Outbox.game_id == game.id, Outbox.event == "your_turn")
            ).one()
            assert game.ply == played
            # One "your move" mail at the start, then one per move that did not end the game.
            assert turn_mails == 1 + played - (game.status == "over")


def test_twenty_concurrent_writers_never_see_a_locked_database(app: Any, tmp_path: Any) -> None:
    games = make_games(app, 20)
    errors: list[str] = []
    log = tmp_path / "gunicorn.log"
    with gunicorn(server_env(app, tmp_path), log, workers=2, threads=10) as port:

        def player(game_id: int, seats: list[str]) -> None:
            browser = Browser(port)
            for _ in range(10):
                turn = whose_turn(app, game_id)
                if turn is None:
                    return
                status, page = browser.get(seats[turn])
                code = browser.post(f"{seats[turn]}/move", turn_form(page))
                if status != 200 or code != 303:
                    errors.append(f"game {game_id}: GET {status}, POST {code}")

        writers = [
            threading.Thread(target=player, args=(n, seats))
            for n, seats in enumerate(games, start=1)
        ]
        for thread in writers:
            thread.start()
        for thread in writers:
            thread.join()
    assert errors == []
    assert "locked" not in log.read_text()
    with read_session(app.extensions["pbem"]["engine"]) as session:
        assert session.exec(select(func.count()).select_from(Move)).one() == 20 * 10
