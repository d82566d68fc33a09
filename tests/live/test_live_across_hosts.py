"""A move made on one web host reaches a page streamed from another (issue 47): two gunicorn
web hosts on one PostgreSQL (through PgBouncer in transaction mode where Debian's pgbouncer
is installed), two `pbem live` processes LISTENing straight to PostgreSQL. A move posted to
one web host, and talk posted to the other, reach a seat's stream on one live process and
a spectator's on the other, each with its new version. A LISTEN connection cut by the
server is made again, and the move made meanwhile still arrives. `pbem live` pointed at the
pooler refuses to start, and says why."""

from __future__ import annotations

import http.client
import json
import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlmodel import select

from pbem.devservers import HOST, PgBouncer, free_port, pgbouncer_bin, serves
from pbem.live.watch import APPLICATION
from pbem.models import Game, Seat
from pbem.play import Invitee, create_game, join
from pbem.storage.db import read_session, write_session
from tests.live.hosts import PBEM, Host, wait_until
from tests.live.server import Browser, procfile_options, turn_form
from tests.live.sse import Stream
from tests.settings import PG_URL, process_env

_CSRF = re.compile(r'name="csrf" value="([^"]+)"')


@pytest.fixture
def pooled(database_url: str) -> Iterator[str | None]:
    """A throwaway PgBouncer in transaction mode in front of the test server, when Debian's
    pgbouncer is installed: its URL (None without it)."""
    if not PG_URL:
        pytest.skip("PostgreSQL only (PBEM_TEST_DATABASE_URL): LISTEN/NOTIFY across hosts")
    program = pgbouncer_bin()
    if program is None:
        yield None
        return
    server = make_url(PG_URL)
    assert server.port is not None and server.database is not None
    bouncer = PgBouncer(program, server.port, pool_size=6)
    bouncer.start()
    try:
        yield bouncer.url(server.database)
    finally:
        bouncer.stop()


def healthy(port: int) -> bool:
    """Whether a `pbem live` on `port` LISTENs now (its /live/healthz says so)."""
    if not serves(port, "/live/healthz"):
        return False
    conn = http.client.HTTPConnection(HOST, port, timeout=5)
    conn.request("GET", "/live/healthz")
    answer = json.loads(conn.getresponse().read())
    conn.close()
    return bool(answer["listening"])


def a_game(app: Any) -> tuple[int, list[str], str]:
    """Ana against Léo, started: its id, the seats' paths and the spectators' path."""
    ext = app.extensions["pbem"]
    now = app.config["CLOCK"]()
    people = [Invitee("Ana", "ana@example.org"), Invitee("Léo", "leo@example.org")]
    with write_session(ext["engine"]) as session:
        game = create_game(session, ext["site"], "colour-bazaar", people, {}, now, seed=4700)
        join(session, ext["site"], game.id, 1, now)
        seats = session.exec(select(Seat).where(Seat.game_id == game.id).order_by(Seat.seat))
        paths = [ext["site"].seat_url(s).split("pbem.test")[1] for s in seats]
        return game.id, paths, ext["site"].watch_url(game).split("pbem.test")[1]


def whose_turn(app: Any, game_id: int) -> int:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.state is not None
        return int(game.state["turn"])


def move_through(port: int, path: str) -> None:
    """The seat's player moves on the web host at `port`, as its page's form does."""
    browser = Browser(port)
    status, page = browser.get(path)
    assert status == 200
    assert browser.post(f"{path}/move", turn_form(page)) == 303


def talk_through(port: int, path: str, words: str) -> None:
    """The seat's player says something to the table on the web host at `port`."""
    browser = Browser(port)
    status, page = browser.get(path)
    found = _CSRF.search(page)
    assert status == 200 and found is not None
    fields = {"csrf": found.group(1), "text": words, "to": "all"}
    assert browser.post(f"{path}/talk", fields) == 303


