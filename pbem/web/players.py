"""A player's page: ratings, rating history, finished games, head-to-head; and blocking."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from babel.dates import format_date
from flask import Blueprint, abort, g, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from pbem.errors import PlayError
from pbem.models import Player
from pbem.players import blocks, profile
from pbem.present.chart import rating_chart
from pbem.present.text import join_names
from pbem.ratings import computer_level
from pbem.storage.db import read_session, write_session
from pbem.web import engine, now, site
from pbem.web.signin import current_player_id, signed_in_player

bp = Blueprint("players", __name__)
MAX_PAGE = 1000  # ?page= beyond this is refused: no unbounded offset

bp.add_app_template_global(rating_chart, "rating_chart")


def _number(name: str, most: int) -> int | None:
    """A small whole number from the query string, None when absent; 400 when bad."""
    raw = request.args.get(name)
    if raw is None or raw == "":
        return None
    if not raw.isdigit() or len(raw) > 9 or int(raw) > most:
        abort(400)
    return int(raw)


@bp.get("/players/<int(max=2147483647):player_id>")
def player_page(player_id: int) -> tuple[str, int]:
    """A player's page; to others, a private player's page is a 404 like an unknown id's."""
    viewer = current_player_id()
    number = _number("page", MAX_PAGE) or 0
    against = _number("against", 2**31)
    with read_session(engine()) as session:
        player = session.get(Player, player_id)
        # SECURITY.md "Privacy": to others a private player is a player who does not exist.
        if player is None or not profile.visible_to(player, viewer):
            abort(404)
        name = player.name
        ratings = profile.ratings_of(session, player)
        other: Player | None = None
        if against is not None:
            other = session.get(Player, against)
            if other is None or against == player_id or not profile.visible_to(other, viewer):
                abort(404)
        games, more = profile.finished_games(session, site(), player_id, number, against)
        # Each game as the viewer may see it: their own seat where they sat (the page is theirs
        # alone: never stored), else the spectators' view of the finished game.
        held = profile.seats_held(session, viewer, [f.game_id for f in games]) if viewer else {}
        links = {
            f.game_id: urlsplit(
                site().seat_url(held[f.game_id]) if f.game_id in held else f.watch_link
            ).path
            for f in games
        }
        versus = profile.head_to_head(session, player_id, against) if against is not None else None
        blocked = viewer is not None and player_id in blocks.blocked_by(session, viewer)
        context: dict[str, Any] = {
            "player_id": player_id,
            "name": name,
            "level": computer_level(player.email),
            "ratings": [
                {
                    "kind": r.kind,
                    "shown": r.shown,
                    "points": [
                        (format_date(when, "medium", locale=g.lang), after)
                        for when, after in r.history
                    ],
                }
                for r in ratings
            ],
            "games": games,
            "links": links,
            "tied": {f.game_id: join_names(f.tied, g.lang) for f in games if f.tied},
            "page": number,
            "more": more,
            "against": other.name if other else None,
            "against_id": against,
            "versus": versus,
            "own": viewer == player_id,
            "viewer": viewer,
            "blocked": blocked,
            # The report button shows only where a report goes somewhere (PBEM_OPERATOR_EMAIL).
            "can_report": bool(site().operator_email),
        }
    return render_template("players/page.html", **context), 200


def _block_action(player_id: int, action: str) -> Response:
    viewer = signed_in_player()
    with write_session(engine()) as session:
        found = session.get(Player, player_id)
        # A private player is blocked only by someone they sat at a table with (or unblocked
        # by whoever blocks them): to anyone else the id is no player's.
        if found is None or not (
            profile.visible_to(found, viewer)
            or profile.sat_together(session, viewer, player_id)
            or player_id in blocks.blocked_by(session, viewer)
        ):
            abort(404)
        if action == "block":
            try:
                blocks.block(session, viewer, player_id, now())
            except PlayError:
                abort(400)
        else:
            blocks.unblock(session, viewer, player_id)
    return redirect(url_for("players.player_page", player_id=player_id), code=303)


@bp.post("/players/<int(max=2147483647):player_id>/block")
def block(player_id: int) -> Response:
    """The signed-in player blocks this one: never seated together again, their private
    messages hidden."""
    return _block_action(player_id, "block")


@bp.post("/players/<int(max=2147483647):player_id>/unblock")
def unblock(player_id: int) -> Response:
    """The signed-in player lifts their block of this one."""
    return _block_action(player_id, "unblock")
