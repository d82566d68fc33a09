"""pbem served as the Procfile serves it (gunicorn, its options and logger): what an
outsider can do to the server itself.

- The access log carries no link token (pbem.web.accesslog): a seat link plays the seat.
- A huge chunked body is refused with 413 and never read in full (pbem.web.bodies).
- Behind a trusted proxy (PBEM_TRUSTED_PROXIES) the access log names the client the
  proxy reports, never an address the client wrote itself, and still no token.
"""

from __future__ import annotations

import os
import re
import socket
import threading
from pathlib import Path
from typing import Any

from pbem.devservers import HOST, free_port
from pbem.web.accesslog import MASK, mask
from pbem.web.bodies import MAX_BODY
from tests.live import servers
from tests.live.server import ROOT, Browser, procfile_options, server_env
from tests.web.helpers import start_game

HUGE = 256 * 1024 * 1024
CHUNK = 64 * 1024


def test_every_route_with_a_token_is_masked(app: Any) -> None:
    for rule in app.url_map.iter_rules():
        if "token>" not in rule.rule:
            continue  # no token in its path (/settings takes it as a default, None)
        path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: "t0ken-" + m.group(1), rule.rule)
        logged = mask(f"GET {path}?lang=fr HTTP/1.1")
        assert "t0ken-token" not in logged and MASK in logged, rule.rule


def test_a_league_key_is_masked_and_the_new_league_form_is_not() -> None:
    assert mask("GET /leagues/k3y-Secret/join HTTP/1.1") == f"GET /leagues/{MASK}/join HTTP/1.1"
    assert mask("GET /leagues/invited/t0k.en/yes") == f"GET /leagues/invited/{MASK}/yes"
    assert mask("GET /leagues/new?lang=fr HTTP/1.1") == "GET /leagues/new?lang=fr HTTP/1.1"
    assert mask("GET /leagues/new-k3y HTTP/1.1") == f"GET /leagues/{MASK} HTTP/1.1"


def send_chunked(port: int, path: str) -> tuple[str, int]:
    """POST an endless chunked body; (the status line, or how the connection ended; bytes
    sent before the server stopped taking them)."""
    sock = socket.create_connection((HOST, port), timeout=30)
    sock.sendall(
        f"POST {path} HTTP/1.1\r\nHost: pbem.test\r\nTransfer-Encoding: chunked\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\n\r\n".encode()
    )
    sent = [0]
    chunk = f"{CHUNK:x}\r\n".encode() + b"a" * CHUNK + b"\r\n"

    def pour() -> None:
        try:
            while sent[0] < HUGE:
                sock.sendall(chunk)
                sent[0] += CHUNK
        except OSError:
            return  # the server closed the connection: it reads no more

    writer = threading.Thread(target=pour)
    writer.start()
    try:
        answer = sock.recv(4096).decode("latin-1")
        first = answer.split("\r\n", 1)[0]
    except OSError as exc:  # a reset may overtake the answer that was on its way
        first = type(exc).__name__
    try:
        sock.shutdown(socket.SHUT_RDWR)  # stops the writer, if the server has not already
    except OSError:
        pass  # the server reset the connection: nothing is left to shut down
    writer.join(60)
    sock.close()
    return first, sent[0]


def test_the_served_site_logs_no_token_and_reads_no_huge_body(
    client: Any, app: Any, smtpd: Any, tmp_path: Path
) -> None:
    links, _ = start_game(client, app, smtpd)
    seat = next(iter(links.values()))
    token = seat.rsplit("/", 1)[1]
    page = client.get(seat).get_data(as_text=True)
    watch = page.split('href="http://pbem.test/w/')[1].split('"')[0]
    log = tmp_path / "gunicorn.log"
    port = free_port()
    env = {**server_env(app, tmp_path), "PYTHONUNBUFFERED": "1"}
    options = procfile_options()
    with servers.gunicorn("pbem:create_app()", port, {**os.environ, **env}, options, log, ROOT):
        browser = Browser(port)
        visits = [
            seat,
            f"{seat}/replay?lang=fr",
            f"/api/v1/seat/{token}",
            f"/w/{watch}",
            "/signin/3-0123456789abcdef",
            f"/u/{token}",
        ]
        for path in visits:
            browser.conn.request("GET", path, headers={"Referer": f"http://pbem.test{seat}"})
            response = browser.conn.getresponse()
            response.read()
            assert response.status < 500, path
        first, sent = send_chunked(port, "/signin")
    written = log.read_text(errors="replace")
    for secret in (token, watch, "0123456789abcdef"):
        assert secret not in written
    assert written.count(f'"GET /p/{MASK} HTTP/1.1" 200') == 1, written[-2000:]
    assert f"/api/v1/seat/{MASK}" in written and f"/w/{MASK}" in written
    # The server stopped reading near the limit (what the sockets buffer aside).
    assert first in ("HTTP/1.1 413 REQUEST ENTITY TOO LARGE", "ConnectionResetError"), first
    assert sent < MAX_BODY + 32 * 1024 * 1024, sent


def test_behind_a_trusted_proxy_the_log_names_the_client_and_no_token(
    client: Any, app: Any, smtpd: Any, tmp_path: Path
) -> None:
    links, _ = start_game(client, app, smtpd)
    seat = next(iter(links.values()))
    token = seat.rsplit("/", 1)[1]
    log = tmp_path / "gunicorn.log"
    port = free_port()
    # The test connects from 127.0.0.1: that is the proxy here.
    env = {**server_env(app, tmp_path), "PYTHONUNBUFFERED": "1", "PBEM_TRUSTED_PROXIES": HOST}
    with servers.gunicorn(
        "pbem:create_app()", port, {**os.environ, **env}, procfile_options(), log, ROOT
    ):
        browser = Browser(port)
        for forwarded in ("198.51.100.23", "203.0.113.66, 198.51.100.24"):
            browser.conn.request("GET", seat, headers={"X-Forwarded-For": forwarded})
            response = browser.conn.getresponse()
            response.read()
            assert response.status == 200
    lines = [line for line in log.read_text(errors="replace").splitlines() if "GET /p/" in line]
    assert [line.split()[0] for line in lines] == ["198.51.100.23", "198.51.100.24"], lines
    written = "\n".join(lines)
    assert token not in written and f'"GET /p/{MASK} HTTP/1.1" 200' in written
    assert "203.0.113.66" not in written and HOST not in written
