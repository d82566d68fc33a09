"""Sweeps run twice at once, killed halfway, or racing a move: everything happens once."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import pytest

from pbem.mailout import notify
from tests.clock.helpers import moves, new_game, parallel, run_sweep
from tests.web.helpers import deliver, form_with, hidden, radio_values

GAMES_COUNT = 5


def many_games(client: Any, app: Any, smtpd: Any) -> list[str]:
    """Several two-player games where the first seat moves first; the movers' links."""
    movers = []
    for n in range(GAMES_COUNT):
        players = [(f"A{n}", f"a{n}@example.org"), (f"B{n}", f"b{n}@example.org")]
        links = new_game(client, app, smtpd, players, **{"opt_colour-bazaar_first": "0"})
        movers.append(links[players[0][1]])
    smtpd.clear()
    return movers


def test_two_sweeps_at_once_send_each_reminder_once(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    many_games(client, app, smtpd)
    clock.advance(hours=24)
    results = parallel(lambda: run_sweep(app))
    assert not [r for r in results if isinstance(r, Exception)], results
    assert sum(r["reminders"] for r in results) == GAMES_COUNT
    deliver(app)
    assert Counter(str(m["To"]) for m in smtpd.messages) == Counter(
        f"A{n} <a{n}@example.org>" for n in range(GAMES_COUNT)
    )


def test_two_sweeps_at_once_apply_each_timeout_once(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    many_games(client, app, smtpd)
    clock.advance(days=3)
    results = parallel(lambda: run_sweep(app))
    assert not [r for r in results if isinstance(r, Exception)], results
    assert sum(r["timeouts"] for r in results) == GAMES_COUNT
    assert sorted(m.game_id for m in moves(app, "timeout")) == list(range(1, GAMES_COUNT + 1))
    assert all(m.ply == 0 for m in moves(app))


def test_a_sweep_killed_halfway_is_completed_by_the_next(
    client: Any, app: Any, smtpd: Any, clock: Any, monkeypatch: Any
) -> None:
    many_games(client, app, smtpd)
    clock.advance(days=3)
    real_queue = notify.queue
    calls = {"n": 0}

    def dies_on_the_third_game(*args: Any, **kwargs: Any) -> Any:
        if args[0].game.id == 3:
            raise KeyboardInterrupt("the clock process is killed")
        calls["n"] += 1
        return real_queue(*args, **kwargs)

    monkeypatch.setattr(notify, "queue", dies_on_the_third_game)
    monkeypatch.setattr("pbem.moves.queue", dies_on_the_third_game)
    with pytest.raises(KeyboardInterrupt):
        run_sweep(app)
    assert sorted(m.game_id for m in moves(app)) == [1, 2]  # game 3 was rolled back whole
    monkeypatch.setattr(notify, "queue", real_queue)
    monkeypatch.setattr("pbem.moves.queue", real_queue)
    assert run_sweep(app)["timeouts"] == GAMES_COUNT - 2
    assert sorted(m.game_id for m in moves(app)) == list(range(1, GAMES_COUNT + 1))
    assert run_sweep(app)["timeouts"] == 0


def test_a_move_and_a_timeout_racing_leave_one_move(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    movers = many_games(client, app, smtpd)
    forms = []
    for link in movers:
        form = form_with(client.get(link).get_data(as_text=True), "/move")
        data = hidden(form)
        data.update(
            play=radio_values(form, "play")[0], chip=radio_values(form, "chip")[0], confirm="1"
        )
        forms.append(data)
    # Stagger the deadlines a day apart, so that each race has its own moment.
    for n, link in enumerate(movers[1:], start=1):
        assert client.post(f"{link}/extend", data={"seat": "0", "days": str(n)}).status_code == 303
    clock.advance(days=2)
    for n, (link, data) in enumerate(zip(movers, forms, strict=True)):
        clock.advance(days=1)  # exactly at game n's deadline
        own = app.test_client()
        jobs = [
            lambda: own.post(f"{link}/move", data=data).status_code,  # noqa: B023
            lambda: run_sweep(app)["timeouts"],
        ]
        barrier = threading.Barrier(2)
        results: dict[int, Any] = {}

        def run(i: int, barrier: Any = barrier, results: Any = results) -> None:
            barrier.wait()
            results[i] = jobs[i]()  # noqa: B023

        threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        game_moves = [m for m in moves(app) if m.game_id == n + 1 and m.ply == 0]
        assert len(game_moves) == 1
        if game_moves[0].source == "web":
            assert results[0] == 303
        else:
            assert results[0] == 409 and game_moves[0].source == "timeout"
