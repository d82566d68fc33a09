"""A Server-Sent Events stream read as a browser's EventSource reads it: events (with their
fields) and comments, one at a time, each waited for at most a given time."""

from __future__ import annotations

import http.client
import json
import time
from typing import Any
from urllib.parse import urlsplit


class Stream:
    """GET `url` and read its events."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        parts = urlsplit(url)
        assert parts.hostname is not None
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
        self.connection.request("GET", parts.path, headers=headers or {})
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.headers = {k.lower(): v for k, v in self.response.getheaders()}

    def next(self, wait: float = 10.0) -> dict[str, Any]:
        """The next event ({"event", "id", "data" (read as JSON), "retry"}) or comment
        ({"comment": text}); AssertionError after `wait` seconds without one."""
        sock = self.connection.sock
        assert sock is not None
        give_up = time.monotonic() + wait
        found: dict[str, Any] = {}
        while True:
            sock.settimeout(max(0.01, give_up - time.monotonic()))
            try:
                line = self.response.readline()
            except TimeoutError:
                raise AssertionError(f"no event in {wait} s") from None
            if not line:
                raise AssertionError("the stream ended")
            text = line.decode().rstrip("\r\n")
            if text == "":
                if found:
                    return found
                continue
            name, _, value = text.partition(":")
            value = value.removeprefix(" ")
            if name == "":
                return {"comment": value}
            found[name] = json.loads(value) if name == "data" else value

    def event(self, wait: float = 10.0) -> dict[str, Any]:
        """The next event, comments passed over."""
        while True:
            found = self.next(wait)
            if "comment" not in found:
                return found

    def ended(self, wait: float = 10.0) -> bool:
        """Whether the server ends the stream within `wait` seconds (events passed over)."""
        try:
            while True:
                self.next(wait)
        except AssertionError as exc:
            return "ended" in str(exc)

    def close(self) -> None:
        """Hang up, as a page does when it is hidden or left."""
        self.connection.close()
