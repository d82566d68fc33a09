"""PostgreSQL restarted during a run: the next request succeeds, no move is half-applied."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlmodel import func, select

from pbem.devservers import Postgres, pg_bin
from pbem.models import Game, Move
from pbem.play import replay_problem
from pbem.storage.db import migrate, read_session
from tests.settings import PG_URL
from tests.web.helpers import first_mover, form_with, hidden, radio_values


@pytest.fixture
def server() -> Iterator[Postgres]:
    """A PostgreSQL server of this test's own, to restart: restarting the one the other
    tests share would cut their connections too (CI runs the suite on several workers)."""
    bin_dir = pg_bin()
    if not PG_URL or bin_dir is None:
        pytest.skip("needs PostgreSQL (the PostgreSQL pass of .ci/run)")
    server = Postgres(bin_dir, "-c fsync=off")
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
def database_url(server: Postgres) -> str:
    """The app's database, migrated, on the server the test restarts."""
    url = server.create_database("pbem_restart")
    migrate(url)
    return url


def restart_postgres(server: Postgres) -> None:
    """Restart the test's server (a fast shutdown: open transactions are cut)."""
    subprocess.run(server.restart_command(), check=True, capture_output=True, timeout=120)


def consistent(app: Any) -> None:
    """The stored game is exactly its move log replayed: no half-applied move."""
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, 1)
        assert game is not None
        count = session.exec(select(func.count()).select_from(Move)).one()
        assert game.ply == count
        assert replay_problem(session, game) is None


def next_move(client: Any, link: str) -> dict[str, str]:
    form = form_with(client.get(link).get_data(as_text=True), "/move")
    data = hidden(form)
    data.update(play=radio_values(form, "play")[0], chip=radio_values(form, "chip")[0], confirm="1")
    return data


def test_postgres_restart_loses_no_move_and_halves_none(
    client: Any, app: Any, smtpd: Any, server: Postgres
) -> None:
    link, data, links = first_mover(client, app, smtpd)
    assert client.post(f"{link}/move", data=data).status_code == 303
    restart_postgres(server)
    # The pool's connections died with the server; the next requests still succeed.
    seat_links = list(links.values())
    for _ in range(3):
        with read_session(app.extensions["pbem"]["engine"]) as session:
            turn = session.get(Game, 1).state["turn"]
        mover = seat_links[turn]
        racing: dict[str, int] = {}
        move = next_move(client, mover)
        poster = threading.Thread(
            target=lambda m=mover, d=move, r=racing: r.update(
                code=client.post(f"{m}/move", data=d).status_code
            )
        )
        poster.start()
        restart_postgres(server)
        poster.join(60)
        assert racing["code"] in (303, 409, 503)  # applied, or cleanly refused: never a 500
        for _ in range(50):  # the server is back within seconds
            if client.get(mover).status_code == 200:
                break
            time.sleep(0.2)
        consistent(app)
    assert client.get(link).status_code == 200
