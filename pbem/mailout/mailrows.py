"""The rows a mail about a game is rendered from, read with one statement: the game, its
seats in order, the player the mail goes to, and the state of each seat's address (for the
seats a turn mail says pbem can no longer reach, pbem.mailout.context.mail_trouble).

One query compiled once per database and run on the driver's cursor (pbem.storage.rawsql):
the game, seats and player read by three statements through SQLAlchemy cost a late Fantasy
Business mail more than its templates. The game's JSON columns come on the first row only,
so that its state is decoded once, not once a seat.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import bindparam, case, select
from sqlmodel import Session

from pbem.models import Game, MailAddress, Move, Player, Seat
from pbem.storage.rawsql import compiled, dialect_of, reader, run

_GAMES = Game.__table__  # type: ignore[attr-defined]
_SEATS = Seat.__table__  # type: ignore[attr-defined]
_PLAYERS = Player.__table__  # type: ignore[attr-defined]
_ADDRESSES = MailAddress.__table__  # type: ignore[attr-defined]
_SEAT_PLAYER = _PLAYERS.alias("seat_player")
_TO = _PLAYERS.alias("reader")
_JSON = {"options", "state", "days_off", "reminders", "outcome"}
_FIRST = _SEATS.c.seat == 0  # seats are numbered from 0 (seats_of, render_row)
_GAME_COLUMNS = [
    case((_FIRST, column)).label(f"g_{column.name}") if column.name in _JSON else column
    for column in _GAMES.c
]
_COLUMNS = [
    *_SEATS.c,
    *_GAME_COLUMNS,
    *_TO.c,
    _ADDRESSES.c.state,
    _ADDRESSES.c.since,
    _ADDRESSES.c.updated_at,
]
_TYPES = [
    *(c.type for c in _SEATS.c),
    *(c.type for c in _GAMES.c),
    *(c.type for c in _TO.c),
    _ADDRESSES.c.state.type,
    _ADDRESSES.c.since.type,
    _ADDRESSES.c.updated_at.type,
]
_READ = (
    select(*_COLUMNS)
    .select_from(
        _SEATS.join(_GAMES, _GAMES.c.id == _SEATS.c.game_id)
        .outerjoin(_TO, _TO.c.id == bindparam("w_player"))
        .outerjoin(_SEAT_PLAYER, _SEAT_PLAYER.c.id == _SEATS.c.player_id)
        .outerjoin(_ADDRESSES, _ADDRESSES.c.address == _SEAT_PLAYER.c.email)
    )
    .where(_SEATS.c.game_id == bindparam("w_game"))
    .order_by(_SEATS.c.seat)
)
_SEAT_NAMES = tuple(_SEATS.c.keys())
_GAME_NAMES = tuple(_GAMES.c.keys())
_PLAYER_NAMES = tuple(_TO.c.keys())
_GAME_AT = len(_SEAT_NAMES)  # where each row's game columns begin
_PLAYER_AT = len(_GAME_NAMES)  # and the reader's, from there
_ADDRESS_AT = _PLAYER_AT + len(_PLAYER_NAMES)  # and the address state's


@dataclass(frozen=True)
class Address:
    """The state of a seat's address as bounces left it: ok, bouncing or complained."""

    state: str
    since: datetime | None


@dataclass(frozen=True)
class MailRows:
    """A game mail's rows (models outside any session: a mail only reads them)."""

    game: Game
    seats: list[Seat]
    player: Player | None  # None: the player the mail names is gone
    addresses: list[Address | None]  # by seat: None for an address that never bounced


def mail_rows(session: Session, game_id: int, player_id: int | None) -> MailRows | None:
    """The game `game_id` with its seats, the player `player_id` and the seats' address
    states, from one query on the session's connection; None when the game (or every seat
    of it) is gone."""
    dialect = dialect_of(session)
    statement = compiled(dialect, ("mail", "rows"), lambda: _READ)
    params = {"w_game": game_id, "w_player": player_id}
    found = run(session, statement, statement.parameters(params)).fetchall()
    if not found:
        return None
    seat_part = reader(dialect, ("mail", "seats"), lambda: _TYPES[:_GAME_AT])
    rest_part = reader(dialect, ("mail", "rest"), lambda: _TYPES[_GAME_AT:])
    # The game's and the reader's columns from the first row: the others repeat them.
    first = rest_part(found[0][_GAME_AT:])
    game = Game.model_construct(**_named(_GAME_NAMES, first[:_PLAYER_AT]))
    fields = _named(_PLAYER_NAMES, first[_PLAYER_AT:_ADDRESS_AT])
    player = Player.model_construct(**fields) if fields["id"] is not None else None
    seats = [
        Seat.model_construct(**_named(_SEAT_NAMES, seat_part(row[:_GAME_AT]))) for row in found
    ]
    addresses = [_address(row[_GAME_AT + _ADDRESS_AT :], dialect) for row in found]
    return MailRows(game, seats, player, addresses)


_MOVES = Move.__table__  # type: ignore[attr-defined]
_PLAYS = (
    select(_MOVES.c.seat, _MOVES.c.move)
    .where(_MOVES.c.game_id == bindparam("w_game"), _MOVES.c.ply < bindparam("w_until"))
    .order_by(_MOVES.c.ply)
)


class Played(NamedTuple):
    """A move as a replay takes it: who played what (pbem.present.replay.states)."""

    seat: int
    move: Any


def plays_until(session: Session, game_id: int, until: int) -> list[Played]:
    """The game's moves before ply `until`, as a replay takes them: the seat and the move,
    not the log lines written for every viewer (most of a move's row)."""
    dialect = dialect_of(session)
    statement = compiled(dialect, ("mail", "plays"), lambda: _PLAYS)
    params = statement.parameters({"w_game": game_id, "w_until": until})
    convert = reader(dialect, ("mail", "plays"), lambda: [_MOVES.c.seat.type, _MOVES.c.move.type])
    return [Played(*convert(row)) for row in run(session, statement, params).fetchall()]


def _address(values: Any, dialect: Any) -> Address | None:
    """The address state in a row's last columns (state, since, updated_at)."""
    state, since, updated = values
    if state is None:
        return None
    when = reader(dialect, ("mail", "since"), lambda: _TYPES[-1:])
    return Address(state, when((since or updated,))[0])


def _named(names: tuple[str, ...], values: Any) -> dict[str, Any]:
    return dict(zip(names, values, strict=True))
