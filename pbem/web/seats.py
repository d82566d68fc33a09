"""Seat links in requests: read the signed token, check the seat's key with the rows needed.

Shared by the pages and the JSON API, so both take the same links, count the same
wrong links against the same rate limit, and read the game the same way.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from pbem.models import Game, Player, Seat
from pbem.site import BadLink, seat_claim, watch_claim
from pbem.storage.db import read_session
from pbem.storage.rows import game_and_table
from pbem.storage.store import find_seat, table_of
from pbem.web import bad_link, engine, now, site

LOG_PAGE = 12  # log lines on a page (what is new since my move has its own list above);
# the rest behind a link, so a page costs the same at the start and the end of a game
Table = list[tuple[Seat, Player, Any]]


def seat_payload(token: str) -> tuple[int, int, str]:
    """(game id, seat number, link key) of a well-signed seat link; 404 for anything else
    (pbem.site.seat_claim: `pbem live` reads links the same way)."""
    try:
        return seat_claim(site().secret, token)
    except BadLink:
        bad_link()


def key_fits(seat: Seat | None, key: str) -> bool:
    """Whether the link's key is the seat's current one (older links are revoked)."""
    return seat is not None and secrets.compare_digest(seat.link_key, key)


def seat_from(token: str) -> tuple[int, int]:
    """(game id, seat number) of a valid seat link; 404 for anything else."""
    game_id, seat_no, key = seat_payload(token)
    with read_session(engine()) as session:
        valid = key_fits(find_seat(session, game_id, seat_no), key)
    if not valid:
        bad_link()
    return game_id, seat_no


def open_seat(session: Any, token: str, at: datetime | None = None) -> tuple[Game, Table, int]:
    """The game, its table (seats, players, vacations under way `at`, by default now) and
    the seat of a valid seat link, read in the caller's session as plain rows in one
    statement (pbem.storage.rows): the link is checked with the rows the request needs."""
    game_id, seat_no, key = seat_payload(token)
    found = game_and_table(session, game_id, at or now())
    if found is None or seat_no < 0 or seat_no >= len(found[1]):
        bad_link()
    game, table = found
    if not key_fits(table[seat_no][0], key):
        bad_link()
    return game, table, seat_no


def watched_game(token: str) -> int:
    """The game id of a valid spectator link; 404 for anything else."""
    with read_session(engine()) as session:
        game, _ = _watch_checked(session, token)
    return game.id or 0


def watch_payload(token: str) -> tuple[int, str]:
    """(game id, watch key) of a well-signed spectator link; 404 for anything else."""
    try:
        return watch_claim(site().secret, token)
    except BadLink:
        bad_link()


def _watch_checked(session: Any, token: str) -> tuple[Game, int]:
    game_id, key = watch_payload(token)
    game = session.get(Game, game_id)
    if game is None or not secrets.compare_digest(game.watch_key, key):
        bad_link()
    return game, game_id


def open_watch(session: Any, token: str) -> tuple[Game, Table]:
    """The game and its table for a valid spectator link; 404 for anything else."""
    game, game_id = _watch_checked(session, token)
    return game, table_of(session, game_id, now())
