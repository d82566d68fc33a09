"""Rated games played to their end through the normal move path, with seeded random moves."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine
from sqlmodel import select

from pbem.games import GAMES
from pbem.mailout.mailer import make_templates
from pbem.mailout.notify import OutboxMail
from pbem.models import Game, Player, Seat
from pbem.moves import submit_move
from pbem.play import Invitee, create_game, join
from pbem.site import Site
from pbem.storage.db import read_session, write_session

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def site() -> Site:
    """A site for games made outside a web request."""
    return Site(
        secret="test-ratings",
        base_url="http://pbem.test",
        mail_templates=make_templates(),
        mail=OutboxMail(),
    )


def make_game(
    engine: Engine, slug: str, people: list[Invitee], rated: bool = True, seed: int = 5
) -> int:
    """Create a game of these people (and computers), everyone joined; its id."""
    with write_session(engine) as session:
        game = create_game(session, site(), slug, people, {}, START, seed=seed, rated=rated)
        game_id = game.id or 0
        seats = list(session.exec(select(Seat).where(Seat.game_id == game_id)))
        invited = [s.seat for s in seats if s.status == "invited"]
    for seat in invited:
        with write_session(engine) as session:
            join(session, site(), game_id, seat, START)
    return game_id


def play_out(
    engine: Engine,
    game_id: int,
    seed: int = 3,
    limit: int = 2000,
    server: Callable[[int, int], str | None] | None = None,
) -> dict[str, Any]:
    """Play the game to its end with seeded random legal moves; its outcome. `server(seat,
    ply)` names the source of a move the server makes for a person's seat (a timeout...)."""
    rng = random.Random(seed)
    for ply in range(limit):
        with read_session(engine) as session:
            game = session.get(Game, game_id)
            assert game is not None
            if game.status != "active":
                assert game.status == "over" and game.outcome is not None
                return game.outcome
            rules = GAMES[game.slug]
            state = game.state
            left = set(session.exec(select(Seat.seat).where(Seat.game_id == game_id, Seat.left)))
        seat = rules.to_act(state)[0]
        move = rng.choice(rules.legal_moves(state, seat))
        token = rules.turn_token(state, seat)
        source = "left" if seat in left else "web"  # a seat whose player left: the server's
        if server is not None and seat not in left:
            source = server(seat, ply) or source
        with write_session(engine) as session:
            at = START + timedelta(hours=ply)
            submit_move(session, site(), game_id, seat, move, token, at, source=source)
    raise AssertionError("the game did not end")


def play_game(
    engine: Engine, slug: str, people: list[Invitee], rated: bool = True, seed: int = 5
) -> tuple[int, dict[str, Any]]:
    """A game made and played to its end: its id and outcome."""
    game_id = make_game(engine, slug, people, rated, seed)
    return game_id, play_out(engine, game_id, seed)


def player_id(app: Any, email: str) -> int:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return session.exec(select(Player.id).where(Player.email == email)).one() or 0
