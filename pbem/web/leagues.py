"""League pages: the open leagues, the new-league form, a league's page with its standings,
and its buttons (join, leave, start, drop); an invitation's signed link. The logic:
pbem.leagues."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import (
    Blueprint,
    abort,
    g,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from sqlmodel import Session
from werkzeug.wrappers import Response

from pbem.errors import PlayError
from pbem.leagues import rounds, setup
from pbem.leagues.rows import member_of
from pbem.leagues.table import league_by_key, league_view, open_leagues
from pbem.models import League, Player
from pbem.players.computers import LEVELS
from pbem.present import playable
from pbem.present.forms import TimeControl
from pbem.present.options import time_control
from pbem.site import BadLink, read_token
from pbem.storage.allowance import LEAGUE_JOINS, OverLimit, take
from pbem.storage.db import read_session, write_session
from pbem.storage.ratelimit import NEW_GAMES, record, refusal
from pbem.storage.versions import Shown
from pbem.web import bad_link, client_address, engine, live, now, site
from pbem.web.signin import current_player_id, signed_in_player

bp = Blueprint("leagues", __name__)


def _league(session: Session, token: str) -> League:
    """The league whose key is `token`; 404 (counted as a bad link) otherwise."""
    league = league_by_key(session, token)
    if league is None:
        bad_link()
    return league


def _to_page(token: str) -> Response:
    return redirect(url_for("leagues.page", token=token), code=303)


def _error(token: str, exc: PlayError) -> tuple[str, int]:
    """The league's page with the error a press on it ended in."""
    page, _ = _page(token, error=exc)
    return page, exc.status


def _page(token: str, error: PlayError | None = None) -> tuple[str, int]:
    viewer = current_player_id()
    with read_session(engine()) as session:
        league = _league(session, token)
        view = league_view(session, site(), league, viewer)
        shown = _shown(league)
        clock = time_control(league, g.lang)
    # The page keeps itself up to date while the league is under way (static/live.js).
    updates = None
    if league.status != "finished":
        updates = live.page_live(
            stream=f"leagues/{token}",
            poll=url_for("leagues.version", token=token),
            page=url_for("leagues.page", token=token),
            shown=shown,
            kind="league",
        )
    return render_template(
        "leagues/page.html",
        league=view,
        clock=clock,
        token=token,
        error=error,
        signed_in_viewer=viewer,
        live=updates,
    ), 200


def _shown(league: League) -> Shown:
    """How far the league has gone: its version, its round (as the ply), its status."""
    return Shown(league.version, league.round, league.status)


@bp.get("/leagues")
def listing() -> str:
    """The open leagues that still take players."""
    with read_session(engine()) as session:
        listed = [
            {"name": lg.name, "slug": lg.slug, "format": lg.format, "key": lg.join_key}
            for lg in open_leagues(session)
        ]
    return render_template("leagues/list.html", leagues=listed)


@bp.get("/leagues/new")
def new() -> Response | str:
    """The new-league form (signed in)."""
    signed_in_player()
    return render_template("leagues/new.html", games=playable(), form={}, error=None, levels=LEVELS)


def make_league(player_id: int, fields: Mapping[str, Any]) -> str:
    """Make a league from the new-league form's fields (the page's form, or the API's body
    made into them) for the signed-in organiser: the address's hourly new games (429), the
    form read as the page reads it (PlayError), then the league made and its invitations
    counted and queued in one write (pbem.leagues.setup.create). The league's key."""
    address = client_address()
    if (limited := refusal(engine(), NEW_GAMES, address, now())) is not None:
        raise limited
    data: dict[str, Any] = {k: fields.get(k, "") for k in fields if k != "invites"}
    data["invites"] = str(fields.get("invites", ""))[: setup.MOST_INVITES * 260]
    league_form = setup.LeagueForm.read(data)
    timing = TimeControl.read(fields)
    record(engine(), NEW_GAMES, address, now())
    with write_session(engine()) as session:
        organiser = session.get(Player, player_id)
        if organiser is None:
            raise PlayError("league.error.sign_in")
        return setup.create(session, site(), organiser, league_form, timing, now()).join_key


@bp.post("/leagues")
def create() -> Response | tuple[str, int]:
    """Make the league from the form, invite the addresses, and show its page."""
    player_id = signed_in_player()
    try:
        token = make_league(player_id, request.form)
    except PlayError as exc:
        page = render_template(
            "leagues/new.html", games=playable(), form=request.form, error=exc, levels=LEVELS
        )
        return page, exc.status
    return _to_page(token)


@bp.get("/leagues/<token>")
def page(token: str) -> tuple[str, int]:
    """The league's page: standings, games with their watch links, the viewer's buttons."""
    return _page(token)


@bp.get("/leagues/<token>/ply")
def version(token: str) -> Response:
    """How far the league has gone, for its page's poll when the stream is down: 304 while
    the version the page names holds (pbem.web.live)."""
    with read_session(engine()) as session:
        shown = _shown(_league(session, token))
    return live.answer(shown)


