"""The API's league actions for the player signed in on this device, through the functions
the league pages call: make a league (its invitations counted and mailed as from the
page), join one by its key, leave one. The CSRF rules are the pages' (pbem.web.apiplayer)."""

from __future__ import annotations

from typing import Any

from flask import jsonify

from pbem.errors import PlayError
from pbem.leagues import rounds, setup
from pbem.leagues.table import league_by_key, league_json, league_view
from pbem.storage.allowance import LEAGUE_JOINS
from pbem.storage.db import read_session, write_session
from pbem.web import bad_link, engine, now, site
from pbem.web.api import bp as bp  # the API blueprint, routes added: app.py registers it
from pbem.web.api import json_body
from pbem.web.apiactmodels import (
    EmptyRequest,
    JoinRequest,
    LeagueRequest,
    NewLeague,
)
from pbem.web.apiplayer import Answer, count_try, player_lang, refusal, signed_in
from pbem.web.leagues import make_league


def _league_id(token: str) -> int:
    """The league whose key is `token`; a wrong key ends in 404, counted against the
    address's wrong links as on the page."""
    with read_session(engine()) as session:
        found = league_by_key(session, token)
        if found is None:
            bad_link()
        return found.id or 0


def _league(token: str) -> dict[str, Any]:
    """The league as it now stands, as GET /api/v1/leagues/<key> answers it."""
    with read_session(engine()) as session:
        found = league_by_key(session, token)
        assert found is not None  # a league is never deleted
        return league_json(league_view(session, site(), found, None))


@bp.post("/leagues")
def create_league() -> Answer:
    """Make a league, as the new-league page's form does (the same fields, checks, hourly
    limit and invitation limits); each address invited is mailed as from the page."""
    lang = player_lang()
    viewer = signed_in(lang)
    read = json_body(LeagueRequest, lang)
    fields: dict[str, Any] = read.model_dump()
    fields["invites"] = "\n".join(read.invites)  # the form's one address a line
    try:
        key = make_league(viewer, fields)
    except PlayError as exc:
        return refusal(exc, lang)
    answer = NewLeague.model_validate({"key": key, "league": _league(key)})
    return jsonify(answer.model_dump(mode="json"))


@bp.post("/leagues/<token>/join")
def join_league(token: str) -> Answer:
    """Join a league with its key, as its page's Join does (an open league, or one the
    player is invited to); answered with the league as it stands."""
    lang = player_lang()
    league_id = _league_id(token)  # the key first, as on the page
    viewer = signed_in(lang)
    read = json_body(JoinRequest, lang)
    count_try(LEAGUE_JOINS, viewer, lang)
    try:
        with write_session(engine()) as session:
            setup.join(session, site(), league_id, viewer, now(), read.share)
    except PlayError as exc:
        return refusal(exc, lang)
    return jsonify(_league(token))


@bp.post("/leagues/<token>/leave")
def leave_league(token: str) -> Answer:
    """Leave a league, as its page's Leave does: before its start, out of it; after, the
    computer plays one's games not over yet. Answered with the league as it stands."""
    lang = player_lang()
    league_id = _league_id(token)
    viewer = signed_in(lang)
    json_body(EmptyRequest, lang)
    try:
        with write_session(engine()) as session:
            rounds.drop_out(session, site(), league_id, viewer, viewer, now())
    except PlayError as exc:
        return refusal(exc, lang)
    return jsonify(_league(token))
