"""Helpers for the open tables tests: players, tables posted and seeks saved as the pages do, and
what the tests read back."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pbem.models import Game, Player, Rating, Seat
from pbem.opentables.actions import join_table, post_table, save_seek
from pbem.storage.db import read_session, write_session

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def engine_of(app: Any) -> Any:
    return app.extensions["pbem"]["engine"]


def site_of(app: Any) -> Any:
    return app.extensions["pbem"]["site"]


def players(app: Any, *names: str, lang: str = "en") -> list[int]:
    """Players with these names (address name@example.org), by id."""
    ids = []
    with write_session(engine_of(app)) as session:
        for name in names:
            player = Player(
                email=f"{name.lower()}@example.org", name=name, lang=lang, created_at=T0
            )
            session.add(player)
            session.flush()
            assert player.id is not None
            ids.append(player.id)
    return ids


def rate(app: Any, player_id: int, kind: str, rating: float) -> None:
    with write_session(engine_of(app)) as session:
        session.add(Rating(player_id=player_id, kind=kind, rating=rating, updated_at=T0))


def post(app: Any, poster: int, seats: int = 2, lang: str = "en", slug: str = "colour-bazaar",
         low: int | None = None, high: int | None = None) -> int:  # fmt: skip
    with write_session(engine_of(app)) as session:
        game = post_table(session, site_of(app), poster, slug, seats, {}, lang, (low, high),
                          False, T0)  # fmt: skip
        assert game.id is not None
        return game.id


def status(app: Any, game_id: int) -> str:
    with read_session(engine_of(app)) as session:
        game = session.get(Game, game_id)
        assert game is not None
        return game.status


def join(app: Any, game_id: int, player_id: int) -> None:
    with write_session(engine_of(app)) as session:
        join_table(session, site_of(app), game_id, player_id, T0)


def seek(app: Any, player_id: int, lang: str = "en", low: int | None = None,
         high: int | None = None, slug: str = "colour-bazaar") -> Seat | None:  # fmt: skip
    with write_session(engine_of(app)) as session:
        return save_seek(session, site_of(app), player_id, slug, lang, (low, high), T0)
