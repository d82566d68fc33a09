"""The web line as the Procfile runs it, live: gunicorn's two workers each count into their
own file of PROMETHEUS_MULTIPROC_DIR, and /metrics, whichever worker answers it, adds up
every worker's."""

from __future__ import annotations

import http.client
import os
import threading
from pathlib import Path
from typing import Any

from prometheus_client.multiprocess import MultiProcessCollector
from sqlmodel import func, select

from pbem.devservers import HOST, free_port
from pbem.models import Move
from pbem.storage.db import read_session
from tests.live import servers
from tests.live.server import (
    ROOT,
    Browser,
    make_games,
    procfile_options,
    server_env,
    turn_form,
    whose_turn,
)
from tests.watch.helpers import BEARER, TOKEN, Series

GAMES = 8


def page_moves_by_worker(folder: Path) -> list[float]:
    """The page moves each worker's file counts."""
    counted = []
    for path in sorted(folder.glob("counter_*.db")):
        (family,) = (f for f in MultiProcessCollector.merge([str(path)]) if f.name == "pbem_moves")
        counted.append(sum(s.value for s in family.samples if s.labels["source"] == "page"))
    return counted


def scrape(port: int) -> Series:
    """GET /metrics with the token."""
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    conn.request("GET", "/metrics", headers=BEARER)
    answer = conn.getresponse()
    text = answer.read().decode()
    conn.close()
    assert answer.status == 200, text
    return Series(text)


def play_a_round(port: int, games: list[list[str]], app: Any) -> int:
    """The player to act in each game moves, all at once, each on a connection of their own
    (so both workers take some); the moves made."""
    barrier = threading.Barrier(len(games))
    codes: list[int] = []

    def player(game_id: int, seats: list[str]) -> None:
        turn = whose_turn(app, game_id)
        browser = Browser(port)
        status, page = browser.get(seats[turn or 0])
        barrier.wait()
        codes.append(browser.post(f"{seats[turn or 0]}/move", turn_form(page)))

    threads = [threading.Thread(target=player, args=(n, s)) for n, s in enumerate(games, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert codes == [303] * len(games), codes
    return len(codes)


def test_metrics_adds_up_every_gunicorn_worker(app: Any, tmp_path: Path) -> None:
    games = make_games(app, GAMES)
    folder = tmp_path / "prometheus"
    env = {
        **os.environ,
        **server_env(app, tmp_path),
        "PBEM_METRICS_TOKEN": TOKEN,
        "PROMETHEUS_MULTIPROC_DIR": str(folder),
    }
    options = procfile_options()
    assert options[:2] == ["--config", "python:pbem.watch.gunicorn_conf"]
    assert "--workers" in options and options[options.index("--workers") + 1] == "2"
    port, log = free_port(), tmp_path / "gunicorn.log"
    with servers.gunicorn("pbem:create_app()", port, env, options, log, ROOT, probe="/healthz"):
        made = 0
        for _ in range(5):  # a round almost always reaches both workers; five, surely
            made += play_a_round(port, games, app)
            if sum(1 for n in page_moves_by_worker(folder) if n) == 2:
                break
        by_worker = page_moves_by_worker(folder)
        assert len(by_worker) == 2 and all(by_worker), by_worker
        assert sum(by_worker) == made
        with read_session(app.extensions["pbem"]["engine"]) as session:
            assert session.exec(select(func.count()).select_from(Move)).one() == made
        # Each scrape, whichever worker answers it, is the sum of both.
        for _ in range(6):
            series = scrape(port)
            assert series.value("pbem_moves_total", source="page", process="web") == made
            assert series.value("pbem_games_active", game="colour-bazaar") == GAMES
    # gunicorn emptied the folder it was given at its start; it leaves it to its owner.
    assert folder.is_dir()
