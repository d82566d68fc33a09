"""A real pbem server for tests: gunicorn with two worker processes on a loopback port."""

from __future__ import annotations

import http.client
import os
import re
import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pbem.devservers import free_port
from pbem.models import Game
from pbem.play import Invitee, create_game, join
from pbem.storage.db import read_session, write_session
from pbem.storage.store import seats_of
from tests.live import servers
from tests.settings import process_env

ROOT = Path(__file__).resolve().parents[2]
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')
_RADIO = re.compile(r'<input type="radio" name="([^"]+)" value="([^"]*)"')


@contextmanager
def gunicorn(env: dict[str, str], log: Path, workers: int = 2, threads: int = 8) -> Iterator[int]:
    """Serve pbem under gunicorn until the block ends; yield its port."""
    port = free_port()
    options = ["--workers", str(workers), "--threads", str(threads)]
    with servers.gunicorn("pbem:create_app()", port, {**os.environ, **env}, options, log, ROOT):
        yield port


class Browser:
    """One keep-alive HTTP connection, as one player's phone."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def get(self, path: str) -> tuple[int, str]:
        """GET a page."""
        self.conn.request("GET", path)
        response = self.conn.getresponse()
        return response.status, response.read().decode()

    def post(self, path: str, fields: dict[str, str]) -> int:
        """POST a form; return the status."""
        from urllib.parse import urlencode

        self.conn.request(
            "POST",
            path,
            body=urlencode(fields),
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        response = self.conn.getresponse()
        response.read()
        return response.status


def turn_form(page: str) -> dict[str, str]:
    """The confirmed move a player would send: the hidden fields, the first card and chip."""
    start = page.index('/move"')
    form = page[page.index(">", start) : page.index("</form>", start)]
    fields = dict(_HIDDEN.findall(form))
    radios: dict[str, str] = {}
    for name, value in _RADIO.findall(form):
        radios.setdefault(name, value)
    return {**fields, "play": radios["play"], "chip": radios["chip"], "confirm": "1"}


def server_env(app: Any, tmp: Path) -> dict[str, str]:
    """The environment that gives gunicorn the same settings as the test app."""
    return process_env(app, MAIL_BACKEND="file", MAIL_DIR=tmp / "mail")


def make_games(app: Any, count: int) -> list[list[str]]:
    """Two-player games, started; each game's seat paths in seat order."""
    ext = app.extensions["pbem"]
    games = []
    with write_session(ext["engine"]) as session:
        for n in range(count):
            people = [Invitee(f"A{n}", f"a{n}@example.org"), Invitee(f"B{n}", f"b{n}@example.org")]
            game = create_game(
                session, ext["site"], "colour-bazaar", people, {}, app.config["CLOCK"]()
            )
            join(session, ext["site"], game.id, 1, app.config["CLOCK"]())
            games.append(
                [ext["site"].seat_url(s).split("pbem.test")[1] for s in seats_of(session, game)]
            )
    return games


def whose_turn(app: Any, game_id: int) -> int | None:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, game_id)
        return game.state["turn"] if game.status == "active" else None


def procfile_options() -> list[str]:
    """The web process's gunicorn options from the Procfile, but for --bind and the app."""
    line = next(
        entry for entry in (ROOT / "Procfile").read_text().splitlines() if entry.startswith("web:")
    )
    words = shlex.split(line.partition(":")[2])
    assert words[0] == "gunicorn" and words[-1] == "pbem:create_app()"
    options, skip = [], False
    for word in words[1:-1]:
        if skip:
            skip = False
        elif word == "--bind":
            skip = True
        else:
            options.append(word)
    return options
