"""Open tables and standing seeks (issue 36): post a game anyone signed in may join, take a
seat with one press, and seat the players whose standing seeks fit.

An open table is a forming game (created by pbem.play.open_game) with an OpenTable row; its
seats are added as players join, under the game's lock, and the game starts when the last
seat is taken. Nobody filling it in time: the expiry of unstarted games calls it off.

A seek is used once: the transaction that seats its player deletes it, with a DELETE that
only one transaction can make (rowcount 1), so a seek never seats its player twice.
Seeks are matched in the transaction that posts a table (each fitting seek, oldest first,
until the table is full) and in the one that saves a seek (the oldest fitting table; with
none, a table posted for the oldest other seek that fits it, when there are enough of
them for the game's fewest players).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session, col, delete

from pbem.errors import Gone, PlayError
from pbem.games import GAMES
from pbem.mailout.notify import queue, telling
from pbem.models import Game, OpenTable, Player, PlayerSeek, Seat
from pbem.opentables.queries import (
    MAX_OPEN,
    MAX_SEEKS,
    open_count,
    refusal,
    seek_fits,
    seeks_for,
    seeks_like,
    seeks_of,
    table_of,
    tables_for,
)
from pbem.play import cancel, open_game, read_share, start
from pbem.players.blocks import kept_apart
from pbem.players.reports import refuse_barred
from pbem.present.forms import TimeControl
from pbem.site import Site, new_key
from pbem.storage.allowance import OPEN_POSTS, OverLimit, count_act, hold
from pbem.storage.store import id_of, lock_game, seats_of
from pbem.storage.versions import table_changed

MATCH_BATCH = 50  # seeks (or tables) looked at for one table (or seek): the rest wait


def allow_post(session: Session, player_id: int, now: datetime, table: bool = True) -> None:
    """Count an open table (or, `table` False, a seek) the player posts, in the transaction
    that posts it and under their lock, so parallel posts cannot pass a limit: OverLimit
    with MAX_OPEN tables of theirs waiting, or the day's posts used up."""
    hold(session, OPEN_POSTS, [player_id])
    if table and open_count(session, player_id) >= MAX_OPEN:
        raise OverLimit("open", MAX_OPEN)
    count_act(session, OPEN_POSTS, player_id, now)


def post_table(
    session: Session,
    site: Site,
    player_id: int,
    slug: str,
    seats: int,
    options: dict[str, Any],
    lang: str,
    rating_range: tuple[int | None, int | None],
    rated: bool,
    now: datetime,
    timing: TimeControl | None = None,
    share: str = "",
) -> Game:
    """Post an open table for `seats` players, the poster seated; fitting seeks fill it."""
    refuse_barred(session, player_id)
    player = session.get(Player, player_id)
    if player is None:
        raise PlayError("error.no_seat")
    game = open_game(
        session, site, player, slug, seats, options, now, timing=timing, share=share, rated=rated
    )
    low, high = rating_range
    table = OpenTable(
        game_id=id_of(game),
        player_id=player_id,
        slug=slug,
        seats=seats,
        lang=lang,
        rating_min=low,
        rating_max=high,
        created_at=now,
    )
    session.add(table)
    session.flush()
    fill_from_seeks(session, site, id_of(game), now)
    return game


def join_table(
    session: Session,
    site: Site,
    game_id: int,
    player_id: int,
    now: datetime,
    share: str = "",
    by_seek: bool = False,
) -> Seat:
    """Seat the player at the open table (under the game's lock); the game starts when this
    was the last seat, else its poster is told who joined. `by_seek`: their seek seated
    them, and they are told so."""
    share = read_share(share)
    refuse_barred(session, player_id)  # a barred player's seeks were removed with the bar
    game = lock_game(session, game_id)
    table = table_of(session, game_id)
    if table is None:
        raise PlayError("error.no_game")
    if game.status != "forming":
        raise Gone("open.error.closed")  # full and started, withdrawn, or expired
    seats = seats_of(session, game)
    others = [seat.player_id for seat in seats if seat.player_id != player_id]
    if len(others) == len(seats) and kept_apart(session, player_id, others):
        # The list hides this table from them: the join answers as for no table at all, so
        # a blocked player never learns that the other posted one (SECURITY.md).
        raise PlayError("error.no_game")
    why = refusal(session, table, seats, player_id)
    if why is not None:
        raise Gone(f"open.error.{why}")
    player = session.get(Player, player_id)
    if player is None:
        raise PlayError("error.no_seat")
    seat = Seat(
        game_id=game_id,
        seat=len(seats),
        player_id=player_id,
        name=player.name,
        status="joined",
        link_key=new_key(),
        share=share,
    )
    session.add(seat)
    game.updated_at = now
    session.add(game)
    session.flush()
    still_open = table.seats - len(seats) - 1
    tell = telling(session, site, game, now)
    if by_seek:
        queue(tell, tell.seats[seat.seat], "matched", extra={"open": still_open})
    if still_open:
        extra = {"who": player.name, "open": still_open}
        queue(tell, tell.seats[game.creator_seat], "joined", extra=extra)
    tell.carry_out(session)
    if not still_open:
        start(session, site, game, now)  # everyone gets the start mail
    else:
        table_changed(session, game_id)  # the seated players' open pages show the newcomer
    return seat


