"""What a page needs to keep itself up to date (static/live.js, issue 47), and the answer
of its poll.

A seat, spectator or league page names, on its .live element, where its stream is (the
site's PBEM_LIVE_URL + "p/<token>", "w/<token>" or "leagues/<key>", served by `pbem live`),
where to poll when the stream is down, its own address to fetch anew when the game has
changed, and the version it shows. The poll answers 304 while the version holds: one
indexed read, and no body.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from flask import current_app, jsonify, make_response, request
from werkzeug.wrappers import Response

from pbem.config import Settings, settings_of
from pbem.storage.versions import Shown


def page_live(
    stream: str, poll: str, page: str, shown: Shown, away: str = "", kind: str = "game"
) -> dict[str, Any]:
    """What templates/game/_live.html puts on the page's .live element: the stream (at
    PBEM_LIVE_URL + `stream`, as "p/<token>"; "" with it off), the poll, the page's own
    address, the version and ply it shows, and where a seat's page says it is left."""
    base = live_base(settings_of(current_app))
    return {
        "kind": kind,
        "stream": f"{base}{stream}" if base else "",
        "poll": poll,
        "page": page,
        "version": shown.version,
        "ply": shown.ply,
        "away": away,
    }


def live_base(settings: Settings) -> str:
    """PBEM_LIVE_URL as pages use it: ending in "/"; "" when off."""
    base = settings.live_url.strip()
    if not base or base.lower() == "off":
        return ""
    return base if base.endswith("/") else base + "/"


@lru_cache(maxsize=4)
def connect_sources(base: str) -> str:
    """The Content-Security-Policy connect-src pages need: themselves, and the stream's
    origin when PBEM_LIVE_URL names another (a host of its own, or `pbem serve`'s port)."""
    parts = urlsplit(base)
    if parts.scheme in ("http", "https") and parts.netloc:
        return f"'self' {parts.scheme}://{parts.netloc}"
    return "'self'"


def answer(shown: Shown) -> Response:
    """The poll's answer: 304 when the page's If-None-Match names the version it shows, else
    the version, ply and status as JSON, with the version as its ETag."""
    tag = str(shown.version)
    if request.if_none_match.contains(tag):
        unchanged = make_response("", 304)
        unchanged.set_etag(tag)
        return unchanged
    response = jsonify(shown.facts())
    response.set_etag(tag)
    return response
