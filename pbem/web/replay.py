"""Replay a game ply by ply as one seat (or a spectator) saw it, and export its log."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, abort, g, render_template, request, url_for
from sqlmodel import Session

from pbem.games import GAMES
from pbem.models import Game, Player
from pbem.players import notes
from pbem.present import presenter, replay
from pbem.present.common import game_title, log_lines, result_names
from pbem.present.text import say
from pbem.storage.db import read_session
from pbem.storage.store import id_of, moves_of, seats_of, shuffles_of
from pbem.web import engine
from pbem.web.review import offer as review_offer_of
from pbem.web.seats import seat_from, watched_game

bp = Blueprint("replay", __name__)


def _number(raw: str | None, high: int, default: int) -> int:
    if raw is None or not raw.isdecimal() or len(raw) > 5:
        return default
    return min(int(raw), high)


def _as_link(endpoint: str, token: str, ply: int, seen_as: str) -> str:
    """The replay at `ply` as another seat (or a spectator) saw it."""
    args: dict[str, Any] = {"token": token, "ply": ply, "as": seen_as}
    return url_for(endpoint, **args)


def _replay(token: str, game_id: int, viewer: int | None, endpoint: str) -> tuple[str, int]:
    with read_session(engine()) as session:
        game = session.get(Game, game_id)
        if game is None or game.state is None:
            abort(404)
        seats = seats_of(session, game)
        names = [s.name for s in seats]
        if viewer is not None and "lang" not in request.args:
            player = session.get(Player, seats[viewer].player_id)
            g.lang = player.lang if player else g.lang
        moves = moves_of(session, game)
        shuffles = shuffles_of(session, game)
        review_offer = review_offer_of(session, game, viewer)
    lang = g.lang
    total = len(moves)
    ply = _number(request.args.get("ply"), total, total)
    raw_as = request.args.get("as")
    wanted = viewer
    if raw_as == "watch":
        wanted = None
    elif raw_as is not None and raw_as.isdecimal() and int(raw_as) < len(seats):
        wanted = int(raw_as)
    if not replay.may_view_as(game, viewer, wanted):
        abort(403)
    rules = GAMES[game.slug]
    state = replay.state_at(game, len(seats), moves, ply, shuffles)
    view = rules.view(state, wanted)
    table = presenter(game.slug).play_context(state, view, wanted, lang, names)
    table["form"] = None  # a replay shows the board, never a move to send

    def link(at: int) -> str:
        args: dict[str, Any] = {"token": token, "ply": at}
        if raw_as is not None and wanted != viewer:
            args["as"] = raw_as
        return url_for(endpoint, **args)

    over = game.status == "over"
    log = log_lines(moves[:ply], wanted, lang, names)
    context = {
        "token": token,
        "game": game,
        "seats": seats,
        "seat": seats[wanted] if wanted is not None else None,
        "names": names,
        "title": game_title(game, lang),
        "view": view,
        "table": table,
        "log": log,
        # The market the step's card went to, marked on the board (a Colour Bazaar play;
        # the move itself is not handed to the page: a discard's card is secret).
        "last_market": _market_of(moves[ply - 1].move) if ply else None,
        "my_last": ply,
        "turn": "",
        "to_act": [names[s] for s in rules.to_act(state)],
        "results": presenter(game.slug).results(game.outcome, result_names(seats, lang), lang)
        if over and ply == total and game.outcome
        else None,
        "clocks": [],
        "review_offer": review_offer,
        "time_control": game.days_per_move,
        "replay": {
            "ply": ply,
            "total": total,
            "said": log[-1]["text"] if log else [],
            "first": link(0),
            "prev": link(max(ply - 1, 0)),
            "next": link(min(ply + 1, total)),
            "last": link(total),
            "as": wanted,
            "viewer": viewer,
            "choices": [
                {"label": s.name, "link": _as_link(endpoint, token, ply, str(s.seat))}
                for s in seats
            ]
            + [{"label": None, "link": _as_link(endpoint, token, ply, "watch")}]
            if over
            else [],
            "export": url_for(endpoint.replace("_replay", "_export"), token=token, fmt="json"),
            "export_text": url_for(endpoint.replace("_replay", "_export"), token=token, fmt="txt"),
            "back": url_for(
                "game.seat_page" if viewer is not None else "game.watch_page", token=token
            ),
        },
    }
    return render_template(f"games/{game.slug}/page.html", **context), 200


def _market_of(move: dict[str, Any]) -> int | None:
    market = move.get("market")
    return market if isinstance(market, int) and "card" in move else None


def export_data(session: Session, game: Game, viewer: int | None, lang: str) -> dict[str, Any]:
    """The game's log as data for `viewer` (a seat, or None: a spectator), read for the
    page's export and the API's alike (pbem.present.replay.export says what each may see)."""
    game_id = id_of(game)
    seats = seats_of(session, game)
    note = notes.note_of(session, game_id, viewer) if viewer is not None else None
    return replay.export(
        game,
        [s.name for s in seats],
        moves_of(session, game),
        viewer,
        lang,
        note.text if note else "",
        [s.share for s in seats],
        shuffles_of(session, game),
    )


def _export(token: str, game_id: int, viewer: int | None, fmt: str) -> Response:
    if fmt not in ("json", "txt"):
        abort(404)
    with read_session(engine()) as session:
        game = session.get(Game, game_id)
        if game is None:
            abort(404)
        data = export_data(session, game, viewer, g.lang)
        title = game_title(game, g.lang)
    name = f"pbem-{game.slug}-{game.id}.{fmt}"
    # The JSON is a file to keep (and to give the verify page): it downloads. The text is
    # for reading: it opens in the tab, under the same name if saved.
    shown = "attachment" if fmt == "json" else "inline"
    headers = {"Content-Disposition": f'{shown}; filename="{name}"'}
    if fmt == "json":
        body = json.dumps(data, ensure_ascii=False, indent=1)
        return Response(body, mimetype="application/json", headers=headers)
    text = replay.export_text(data, title, say(g.lang, "export.notes"))
    return Response(text, mimetype="text/plain", headers=headers)


@bp.get("/p/<token>/replay")
def seat_replay(token: str) -> tuple[str, int]:
    """The game ply by ply, as this seat saw it (after the end, as anyone)."""
    game_id, seat_no = seat_from(token)
    return _replay(token, game_id, seat_no, "replay.seat_replay")


@bp.get("/w/<token>/replay")
def watch_replay(token: str) -> tuple[str, int]:
    """The game ply by ply, as spectators saw it (after the end, as anyone)."""
    return _replay(token, watched_game(token), None, "replay.watch_replay")


@bp.get("/p/<token>/export.<fmt>")
def seat_export(token: str, fmt: str) -> Response:
    """The log as JSON or text, as this seat may read it."""
    game_id, seat_no = seat_from(token)
    return _export(token, game_id, seat_no, fmt)


@bp.get("/w/<token>/export.<fmt>")
def watch_export(token: str, fmt: str) -> Response:
    """The log as JSON or text, as spectators may read it."""
    return _export(token, watched_game(token), None, fmt)
