"""A player's home: all their games sorted by what they need from them, and the next game to play.

Pure queries over the stored games; the page (pbem/web/me.py) only shows what this returns.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import bindparam
from sqlalchemy.orm import defer
from sqlmodel import Session, col, select

from pbem.games import GAMES
from pbem.models import Game, Player, Seat
from pbem.present.common import game_title
from pbem.present.i18n import ordinal
from pbem.present.text import join_names
from pbem.present.timefmt import deadline_words
from pbem.site import Site


def _path(url: str) -> str:
    return urlsplit(url).path


def _left(
    deadline: datetime | None, player: Player, now: datetime, lang: str | None = None
) -> dict[str, Any]:
    return deadline_words(deadline, now, player.tz, lang or player.lang)


def my_games(
    session: Session, site: Site, player: Player, now: datetime, lang: str | None = None
) -> dict[str, list[dict[str, Any]]]:
    """The player's games in four lists: my move (most urgent first), waiting for others,
    invitations to answer, and finished games with their result (in `lang`, the page's)."""
    lang = lang or player.lang
    found: dict[str, list[dict[str, Any]]] = {
        "my_move": [],
        "waiting": [],
        "invitations": [],
        "finished": [],
    }
    # Two queries for all the games, whatever their number: the player's seats with their
    # games, then every seat of those games. A game's state is read only for a game under
    # way (to know whose move it is); a finished game's result is in its outcome.
    mine = session.exec(
        select(Seat, Game)
        .join(Game, col(Game.id) == col(Seat.game_id))
        .where(Seat.player_id == player.id, Seat.status != "declined")
        .order_by(col(Seat.id))  # invitations in the order they came
        .options(defer(Game.state))  # type: ignore[arg-type]
    ).all()
    tables: dict[int | None, list[Seat]] = {}
    for other in session.exec(
        select(Seat)
        .where(col(Seat.game_id).in_([game.id for _, game in mine]))
        .order_by(col(Seat.game_id), col(Seat.seat))
    ):
        tables.setdefault(other.game_id, []).append(other)
    for seat, game in mine:
        seats = tables[game.id]
        link = _path(site.seat_url(seat))  # signed once: the link and its token
        names = [s.name for s in seats]
        row: dict[str, Any] = {
            "title": game_title(game, lang),
            "slug": game.slug,
            "others": join_names([s.name for s in seats if s.seat != seat.seat], lang),
            "link": link,
            "token": link.rsplit("/", 1)[1],
            "updated_at": game.updated_at,
        }
        if game.status == "forming":
            if seat.status == "invited":
                row["creator"] = names[game.creator_seat]
                row["guests"] = join_names(
                    [s.name for s in seats if s.seat not in (seat.seat, game.creator_seat)], lang
                )
                found["invitations"].append(row)
            else:
                row["whom"] = join_names([s.name for s in seats if s.status == "invited"], lang)
                row["joining"] = True
                found["waiting"].append(row)
        elif game.status == "active" and game.state is not None:
            acting = GAMES[game.slug].to_act(game.state)
            if seat.seat in acting and not seat.left:
                row.update(_left(seat.deadline, player, now, lang))
                found["my_move"].append(row)
            else:
                row["whom"] = [
                    {"name": s.name, **_left(s.deadline, player, now, lang)}
                    for s in seats
                    if s.seat in acting
                ]
                found["waiting"].append(row)
        else:
            row["cancelled"] = game.status == "cancelled"
            if game.outcome is not None:
                ranks = game.outcome["ranks"]
                row["won"] = ranks[seat.seat] == 1
                rank = ranks[seat.seat]
                row["rank"] = ordinal(rank, lang)  # "you came 2nd" (issue 31)
                row["score"] = game.outcome["scores"][seat.seat]
                winners = [names[n] for n, r in enumerate(ranks) if r == 1]
                row["winners"] = join_names(winners, lang)
                row["shared_win"] = len(winners) > 1
                # A tie is named: "you shared 2nd with Ana".
                row["tied"] = join_names(
                    [names[n] for n, r in enumerate(ranks) if r == rank and n != seat.seat], lang
                )
            found["finished"].append(row)
    # Most urgent first; a game with no time limit after every deadline.
    found["my_move"].sort(key=lambda r: (r["deadline"] is None, r["deadline"] or now))
    found["waiting"].sort(key=lambda r: r["updated_at"], reverse=True)
    found["finished"].sort(key=lambda r: r["updated_at"], reverse=True)
    return found


# Only the games under way where the seat is due are read (with their states): a
# player's finished games, and those waiting on others, however many, cost next_game
# nothing. A seat left is the computer's move, not the player's. Built once (next_game
# runs on every seat page); the page's own game is left out by a condition added only
# when there is one.
_PLAYING = (
    select(Seat, Game)
    .join(Game, col(Game.id) == col(Seat.game_id))
    .where(
        col(Seat.player_id) == bindparam("player_id"),
        Game.status == "active",
        col(Seat.left).is_(False),
        # A seat due to act has its turn's start (deadlines.update_clocks keeps it): the
        # games where the player waits on others are not read, nor their states decoded.
        col(Seat.turn_started_at).is_not(None),
    )
)
_PLAYING_BESIDES = _PLAYING.where(col(Game.id) != bindparam("besides"))


def next_game(
    session: Session, site: Site, player_id: int, now: datetime, besides: int | None = None
) -> str | None:
    """The seat path of the player's most urgent game where it is their move, if any, other
    than game `besides` (the one the page is of: the player has just moved there)."""
    best: tuple[bool, datetime, str] | None = None
    query = _PLAYING if besides is None else _PLAYING_BESIDES
    params = {"player_id": player_id, "besides": besides}
    for seat, game in session.exec(query, params=params).all():
        if game.state is None or seat.seat not in GAMES[game.slug].to_act(game.state):
            continue
        key = (seat.deadline is None, seat.deadline or now, _path(site.seat_url(seat)))
        if best is None or key < best:
            best = key
    return best[2] if best else None
