"""The live streams, an ASGI app (Starlette): GET /live/p/<token> (a seat's page),
/live/w/<token> (a spectator's) and /live/leagues/<key> (a league's), as Server-Sent Events.

A link is checked as the WSGI app checks it (pbem.site: the same secret and
purposes, the seat's current key; a league's key as its page reads it), and a wrong one
answers 404, or 429 once its address has tried too many, counted in the same rate limit as
the pages' wrong links (pbem.storage.ratelimit.BAD_LINKS). A good one gets a stream that
carries no game content (SECURITY.md): a first event with the version, ply and status the
game is at, then one such event each time it changes, and a comment every KEEPALIVE seconds
so that proxies keep the line open. The page fetches what it shows from the WSGI app, which
decides what that seat may see.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime

from anyio import to_thread
from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from pbem.config import Network
from pbem.leagues.table import league_by_key
from pbem.live.hub import GAME, LEAGUE, Hub, Key
from pbem.players import presence
from pbem.site import BadLink, seat_claim, watch_claim
from pbem.storage.db import read_session
from pbem.storage.ratelimit import BAD_LINKS, record
from pbem.storage.versions import Shown, of_seat, of_watch
from pbem.web.proxies import apply

log = logging.getLogger(__name__)
KEEPALIVE = 25.0  # seconds between comments on an idle stream (proxies drop silent lines)
RETRY_MS = 3000  # how long a browser waits before it opens a dropped stream again
UNDER_WAY = ("forming", "active")
HEADERS = {
    "Cache-Control": "no-store",
    "X-Accel-Buffering": "no",  # nginx passes each event on as it comes
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    # The stream may be on another origin than the page (PBEM_LIVE_URL, `pbem serve`): it
    # carries no content and needs no cookie, so any page holding the link may read it.
    "Access-Control-Allow-Origin": "*",
}


@dataclass(frozen=True)
class Access:
    """What a good link opens: the game (or league), how far it is, and a seat's number and
    when it was last seen (None for a spectator or a league)."""

    key: Key
    shown: Shown
    seat: int | None = None
    seen_at: datetime | None = None


@dataclass
class Live:
    """What the streams need: the hub, the app's database engine, secret, trusted proxies
    and clock."""

    hub: Hub
    engine: Engine
    secret: str
    trusted: int | tuple[Network, ...]
    now: Callable[[], datetime]
    keepalive: float = KEEPALIVE


def seat_access(live: Live, token: str) -> Access | None:
    """A seat link's game, if the link is good (its seat's current key)."""
    try:
        game_id, seat_no, key = seat_claim(live.secret, token)
    except BadLink:
        return None
    with read_session(live.engine) as session:
        found = of_seat(session, game_id, seat_no)
    if found is None or not secrets.compare_digest(found.link_key, key):
        return None
    return Access((GAME, game_id), found.shown, seat_no, found.seen_at)


def watch_access(live: Live, token: str) -> Access | None:
    """A spectator link's game, if the link is good."""
    try:
        game_id, key = watch_claim(live.secret, token)
    except BadLink:
        return None
    with read_session(live.engine) as session:
        found = of_watch(session, game_id)
    if found is None or not secrets.compare_digest(found[1], key):
        return None
    return Access((GAME, game_id), found[0])


def league_access(live: Live, key: str) -> Access | None:
    """A league's page key's league, if there is one (pbem.leagues.table.league_by_key)."""
    with read_session(live.engine) as session:
        league = league_by_key(session, key)
        if league is None:
            return None
        return Access((LEAGUE, league.id or 0), Shown(league.version, league.round, league.status))


def client_address(request: Request, trusted: int | tuple[Network, ...]) -> str:
    """The client, as trusted proxies report it (pbem.web.proxies), else the peer: the
    address the rate limit counts wrong links of."""
    environ = {
        "REMOTE_ADDR": request.client.host if request.client else "",
        "HTTP_X_FORWARDED_FOR": request.headers.get("x-forwarded-for", ""),
    }
    apply(environ, trusted)
    return environ["REMOTE_ADDR"] or "?"


def event(shown: Shown) -> str:
    """One "changed" event: the version (also its id), ply and status, nothing else."""
    return f"id: {shown.version}\nevent: changed\ndata: {json.dumps(shown.facts())}\n\n"


async def events(live: Live, access: Access) -> AsyncIterator[str]:
    """The stream of one page: listening from its first step (so that nothing said after
    the link's read is missed), the newest version known first, then each change."""
    hub = live.hub
    listener = hub.subscribe(access.key, access.seat)
    try:
        newest = hub.newest(access.key)
        first = newest if newest and newest.version > access.shown.version else access.shown
        hub.publish(access.key, first)
        if access.seat is not None and first.status in UNDER_WAY:
            # The player is looking from now on (pbem.players.presence), as the poll said;
            # a write that fails only sends their next turn mail at once.
            try:
                await to_thread.run_sync(
                    presence.mark_seen,
                    live.engine,
                    access.key[1],
                    access.seat,
                    access.seen_at,
                    live.now(),
                )
            except SQLAlchemyError:
                log.warning("game %s: the open seat could not be marked seen", access.key[1])
        yield f"retry: {RETRY_MS}\n" + event(first)
        while True:
            try:
                await asyncio.wait_for(listener.wake.wait(), live.keepalive)
            except TimeoutError:
                yield ": keepalive\n\n"
                continue
            listener.wake.clear()
            if hub.closing:
                return
            if listener.shown is not None:
                yield event(listener.shown)
    finally:
        hub.unsubscribe(access.key, listener, access.seat)


def routes(live: Live, listening: Callable[[], bool | None]) -> list[Route]:
    """The streams' routes, and /live/healthz (the streams open; whether LISTEN is up)."""

    async def stream(request: Request, check: Callable[[Live, str], Access | None]) -> Response:
        name = request.path_params["token"]
        access = await to_thread.run_sync(check, live, name)
        if access is None:
            address = client_address(request, live.trusted)
            tries = await to_thread.run_sync(record, live.engine, BAD_LINKS, address, live.now())
            status = 429 if tries > BAD_LINKS.count else 404
            return PlainTextResponse("Not Found" if status == 404 else "Too Many Requests", status)
        return StreamingResponse(
            events(live, access), media_type="text/event-stream", headers=HEADERS
        )

    async def seat(request: Request) -> Response:
        return await stream(request, seat_access)

    async def watch(request: Request) -> Response:
        return await stream(request, watch_access)

    async def league(request: Request) -> Response:
        return await stream(request, league_access)

    async def health(request: Request) -> Response:
        return JSONResponse(
            {"streams": live.hub.streams(), "listening": listening()},
            headers={"Cache-Control": "no-store"},
        )

    return [
        Route("/live/p/{token}", seat),
        Route("/live/w/{token}", watch),
        Route("/live/leagues/{token}", league),
        Route("/live/healthz", health),
    ]