def _act(token: str, action: Any) -> Response | tuple[str, int]:
    """Run `action(session, league, player_id)` for the signed-in player; back to the page."""
    player_id = signed_in_player()
    try:
        with write_session(engine()) as session:
            league = _league(session, token)
            action(session, league.id or 0, player_id)
    except PlayError as exc:
        return _error(token, exc)
    return _to_page(token)


def _count_join(player_id: int) -> None:
    """Count a join against the player's allowance, in a transaction of its own (a refused
    try counts too); once it is used up, a 429 that says when to try again."""
    try:
        with write_session(engine()) as session:
            take(session, LEAGUE_JOINS, player_id, now())
    except OverLimit as exc:
        # Back to the page the button was on: the league's, or the invitation's.
        back = request.path.rsplit("/", 1)[0]
        page = render_template("limited.html", problem=exc, back=back, back_to="league")
        abort(make_response(page, 429))


@bp.post("/leagues/<token>/join")
def join(token: str) -> Response | tuple[str, int]:
    """Join with one press (an open league, or one the player is invited to), with the
    share of its games' deals the page's script made."""
    _count_join(signed_in_player())
    share = request.form.get("share", "")
    return _act(token, lambda s, lid, pid: setup.join(s, site(), lid, pid, now(), share))


@bp.get("/leagues/<token>/leave")
def leave_page(token: str) -> str:
    """Are you sure? Leaving a running league hands your games to the computer."""
    with read_session(engine()) as session:
        league = _league(session, token)
        name, status = league.name, league.status
    return render_template(
        "leagues/confirm.html", token=token, league_name=name, status=status, whom=None
    )


@bp.post("/leagues/<token>/leave")
def leave(token: str) -> Response | tuple[str, int]:
    """Leave the league (before its start: no longer in it; after: a dropout)."""
    return _act(token, lambda s, lid, pid: rounds.drop_out(s, site(), lid, pid, pid, now()))


@bp.post("/leagues/<token>/start")
def start(token: str) -> Response | tuple[str, int]:
    """The organiser starts the league with those who joined."""
    return _act(token, lambda s, lid, pid: setup.start_by(s, site(), lid, pid, now()))


@bp.get("/leagues/<token>/drop/<int(max=2147483647):player_id>")
def drop_page(token: str, player_id: int) -> str:
    """The organiser's confirmation before dropping a player."""
    with read_session(engine()) as session:
        league = _league(session, token)
        player = session.get(Player, player_id)
        if player is None:
            abort(404)
        name, status, whom = league.name, league.status, {"id": player_id, "name": player.name}
    return render_template(
        "leagues/confirm.html", token=token, league_name=name, status=status, whom=whom
    )


@bp.post("/leagues/<token>/drop/<int(max=2147483647):player_id>")
def drop(token: str, player_id: int) -> Response | tuple[str, int]:
    """The organiser drops a player: the computer plays their remaining games."""
    return _act(token, lambda s, lid, pid: rounds.drop_out(s, site(), lid, player_id, pid, now()))


def _invited(token: str) -> tuple[int, int]:
    """The (league, player) an invitation link names, its league key still good; else 404."""
    try:
        payload = read_token(site().secret, "league", token)
    except BadLink:
        bad_link()
    if len(payload) != 3 or not all(isinstance(x, int) for x in payload[:2]):
        bad_link()
    league_id, player_id, key = payload
    with read_session(engine()) as session:
        league = session.get(League, league_id)
        if league is None or league.join_key != key:
            bad_link()
        if member_of(session, league_id, player_id) is None:
            bad_link()
    return league_id, player_id


@bp.get("/leagues/invited/<token>")
def invited(token: str) -> str:
    """An invitation: the league in a few words, and the buttons to join or say no."""
    league_id, player_id = _invited(token)
    with read_session(engine()) as session:
        league = session.get(League, league_id)
        assert league is not None
        view = league_view(session, site(), league, player_id)
        player = session.get(Player, player_id)
        if player is not None and "lang" not in request.args:
            g.lang = player.lang
    return render_template("leagues/invited.html", league=view, token=token, key=league.join_key)


@bp.post("/leagues/invited/<token>/<answer>")
def answer(token: str, answer: str) -> Response | tuple[str, int]:
    """Join or decline by the invitation's link (no sign-in: the signed link says who)."""
    league_id, player_id = _invited(token)
    if answer not in ("join", "decline"):
        abort(404)
    _count_join(player_id)
    form = request.form
    try:
        with write_session(engine()) as session:
            league = session.get(League, league_id)
            assert league is not None
            key = league.join_key
            if answer == "join":
                setup.join(session, site(), league_id, player_id, now(), form.get("share", ""))
            else:
                setup.decline(session, league_id, player_id)
    except PlayError as exc:
        return _error(key, exc)
    return _to_page(key)
