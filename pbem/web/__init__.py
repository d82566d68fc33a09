"""Blueprints: lobby (start a game), game (seat and spectator pages), devmail (mailbox)."""

from __future__ import annotations

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
