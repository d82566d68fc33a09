"""Several pbem hosts on one machine for the multi-host test: each process in its own
process group (a SIGKILL to the group is a host dying), and a small reverse proxy in front
of the web hosts that says who the client is in X-Forwarded-For, as nginx does."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from pbem.devservers import HOST, free_port
from tests.live.server import ROOT

PBEM = [sys.executable, "-c", "from pbem.console import main; main()"]
# Hop-by-hop headers a proxy does not pass on (RFC 9110, 7.6.1), and the ones it writes.
HOP = {"connection", "keep-alive", "transfer-encoding", "te", "upgrade", "x-forwarded-for"}


def wait_until(what: str, done: Callable[[], bool], seconds: float = 60.0) -> None:
    """Poll `done` until it holds; fail naming `what` after `seconds` (a hung run, not a
    slow one: the bound is far above what a busy machine takes)."""
    give_up = time.monotonic() + seconds
    while not done():
        if time.monotonic() > give_up:
            raise AssertionError(f"still waiting after {seconds:.0f} s: {what}")
        time.sleep(0.05)


class Host:
    """One pbem process (and its children: gunicorn's workers) in a process group."""

    def __init__(self, name: str, command: list[str], env: dict[str, str], logs: Path) -> None:
        """A process to be; its output goes to `logs`/`name`.log, appended over restarts."""
        self.name = name
        self.command = command
        self.env = env
        self.log = logs / f"{name}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Host:
        """Start the process (again)."""
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(
                self.command, cwd=ROOT, env=self.env, stdout=out, stderr=out,
                start_new_session=True,
            )  # fmt: skip
        return self

    def alive(self) -> bool:
        """Whether the process runs; a process that stopped fails the test with its log."""
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"{self.name} stopped:\n{self.text()[-3000:]}")
        return True

    def text(self) -> str:
        """What the process wrote, over all its starts."""
        return self.log.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL the whole group: the host is gone mid-work, nothing tidied up."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(30)

    def stop(self) -> None:
        """SIGTERM the group, then SIGKILL what is left after a while."""
        if self.process is None or self.process.poll() is not None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)
        except ProcessLookupError:
            pass  # gone meanwhile


def listens(port: int) -> bool:
    """Whether the port takes connections now."""
    try:
        with socket.create_connection((HOST, port), timeout=1):
            return True
    except OSError:
        return False


class Proxy:
    """A reverse proxy on a free port: each request to one web host in turn (the next if a
    host refuses the connection, as nginx's proxy_next_upstream), X-Forwarded-For set to the
    client's address; 502 when a host fails mid-request, which nginx does not retry either."""

    def __init__(self, backends: list[int]) -> None:
        """A proxy to the web hosts on `backends` (ports on 127.0.0.1)."""
        self.backends = backends
        self.turn = 0
        self.lock = threading.Lock()
        self.bad_gateways = 0
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive to the clients, as a phone's browser

            def do_GET(self) -> None:  # noqa: N802
                proxy.forward(self)

            def do_POST(self) -> None:  # noqa: N802
                proxy.forward(self)

            def log_message(self, *args: object) -> None:
                pass  # the hosts' access logs say it

        self.server = ThreadingHTTPServer((HOST, free_port()), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Proxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _connect(self) -> http.client.HTTPConnection:
        with self.lock:
            self.turn += 1
            order = [self.backends[(self.turn + n) % len(self.backends)] for n in range(2)]
        for port in order:
            conn = http.client.HTTPConnection(HOST, port, timeout=60)
            try:
                conn.connect()
                return conn
            except OSError:
                conn.close()
        raise ConnectionRefusedError("no web host takes connections")

    def forward(self, handler: BaseHTTPRequestHandler) -> None:
        """Pass one request on and its answer back."""
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else None
        headers = {k: v for k, v in handler.headers.items() if k.lower() not in HOP}
        headers["X-Forwarded-For"] = handler.client_address[0]
        try:
            conn = self._connect()
            try:
                conn.request(handler.command, handler.path, body=body, headers=headers)
                response = conn.getresponse()
                status, reply, data = response.status, response.getheaders(), response.read()
            finally:
                conn.close()
        except (OSError, http.client.HTTPException):
            with self.lock:
                self.bad_gateways += 1
            status, reply, data = 502, [], b"bad gateway"
        handler.send_response(status)
        for name, value in reply:
            if name.lower() not in HOP and name.lower() != "content-length":
                handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)


class HookSink:
    """A chat server on a free port that takes every webhook POST and counts each
    delivery by its X-Pbem-Delivery id."""

    def __init__(self) -> None:
        """A sink to be; `url` is where to point a webhook."""
        self.received: list[str] = []
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                sink.received.append(str(self.headers.get("X-Pbem-Delivery")))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer((HOST, free_port()), Handler)
        self.server.daemon_threads = True
        self.url = f"http://{HOST}:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> HookSink:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
