"""Blueprints: lobby (start a game), game (seat and spectator pages), devmail (mailbox)."""

from __future__ import annotations

from typing import NoReturn

from flask import current_app
from sqlalchemy import Engine

from pbem.play import Site


def engine() -> Engine:
    """The application's database engine."""
    return current_app.extensions["pbem"]["engine"]


def site() -> Site:
    """The application's link and mail settings."""
    return current_app.extensions["pbem"]["site"]


def now():  # noqa: ANN201
    """The current time, from the application's clock (tests inject one)."""
    return current_app.config["CLOCK"]()


def guard_links() -> None:
    """Answer 429 to an address that has tried too many wrong links lately."""
    from flask import abort, request

    from pbem.ratelimit import BAD_LINKS, exceeded

    if exceeded(engine(), BAD_LINKS, request.remote_addr or "?", now()):
        abort(429)


def bad_link() -> NoReturn:
    """Count a wrong link against the address, then answer 404."""
    from flask import abort, request

    from pbem.ratelimit import BAD_LINKS, record

    record(engine(), BAD_LINKS, request.remote_addr or "?", now())
    abort(404)
