"""The JSON a seat or an onlooker gets from the API: the same view the page is drawn from.

Only rules.view(state, viewer) and the log lines written for that viewer are shown,
so the API hides what the pages hide.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from pbem.games import GAMES
from pbem.models import Game, Player, Seat, level_for
from pbem.present.common import LogEntry, log_lines
from pbem.present.options import banked
from pbem.present.replay import deal_shown, unshared


def _seconds(delta: timedelta | None) -> int | None:
    return None if delta is None else int(delta.total_seconds())


def _when(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def game_json(
    game: Game,
    table: list[tuple[Seat, Player, datetime | None]],
    viewer: int | None,
    log: Sequence[dict[str, Any]],
    lang: str,
    log_from: int,
    mail: Sequence[str] = (),
    state: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """What `viewer` (a seat number, or None for an onlooker) may know of the game; `log`: the
    log's entries from ply `log_from` as log_json gives them; `mail`: each seat's mail, "ok",
    "bouncing" or "off" (pbem.present.mailstate.seat_mail); `state`: the game's with the
    rounds it released read back (pbem.storage.rounds), if any."""
    rules = GAMES[game.slug]
    state = game.state if state is None else state
    playing = game.status == "active" and state is not None
    may_act = playing and viewer is not None and rules.may_act(state, viewer)  # type: ignore[arg-type]
    return {
        "game": {
            "id": game.id,
            "slug": game.slug,
            "status": game.status,
            "ply": game.ply,
            "days_per_move": game.days_per_move,
            "clock": game.clock,
            "clock_add": game.clock_add,
            "clock_cap": game.clock_cap,
            "days_off": list(game.days_off),
            "seats": [
                {
                    "seat": seat.seat,
                    "name": seat.name,
                    "status": seat.status,
                    "deadline": _when(seat.deadline),
                    "away_until": _when(away),
                    "banked": _seconds(banked(game, seat)),
                    "absent": seat.absent,
                    "computer": level_for(game, seat),
                    "mail": mail[seat.seat] if seat.seat < len(mail) else "ok",
                }
                for seat, _, away in table
            ],
            "to_act": list(rules.to_act(state)) if playing else [],  # type: ignore[arg-type]
            "outcome": game.outcome,
            "deal": deal_shown(
                game,
                [seat.share for seat, _, _ in table],
                unshared([seat for seat, _, _ in table]),
            ),
        },
        "seat": viewer,
        "lang": lang,
        "view": rules.view(state, viewer) if state is not None else None,
        "legal_moves": rules.legal_moves(state, viewer) if may_act else [],  # type: ignore[arg-type]
        "turn": rules.turn_token(state, viewer) if may_act else None,  # type: ignore[arg-type]
        "log": list(log),
        "log_from": log_from,
    }


def log_json(
    moves: Sequence[LogEntry], viewer: int | None, lang: str, names: list[str]
) -> list[dict[str, Any]]:
    """The log's entries as the API gives them to `viewer`, in `lang`."""
    return [
        {"ply": line["ply"], "seat": line["seat"], "source": line["source"], "text": line["text"]}
        for line in log_lines(moves, viewer, lang, names)
    ]