def withdraw(session: Session, site: Site, game_id: int, player_id: int, now: datetime) -> None:
    """The poster calls their open table off before it fills; everyone seated is told."""
    table = table_of(session, game_id)
    if table is None or table.player_id != player_id:
        # Another's table answers as no table at all: a table hidden from the player by a
        # block must not show through this answer either (SECURITY.md).
        raise PlayError("error.no_game")
    cancel(session, site, game_id, 0, now)


def _use(session: Session, seek: PlayerSeek) -> bool:
    """Delete the seek if it is still there: True for the one transaction that did."""
    result = session.execute(
        delete(PlayerSeek)
        .where(col(PlayerSeek.id) == seek.id)
        .execution_options(synchronize_session=False)
    )
    session.expunge(seek)
    return bool(getattr(result, "rowcount", 0) == 1)


def fill_from_seeks(session: Session, site: Site, game_id: int, now: datetime) -> int:
    """Seat the players whose seeks fit the open table, oldest seek first, while seats are
    left; each seek used is deleted. How many were seated."""
    game = lock_game(session, game_id)
    table = table_of(session, game_id)
    if table is None:
        return 0
    seated = 0
    for seek in seeks_for(session, table, MATCH_BATCH):
        if game.status != "forming":
            break  # full: it started
        if not seek_fits(session, seek, table, seats_of(session, game)):
            continue
        if _use(session, seek):
            join_table(session, site, game_id, seek.player_id, now, seek.share, by_seek=True)
            seated += 1
    return seated


def save_seek(
    session: Session,
    site: Site,
    player_id: int,
    slug: str,
    lang: str,
    rating_range: tuple[int | None, int | None],
    now: datetime,
    share: str = "",
) -> Seat | None:
    """Keep a standing seek, or use it at once on the open table that has waited longest
    and fits: the seat it gave the player, or None while it waits. `share`: the player's
    share of the deal of the game the seek seats them in."""
    if slug not in GAMES:
        raise PlayError("lobby.error.no_such_game")
    refuse_barred(session, player_id)
    if len(seeks_of(session, player_id)) >= MAX_SEEKS:
        raise PlayError("open.error.seeks", limit=MAX_SEEKS)
    low, high = rating_range
    seek = PlayerSeek(
        player_id=player_id,
        slug=slug,
        lang=lang,
        rating_min=low,
        rating_max=high,
        created_at=now,
        share=read_share(share),
    )
    session.add(seek)
    session.flush()
    for game_id in tables_for(session, seek, MATCH_BATCH):
        game = lock_game(session, game_id)
        table = table_of(session, game_id)
        if table is None or game.status != "forming":
            continue
        if seek_fits(session, seek, table, seats_of(session, game)) and _use(session, seek):
            return join_table(session, site, game_id, player_id, now, seek.share, by_seek=True)
    return _table_of_seeks(session, site, seek, now)


def _table_of_seeks(session: Session, site: Site, seek: PlayerSeek, now: datetime) -> Seat | None:
    """No open table fits a new seek: when enough other seeks fit it for the game's fewest
    players, a table is posted for the oldest one's player and the seeks fill it, the new
    one's included. Two seekers need nobody to post: neither waits for the other."""
    others = seeks_like(session, seek, MATCH_BATCH)
    if len(others) < GAMES[seek.slug].min_players - 1 or not _use(session, others[0]):
        return None
    first = others[0]
    game = post_table(
        session, site, first.player_id, seek.slug, GAMES[seek.slug].min_players, {},
        seek.lang, (first.rating_min, first.rating_max), False, now, share=first.share,
    )  # fmt: skip
    seated = [s for s in seats_of(session, game) if s.player_id == seek.player_id]
    return seated[0] if seated else None


def remove_seek(session: Session, player_id: int, seek_id: int) -> None:
    """Remove one of the player's seeks (someone else's, or one already used: nothing)."""
    session.execute(
        delete(PlayerSeek).where(
            col(PlayerSeek.id) == seek_id, col(PlayerSeek.player_id) == player_id
        )
    )