def test_a_move_on_one_host_reaches_a_stream_served_by_another(
    app: Any, tmp_path: Path, pooled: str | None
) -> None:
    web_ports, live_ports = [free_port(), free_port()], [free_port(), free_port()]
    settings = process_env(
        app,
        DATABASE_URL=pooled or PG_URL,
        DATABASE_POOLER="transaction" if pooled else "none",
        LIVE_DATABASE_URL=PG_URL,  # LISTEN goes straight to PostgreSQL
        DATABASE_POOL_SIZE=2,
    )
    env = {**os.environ, **settings, "PYTHONUNBUFFERED": "1"}
    gunicorn = [sys.executable, "-m", "gunicorn", *procfile_options()]
    webs = [
        Host(f"web{n}", [*gunicorn, "--bind", f"{HOST}:{port}", "pbem:create_app()"], env, tmp_path)
        for n, port in enumerate(web_ports)
    ]
    lives = [
        Host(f"live{n}", [*PBEM, "live", "--host", HOST, "--port", str(port)], env, tmp_path)
        for n, port in enumerate(live_ports)
    ]
    hosts = [*webs, *lives]
    try:
        for host in hosts:
            host.start()
        for port, web in zip(web_ports, webs, strict=True):
            wait_until(f"{web.name} answers", lambda p=port, w=web: w.alive() and serves(p))
        for port, live in zip(live_ports, lives, strict=True):
            wait_until(f"{live.name} listens", lambda p=port, h=live: h.alive() and healthy(p))
        game_id, seats, watch = a_game(app)
        seat_stream = Stream(f"http://{HOST}:{live_ports[0]}/live{seats[0]}")
        watch_stream = Stream(f"http://{HOST}:{live_ports[1]}/live{watch}")
        first = seat_stream.event()["data"]
        assert watch_stream.event()["data"] == first == {
            "version": 1, "ply": 0, "status": "active"
        }  # fmt: skip

        started = time.monotonic()
        move_through(web_ports[0], seats[whose_turn(app, game_id)])
        posted = time.monotonic()
        for stream in (seat_stream, watch_stream):
            assert stream.event()["data"] == {"version": 2, "ply": 1, "status": "active"}
        arrived = time.monotonic()
        talk_through(web_ports[1], seats[1], "Good move")
        for stream in (seat_stream, watch_stream):
            assert stream.event()["data"] == {"version": 3, "ply": 1, "status": "active"}

        # The server cuts both LISTEN connections; a move is made before they are back.
        with create_engine(PG_URL).connect() as admin:
            cut = admin.execute(
                text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                    " WHERE application_name = :name"
                ),
                {"name": APPLICATION},
            ).scalar()
        assert cut == 2
        move_through(web_ports[1], seats[whose_turn(app, game_id)])
        for stream in (seat_stream, watch_stream):
            assert stream.event(wait=30)["data"] == {"version": 4, "ply": 2, "status": "active"}
        for host in hosts:
            host.alive()
        seat_stream.close()
        watch_stream.close()
    finally:
        for host in hosts:
            host.stop()
    assert all("LISTEN connection lost" in live.text() for live in lives)
    print(
        f"\nlive across hosts ({'through PgBouncer' if pooled else 'straight'}): a move posted"
        f" in {1000 * (posted - started):.0f} ms reached both streams"
        f" {1000 * (arrived - posted):.0f} ms after its answer"
    )


def test_pbem_live_refuses_to_listen_through_a_transaction_pooler(
    app: Any, tmp_path: Path, pooled: str | None
) -> None:
    if pooled is None:
        pytest.skip("pgbouncer is not installed")
    # Its reads may go through the pooler; its LISTEN may not: the probe finds the pooler.
    through = process_env(
        app, DATABASE_URL=pooled, DATABASE_POOLER="transaction", LIVE_DATABASE_URL=pooled
    )
    env = {**os.environ, **through}
    live = Host("live", [*PBEM, "live", "--port", str(free_port())], env, tmp_path).start()
    assert live.process is not None
    assert live.process.wait(60) != 0
    assert "PBEM_LIVE_DATABASE_URL" in live.text() and "transaction pooler" in live.text()
