"""The client behind a reverse proxy: PBEM_TRUSTED_PROXIES says whose X-Forwarded-* to believe.

Behind a proxy every request comes from the proxy's address, so the rate limits (which key
on the address) would be site-wide. When a trusted proxy sent the request, the client's
address, scheme and host are taken from X-Forwarded-For/-Proto/-Host as that proxy reports
them, the way werkzeug's ProxyFix does: the value the nearest trusted proxy wrote is the
last of each list, the one the proxy before it wrote the one before, and so on. Everything
before the trusted hops is the client's to write, so none of it is read. Off (the default),
nothing is read and the peer is the client.

The environ is changed in place, so gunicorn's access log (which reads REMOTE_ADDR from it
after the answer) names the client too.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any
from wsgiref.types import StartResponse, WSGIApplication, WSGIEnvironment

from pbem.config import Network

SCHEMES = ("http", "https")


def _values(environ: WSGIEnvironment, header: str) -> list[str]:
    return [v.strip() for v in environ.get(header, "").split(",") if v.strip()]


def _trusted(address: str, networks: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False  # not an address (a unix socket, "unknown"): nobody vouches for it
    return any(ip in network for network in networks)


def hops(environ: WSGIEnvironment, trusted: int | tuple[Network, ...]) -> int:
    """How many X-Forwarded-* values, counted from the last, trusted proxies wrote."""
    if isinstance(trusted, int):
        return trusted
    if not _trusted(environ.get("REMOTE_ADDR", ""), trusted):
        return 0  # an untrusted peer: whatever it sent is its own say-so
    forwarded = _values(environ, "HTTP_X_FORWARDED_FOR")
    count = 1
    # Each trusted proxy in the chain vouches for the address before it.
    while count < len(forwarded) and _trusted(forwarded[-count], trusted):
        count += 1
    return count


def apply(environ: WSGIEnvironment, trusted: int | tuple[Network, ...]) -> None:
    """Set the environ's client address, scheme and host from what trusted proxies report."""
    count = hops(environ, trusted)
    if not count:
        return
    forwarded = _values(environ, "HTTP_X_FORWARDED_FOR")
    # Fewer values than trusted hops: a proxy did not write its own, so none is believed.
    if len(forwarded) >= count:
        environ["REMOTE_ADDR"] = forwarded[-count]
    schemes = _values(environ, "HTTP_X_FORWARDED_PROTO")
    if len(schemes) >= count and schemes[-count].lower() in SCHEMES:
        environ["wsgi.url_scheme"] = schemes[-count].lower()
    hosts = _values(environ, "HTTP_X_FORWARDED_HOST")
    if len(hosts) >= count:
        environ["HTTP_HOST"] = hosts[-count]


class TrustedProxies:
    """WSGI middleware: the client as trusted proxies report it (see the module's text)."""

    def __init__(self, app: WSGIApplication, trusted: int | tuple[Network, ...]) -> None:
        self.app, self.trusted = app, trusted

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[Any]:
        """Rewrite the environ, then hand the request on."""
        apply(environ, self.trusted)
        return self.app(environ, start_response)
