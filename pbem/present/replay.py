"""Replay: a game's state after any number of moves, rebuilt from its seed and move log, and
its log exported as data, as one viewer may see it (the whole record once the game is over)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any

from pbem.games import GAMES, fairdeal
from pbem.games.message import Message
from pbem.models import Game, Move, Seat
from pbem.present.text import render


def states(
    game: Game, players: int, moves: list[Move], shuffles: Sequence[tuple[int, int]] = ()
) -> Iterator[dict[str, Any]]:
    """The state before each of `moves`, then the state after the last: the same seed,
    moves and take-back shuffles (pbem.storage.store.shuffles_of) give the same states."""
    rules = GAMES[game.slug]
    state = rules.setup(players, game.options, game.seed)
    for ply, move in enumerate(moves):
        state = fairdeal.shuffled_at(state, game.seed, shuffles, ply)
        yield state
        state = rules.apply(state, move.seat, move.move)
    yield fairdeal.shuffled_at(state, game.seed, shuffles, len(moves))


def state_at(
    game: Game,
    players: int,
    moves: list[Move],
    ply: int,
    shuffles: Sequence[tuple[int, int]] = (),
) -> dict[str, Any]:
    """The state after the first `ply` moves."""
    return deque(states(game, players, moves[:ply], shuffles), maxlen=1)[0]


def may_view_as(game: Game, viewer: int | None, wanted: int | None) -> bool:
    """A seat replays as itself and a spectator as a spectator; after the end, as anyone."""
    return game.status == "over" or wanted == viewer


def unshared(seats: list[Seat]) -> list[int]:
    """The seats a person holds who gave no share of the deal (a computer gives none)."""
    return [seat.seat for seat in seats if not seat.share and seat.computer is None]


def deal_shown(
    game: Game, shares: list[str], without_share: list[int] | None = None
) -> dict[str, Any] | None:
    """What anyone may see of a checkable deal now: its seal from the start, the seed's
    commitment once dealt, and at the end the secret, salt and shares (pbem.games.fairdeal).
    Once dealt, `unshared`: the people's seats that gave no share (pbem.present.replay's
    unshared), for the deal then rests on the server's secret and the others' shares alone.
    None for a game given its seed."""
    secret, salt = game.deal_secret, game.deal_salt
    if secret is None or salt is None:
        return None
    shown: dict[str, Any] = {"sealed": fairdeal.sealed(secret, salt)}
    if game.state is not None:
        shown["committed"] = fairdeal.committed(game.seed, salt)
    if game.state is not None and without_share is not None:
        # Only whether a share is empty, never its value: that waits for the end.
        shown["unshared"] = without_share
    if game.status == "over":
        shown.update(secret=secret, salt=salt, shares=shares)
    return shown


def export(
    game: Game,
    names: list[str],
    moves: list[Move],
    viewer: int | None,
    lang: str,
    notes: str = "",
    shares: list[str] | None = None,
    shuffles: Sequence[tuple[int, int]] = (),
) -> dict[str, Any]:
    """The log as data. While the game runs each move is what `viewer` was told of it (no
    hidden card, bid or price); once it is over, the moves themselves and the seed too.
    `notes`: the viewer's own private notes, in their own export only."""
    over = game.status == "over"
    key = "watch" if viewer is None else str(viewer)
    entries = []
    for move in moves:
        lines = move.lines.get(key, [])
        entry: dict[str, Any] = {
            "ply": move.ply + 1,
            "player": names[move.seat],
            "seat": move.seat,
            "source": move.source,
            "at": move.created_at.isoformat(),
            "text": [render(Message.from_json(line), lang, names) for line in lines],
            "messages": lines,
        }
        if over:
            entry["move"] = move.move
        entries.append(entry)
    data: dict[str, Any] = {
        "game": game.slug,
        "id": game.id,
        "status": game.status,
        "options": game.options,
        "players": names,
        "moves": entries,
    }
    if over:
        data["seed"] = game.seed
        data["outcome"] = game.outcome
    if shuffles:
        # Where take backs shuffled the pile (pbem.games.fairdeal): the replay makes them again.
        data["reshuffles"] = [{"after_moves": p, "number": n} for p, n in shuffles]
    deal = deal_shown(game, shares or [])
    if deal is not None:
        data["deal"] = deal
    if notes and viewer is not None:
        data["notes"] = notes
    return data


def export_text(data: dict[str, Any], title: str, notes_title: str = "") -> str:
    """The exported log as plain text: one numbered line per move (then the reader's notes,
    under `notes_title`)."""
    lines = [title, ", ".join(data["players"]), ""]
    for entry in data["moves"]:
        lines.append(f"{entry['ply']}. " + " ".join(entry["text"]))
    if "seed" in data:
        lines += ["", f"seed: {data['seed']}"]
    if "notes" in data:
        lines += ["", notes_title, "", data["notes"]]
    return "\n".join(lines) + "\n"
