"""Which webhook URLs are accepted: https only (http on loopback when a test flag allows it),
no credentials in the URL, and only global addresses: checked in the URL when a webhook is
added, and at delivery on every address its name resolves to (resolved once: the request
connects to an address checked here)."""

from __future__ import annotations

import ipaddress
import queue
import re
import socket
import threading
from typing import Any
from urllib.parse import urlsplit

KINDS = ("discord", "slack", "generic")
MAX_URL = 500
_DISCORD_HOSTS = {"discord.com", "discordapp.com", "ptb.discord.com", "canary.discord.com"}


class WebhookError(ValueError):
    """A webhook that cannot be added; carries a catalogue key."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def detect_kind(url: str) -> str:
    """The format a URL expects, from its host: Discord, Slack or our generic JSON."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if host in _DISCORD_HOSTS and parts.path.startswith("/api/webhooks/"):
        return "discord"
    if host == "hooks.slack.com":
        return "slack"
    return "generic"


Address = ipaddress.IPv4Address | ipaddress.IPv6Address
_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052: the IPv4 address is the last 32 bits
# Not global, whatever a Python version's tables say: local-use NAT64 (RFC 8215, where the
# IPv4 address sits depends on the prefix length) and IPv4-compatible IPv6 (deprecated).
_NEVER = [ipaddress.ip_network("64:ff9b:1::/48"), ipaddress.ip_network("::/96")]
_LOOPBACK = ipaddress.ip_network("127.0.0.0/8")


def _address(host: str) -> Address | None:
    """The IP address a host names, in any spelling the resolver reads as one: the usual
    forms, and the numbers inet_aton takes (127.1, 2130706433, 0x7f000001, 0177.0.0.1)."""
    try:
        return ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        pass
    if not re.fullmatch(r"[0-9a-fx.]+", host):
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


def _carried(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries (6to4, Teredo, NAT64): where it leads."""
    carried = [ip.sixtofour, *(ip.teredo or ())]
    if ip in _NAT64:
        carried.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return [a for a in carried if a is not None]


def is_public(ip: Address) -> bool:
    """Whether a webhook may post to this address: a global unicast one, and so is every
    IPv4 address it carries (100.64.0.0/10 with a cloud's metadata service, and the 6to4
    and NAT64 forms of private addresses, used to pass)."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return is_public(ip.ipv4_mapped)  # the socket connects to the IPv4 address
        carried = _carried(ip)
        if not all(is_public(a) for a in carried) or any(ip in n for n in _NEVER):
            return False
        if ip in _NAT64:
            return True  # global by design (RFC 6890): the address it carries decides
    return ip.is_global and not (
        ip.is_multicast
        or ip.is_private
        or ip.is_reserved
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_unspecified
    )


def _loopback(ip: Address) -> bool:
    """Plain loopback: 127.0.0.0/8 or ::1 (not ::ffff:127.0.0.1 nor any other form)."""
    return ip in _LOOPBACK or ip == ipaddress.IPv6Address("::1")


def may_post_to(ip: Address, allow_loopback: bool) -> bool:
    """Public; or, with the tests' flag, plain loopback."""
    return is_public(ip) or (allow_loopback and _loopback(ip))


def _is_loopback(host: str) -> bool:
    ip = _address(host)
    return host == "localhost" or (ip is not None and _loopback(ip))


def check_url(url: str, allow_loopback: bool) -> str:
    """The URL, trimmed, if a webhook may post to it; WebhookError says why not."""
    url = url.strip()
    if not url or len(url) > MAX_URL or re.search(r"[\s\x00-\x1f\x7f]", url):
        raise WebhookError("webhook.error.url")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise WebhookError("webhook.error.url") from None
    host = (parts.hostname or "").lower().rstrip(".")
    if not host or parts.username is not None or parts.password is not None:
        raise WebhookError("webhook.error.url")
    if not (parts.path + parts.query + parts.fragment).isascii():
        raise WebhookError("webhook.error.url")  # sent as it is, and HTTP takes only ASCII
    if parts.scheme == "http":
        if not (allow_loopback and _is_loopback(host)):
            raise WebhookError("webhook.error.https")
        return url
    if parts.scheme != "https":
        raise WebhookError("webhook.error.https")
    if port is not None and not 1 <= port <= 65535:
        raise WebhookError("webhook.error.url")
    literal = _address(host)
    if literal is not None and not may_post_to(literal, allow_loopback):
        raise WebhookError("webhook.error.private")
    if host == "localhost" and not allow_loopback:
        raise WebhookError("webhook.error.private")
    return url


def _resolve(host: str, port: int, seconds: float) -> list[Any]:
    """getaddrinfo, given up after `seconds`: it takes no timeout, so it runs in a thread of
    its own, which is left to end by itself if it is late."""
    answers: queue.Queue[Any] = queue.Queue(1)

    def run() -> None:
        try:
            answers.put(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except OSError as exc:
            answers.put(exc)
        except ValueError as exc:  # a name IDNA cannot encode: as good as unknown
            answers.put(OSError(f"cannot resolve the host: {exc}"))

    threading.Thread(target=run, name="webhook-resolve", daemon=True).start()
    try:
        answer = answers.get(timeout=seconds)
    except queue.Empty:
        raise TimeoutError("timed out resolving the host") from None
    if isinstance(answer, Exception):
        raise answer
    return list(answer)


def addresses_of(host: str, port: int, allow_loopback: bool, seconds: float) -> list[str]:
    """At send time, the addresses to connect to: the host resolved once, within `seconds`,
    and every address it gives checked (WebhookError if any is not one a webhook may post
    to, even if others are: which one a connection would get is not ours to choose)."""
    found = list(dict.fromkeys(str(info[4][0]) for info in _resolve(host, port, seconds)))
    if not found:
        raise OSError(f"{host} has no address")
    for address in found:
        ip = _address(address)
        if ip is None or not may_post_to(ip, allow_loopback):
            raise WebhookError("webhook.error.private")
    return found
