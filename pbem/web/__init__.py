"""Blueprints: lobby (start a game), game (seat and spectator pages), devmail (mailbox)."""

from __future__ import annotations

from datetime import datetime
from typing import NoReturn

from flask import abort, current_app, request
from sqlalchemy import Engine

from pbem.site import BadLink, Site, read_token
from pbem.storage.ratelimit import BAD_LINKS, record


def engine() -> Engine:
    """The application's database engine."""
    engine: Engine = current_app.extensions["pbem"]["engine"]
    return engine


def site() -> Site:
    """The application's link and mail settings."""
    found: Site = current_app.extensions["pbem"]["site"]
    return found


def now() -> datetime:
    """The current time, from the application's clock (tests inject one)."""
    moment: datetime = current_app.config["CLOCK"]()
    return moment


def client_address() -> str:
    """The address the rate limits key on: the client, as trusted proxies report it
    (pbem.web.proxies), else the peer."""
    return request.remote_addr or "?"


def signed_pair(purpose: str, token: str) -> tuple[int, str]:
    """The (id, key) a link signed for `purpose` carries; 404 (via bad_link) for anything else."""
    try:
        payload = read_token(site().secret, purpose, token)
    except BadLink:
        bad_link()
    if len(payload) != 2 or not isinstance(payload[0], int) or not isinstance(payload[1], str):
        bad_link()
    return payload[0], payload[1]


def bad_link() -> NoReturn:
    """Count a wrong link against the address; answer 404, or 429 once it has tried too many.

    Only wrong links are counted or looked up: a correctly signed link cannot be guessed,
    so a good link costs no rate-limit query.
    """
    tries = record(engine(), BAD_LINKS, client_address(), now())
    abort(429 if tries > BAD_LINKS.count else 404)
