"""Fixtures for webhooks: an app that may post to loopback http, a real HTTP server on
loopback (http.server in a thread) that records what it gets, the same over TLS with a
test certificate for hook.test, and a started game."""

from __future__ import annotations

import socket
import ssl
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from pbem import play
from pbem.storage.db import write_session
from tests.app import make_test_app
from tests.web.helpers import deliver
from tests.webhooks.helpers import PLAYERS, Drip

TLS = Path(__file__).parent / "tls"  # a test CA, and a certificate it signed for hook.test
DRIPPED = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"


@pytest.fixture
def app(database_url: str, clock: Any, smtpd: Any, tmp_path: Any) -> Any:
    app = make_test_app(
        database_url, clock, smtpd, tmp_path, WEBHOOK_ALLOW_LOOPBACK=True, WEBHOOK_TIMEOUT=0.5
    )
    yield app
    app.extensions["pbem"]["engine"].dispose()


class Hooks:
    """What the loopback HTTP server received, and what it answers next, per path."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.script: dict[str, list[tuple[int, dict[str, str], float]]] = {}
        self.drips: dict[str, Drip] = {}
        self.arrivals: dict[str, threading.Event] = {}
        self.timeline: list[str] = []  # "<path> <delivery id>" as each arrives, "<path> end"
        self.names: list[str] = []  # the TLS server name (SNI) of each connection
        self.lock = threading.Lock()
        self.base = ""

    def url(self, path: str) -> str:
        return self.base + path

    def answer(self, path: str, *responses: int | tuple[int, dict[str, str], float]) -> None:
        """Queue answers for `path`: a status, or (status, headers, seconds to wait first)."""
        self.script[path] = [r if isinstance(r, tuple) else (r, {}, 0.0) for r in responses]

    def drip(self, path: str, drip: Drip) -> Drip:
        """Answer the next requests to `path` a byte at a time (see Drip)."""
        self.drips[path] = drip
        return drip

    def arrived(self, path: str) -> threading.Event:
        """An event set when a request to `path` has been received."""
        with self.lock:
            return self.arrivals.setdefault(path, threading.Event())

    def to(self, path: str) -> list[dict[str, Any]]:
        with self.lock:
            return [r for r in self.requests if r["path"] == path]


def _drip(handler: BaseHTTPRequestHandler, drip: Drip, hooks: Hooks) -> None:
    ended = False

    def end() -> None:
        # Noted before the answer is whole, so nothing the client does on it comes first.
        nonlocal ended
        if not ended:
            ended = True
            with hooks.lock:
                hooks.timeline.append(f"{handler.path} end")

    try:
        for at in range(len(DRIPPED)):
            released = drip.release is not None and drip.release.wait(drip.every)
            if drip.release is None:
                time.sleep(drip.every)
            if released or at == len(DRIPPED) - 1:
                end()
            if released:
                drip.released = True
                handler.wfile.write(DRIPPED[at:])
                break
            handler.wfile.write(DRIPPED[at : at + 1])
    except (BrokenPipeError, ConnectionResetError):
        drip.cut = True  # the client gave up: its deadline passed
        end()
    finally:
        handler.close_connection = True
        drip.ended.set()


class Resolver:
    """socket.getaddrinfo, except for the names a test gives answers for: each call for one
    takes its next answer (the last one stays), as a DNS server that changes its mind would."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.answers: dict[str, list[str]] = {}
        self.calls: list[str] = []

    def answer(self, host: str, *answers: str) -> None:
        """What `host` resolves to: the first answer, then the next at each call; an answer
        is one address or several, separated by spaces."""
        self.answers[host] = list(answers)

    def __call__(self, host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        if host not in self.answers:
            return self.real(host, port, *args, **kwargs)
        self.calls.append(host)
        queue = self.answers[host]
        answer = queue.pop(0) if len(queue) > 1 else queue[0]
        return [
            (socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, int(port), 0, 0))
            if ":" in address
            else (socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, int(port)))
            for address in answer.split()
        ]


@pytest.fixture
def resolver(monkeypatch: pytest.MonkeyPatch) -> Resolver:
    """Names resolved as the test says (a pure-Python stand-in for a DNS server)."""
    fake = Resolver(socket.getaddrinfo)
    monkeypatch.setattr(socket, "getaddrinfo", fake)
    return fake


def _handler(hooks: Hooks) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length", 0))
            body = self.rfile.read(length)
            with hooks.lock:
                hooks.requests.append(
                    {"path": self.path, "headers": dict(self.headers), "body": body}
                )
                hooks.timeline.append(f"{self.path} {self.headers.get('X-Pbem-Delivery')}")
                arrival = hooks.arrivals.setdefault(self.path, threading.Event())
                drip = hooks.drips.get(self.path)
                if drip is not None and drip.times > 0:
                    drip.times -= 1
                else:
                    drip = None
                queued = hooks.script.get(self.path) or []
                status, headers, wait = queued.pop(0) if queued else (200, {}, 0.0)
            arrival.set()
            if drip is not None:
                _drip(self, drip, hooks)
                return
            if wait:
                time.sleep(wait)
            try:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting (the timeout test)

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


def _serve(tls: bool) -> Iterator[Hooks]:
    recorder = Hooks()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(recorder))
    server.daemon_threads = True
    recorder.base = f"http://127.0.0.1:{server.server_address[1]}"
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(TLS / "hook.test.pem")
        context.sni_callback = lambda _sock, name, _context: recorder.names.append(name)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        recorder.base = f"https://hook.test:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield recorder
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def hooks() -> Iterator[Hooks]:
    """A real HTTP server on 127.0.0.1 at a free port."""
    yield from _serve(tls=False)


@pytest.fixture
def tls_hooks(monkeypatch: pytest.MonkeyPatch) -> Iterator[Hooks]:
    """The same server over TLS, at https://hook.test:<port> (hook.test is not in the DNS:
    a test makes it resolve), its certificate signed by a CA that OpenSSL trusts for the
    test (SSL_CERT_FILE, read by ssl.create_default_context)."""
    monkeypatch.setenv("SSL_CERT_FILE", str(TLS / "ca.pem"))
    yield from _serve(tls=True)


@pytest.fixture
def game(app: Any, smtpd: Any, clock: Any) -> int:
    """A Colour Bazaar game (seed 7) that Ana created; everyone joined, mail sent."""
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    invitees = [play.Invitee(p.name, p.email, p.lang) for p in PLAYERS]
    with write_session(engine) as session:
        game_id = play.create_game(session, site, "colour-bazaar", invitees, {}, clock(), seed=7).id
    with write_session(engine) as session:
        for seat in (1, 2):
            play.join(session, site, game_id, seat, clock())
    deliver(app)
    return game_id
