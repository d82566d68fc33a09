"""One webhook request, all of it before one deadline: resolve the host, connect, TLS, send,
read the answer's head and at most MAX_BODY bytes of its body. The deadline is for the
whole request, not for each read, so a server that sends its answer a byte at a time cannot
hold a delivery. The host is resolved once and every address checked (pbem.webhooks.urls);
the socket is opened to a checked address, and the host's name is used only for TLS (SNI,
the certificate) and the Host header, so a DNS answer that changes cannot move it."""

from __future__ import annotations

import http.client
import io
import socket
import ssl
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from pbem.webhooks.urls import WebhookError, addresses_of, check_url

MAX_REDIRECTS = 3
MAX_BODY = 65536  # bytes of an answer's body read at most (none of it is used)
_REDIRECTS = (301, 302, 303, 307, 308)


@dataclass(frozen=True)
class Answer:
    """What the webhook's server said: a status (0: no answer) and a Retry-After, if any."""

    status: int
    error: str = ""
    retry_after: float | None = None

    @property
    def ok(self) -> bool:
        """Whether the event was taken (any 2xx)."""
        return 200 <= self.status < 300


class Deadline:
    """The moment by which every step of a request must be done."""

    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        """The seconds left; TimeoutError when there are none."""
        left = self.end - time.monotonic()
        if left <= 0:
            raise TimeoutError("timed out: the request's deadline passed")
        return left


class _Reader(io.RawIOBase):
    """The socket's bytes, each read given only the time left before the deadline."""

    def __init__(self, sock: socket.socket, deadline: Deadline) -> None:
        self._sock, self._deadline = sock, deadline

    def readable(self) -> bool:
        """Yes: it is read from."""
        return True

    def readinto(self, buffer: Any) -> int:
        """Read what has come, waiting no later than the deadline."""
        self._sock.settimeout(self._deadline.left())
        return self._sock.recv_into(buffer)


class _Timed:
    """A socket as http.client uses it (sendall, makefile, close), under the deadline."""

    def __init__(self, sock: socket.socket, deadline: Deadline) -> None:
        self._sock, self._deadline = sock, deadline

    def sendall(self, data: bytes) -> None:
        """Send it all before the deadline (sendall's timeout is for the whole call)."""
        self._sock.settimeout(self._deadline.left())
        self._sock.sendall(data)

    def makefile(self, mode: str = "rb", *args: Any, **kwargs: Any) -> io.BufferedReader:
        """The answer's bytes, read under the deadline."""
        return io.BufferedReader(_Reader(self._sock, self._deadline))

    def close(self) -> None:
        """Nothing: http.client closes before the body is read; post() closes the socket."""


class _Connection(http.client.HTTPConnection):
    """An HTTP or (given a context) HTTPS connection to one of the addresses checked for its
    host, whose every step ends by the deadline."""

    def __init__(
        self,
        host: str,
        port: int,
        addresses: list[str],
        deadline: Deadline,
        tls: ssl.SSLContext | None,
    ) -> None:
        super().__init__(host, port)
        self.default_port = 443 if tls is not None else 80  # for the Host header
        self._addresses, self._deadline, self._tls = addresses, deadline, tls
        self.raw: socket.socket | None = None

    def _open(self) -> socket.socket:
        """A socket connected to the first checked address that answers (no lookup)."""
        error: OSError = OSError("no address to connect to")
        for address in self._addresses:
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            sock = socket.socket(family, socket.SOCK_STREAM)
            try:
                sock.settimeout(self._deadline.left())
                sock.connect((address, self.port))
                return sock
            except OSError as exc:
                sock.close()
                error = exc
        raise error

    def connect(self) -> None:
        """Open the connection, then TLS with the host's name (SNI, certificate check)."""
        self.raw = self._open()
        if self._tls is not None:
            # The handshake, however many reads it takes, gets only the time left.
            self.raw.settimeout(self._deadline.left())
            self.raw = self._tls.wrap_socket(self.raw, server_hostname=self.host)
        self.sock = _Timed(self.raw, self._deadline)

    def close(self) -> None:
        """Close the socket itself too (_Timed.close leaves it open for the body)."""
        super().close()
        if self.raw is not None:
            self.raw.close()
            self.raw = None


def _once(
    url: str, addresses: list[str], body: bytes, headers: dict[str, str], deadline: Deadline
) -> tuple[Answer, str | None]:
    """POST once: the answer, and where a redirect points (None if it is not one)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    tls = ssl.create_default_context() if parts.scheme == "https" else None
    conn = _Connection(host, port, addresses, deadline, tls)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        conn.request("POST", path, body=body, headers=headers)
        response = conn.getresponse()
        status, location = response.status, response.getheader("Location")
        retry = response.getheader("Retry-After")
        try:
            response.read(MAX_BODY)  # to end the exchange politely; nothing in it is used
        except (OSError, http.client.HTTPException):
            pass  # the status has come, and stands
    except (OSError, http.client.HTTPException) as exc:
        return Answer(0, f"{type(exc).__name__}: {exc}"[:300]), None
    finally:
        conn.close()
    if status in _REDIRECTS and location:
        return Answer(status, f"HTTP {status}"), location
    retry_after = float(retry) if retry and retry.strip().isdecimal() else None
    return Answer(status, "" if 200 <= status < 300 else f"HTTP {status}", retry_after), None


def _refused(exc: WebhookError) -> Answer:
    """The answer for a URL or an address the checks refuse: nothing was sent."""
    if exc.key == "webhook.error.private":
        return Answer(0, "host resolves to a private address")
    return Answer(0, f"refused URL: {exc.key}")


def post(
    url: str, body: bytes, headers: dict[str, str], timeout: float, allow_loopback: bool
) -> Answer:
    """POST, all of it within `timeout` seconds, following redirects only within the same
    scheme, host and port (to the addresses already checked for it)."""
    deadline = Deadline(timeout)
    try:
        check_url(url, allow_loopback)
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        addresses = addresses_of(parts.hostname or "", port, allow_loopback, deadline.left())
    except WebhookError as exc:
        return _refused(exc)
    except OSError as exc:
        return Answer(0, f"{type(exc).__name__}: {exc}"[:300])
    for _ in range(MAX_REDIRECTS + 1):
        answer, location = _once(url, addresses, body, headers, deadline)
        if location is None:
            return answer
        target = urljoin(url, location)
        new = urlsplit(target)
        if (new.scheme, new.hostname, new.port) != (parts.scheme, parts.hostname, parts.port):
            return Answer(answer.status, "redirect to another host not followed")
        try:
            url = check_url(target, allow_loopback)
        except WebhookError as exc:
            return _refused(exc)
    return Answer(0, "too many redirects")
