"""A real pbem server for tests: gunicorn with two worker processes on a loopback port."""

from __future__ import annotations

import http.client
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pbem.devservers import free_port
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
