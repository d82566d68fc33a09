"""Which webhook URLs are accepted: https only (http on loopback when a test flag allows it),
no credentials in the URL, and no address inside the server's own networks."""

from __future__ import annotations

import ipaddress
import re
import socket
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


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _public(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    return not (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
    )


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
    host = (parts.hostname or "").lower()
    if not host or parts.username is not None or parts.password is not None:
        raise WebhookError("webhook.error.url")
    if parts.scheme == "http":
        if not (allow_loopback and _is_loopback(host)):
            raise WebhookError("webhook.error.https")
        return url
    if parts.scheme != "https":
        raise WebhookError("webhook.error.https")
    if port is not None and not 1 <= port <= 65535:
        raise WebhookError("webhook.error.url")
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None and not _public(host) and not (allow_loopback and _is_loopback(host)):
        raise WebhookError("webhook.error.private")
    if host == "localhost" and not allow_loopback:
        raise WebhookError("webhook.error.private")
    return url


def resolves_publicly(host: str, port: int, allow_loopback: bool) -> bool:
    """At send time: every address the host resolves to is public (or loopback, if allowed)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        return False
    addresses = {str(info[4][0]) for info in infos}
    if not addresses:
        return False
    for address in addresses:
        if allow_loopback and _is_loopback(address.split("%", 1)[0]):
            continue
        if not _public(address):
            return False
    return True
