"""/me: the signed-in player's games, what each needs from them, with a link to their seat."""

from __future__ import annotations

from flask import Blueprint, g, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from pbem.leagues.table import leagues_of
from pbem.models import Player
from pbem.players.home import my_games
from pbem.players.profile import ratings_of
from pbem.storage.db import read_session
from pbem.web import engine, now, site
from pbem.web.mailfix import my_urls, prompt_context
from pbem.web.signin import signed_in_player

bp = Blueprint("me", __name__)


@bp.get("/me")
def home() -> Response | str:
    """My games: my move first, then waiting for others, invitations, finished games."""
    player_id = signed_in_player()
    with read_session(engine()) as session:
        player = session.get(Player, player_id)
        if player is None:
            return redirect(url_for("signin.ask_page"), code=303)
        if "lang" not in request.args:
            g.lang = player.lang
        games = my_games(session, site(), player, now(), g.lang)  # the page's language
        name = player.name
        ratings = [(r.kind, r.shown) for r in ratings_of(session, player)]
        leagues = [
            {"name": lg.name, "key": lg.join_key, "status": lg.status, "mine": status}
            for lg, status in leagues_of(session, player_id)
        ]
        mail = prompt_context(session, player, g.lang, my_urls())
    return render_template(
        "me/home.html",
        **mail,
        games=games,
        name=name,
        player_id=player_id,
        ratings=ratings,
        leagues=leagues,
    )
