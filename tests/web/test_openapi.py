"""The generated OpenAPI document lists every status each route answers, and no other;
every answer fits the model the document names for it (pbem.web.openapi, apimodels)."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError
from werkzeug.test import EnvironBuilder, run_wsgi_app

from pbem.games import GAMES
from pbem.opentables.actions import post_table
from pbem.play import Invitee, create_game
from pbem.present.i18n import languages
from pbem.storage.allowance import (
    INVITES_SENT,
    OPEN_JOINS,
    OPEN_POSTS,
    Allowance,
    OverLimit,
    take,
)
from pbem.storage.db import write_session
from pbem.storage.ratelimit import BAD_LINKS
from pbem.storage.store import seats_of
from pbem.web import apimodels
from pbem.web.apimodels import Error, MoveRequest, read_move
from pbem.web.bodies import API_MAX_BODY
from pbem.web.openapi import ROUTES, Route, document
from tests.leagues.helpers import add_players, league_key, make_league
from tests.web.helpers import acting, api, sign_in_as, start_game

METHODS = ("get", "post", "put", "patch", "delete")
Try = Callable[[Any, str], Any]  # (client, concrete path) -> the answer


def chunked_too_large(app: Any, method: str, path: str) -> Any:
    """A chunked body past the API's limit, as gunicorn hands one over."""
    environ = EnvironBuilder(
        path=path, method=method.upper(), content_type="application/json"
    ).get_environ()
    environ.pop("CONTENT_LENGTH", None)
    environ["HTTP_TRANSFER_ENCODING"] = "chunked"
    environ["wsgi.input_terminated"] = True
    environ["wsgi.input"] = io.BytesIO(b"{" + b" " * (2 * API_MAX_BODY) + b"}")
    answer, status, _ = run_wsgi_app(app, environ)
    return int(status.split()[0]), b"".join(answer)


def down(*_: Any, **__: Any) -> Any:
    raise OperationalError("SELECT 1", {}, Exception("the database is down"))


@pytest.fixture
def table(client: Any, app: Any, smtpd: Any) -> dict[str, str]:
    """A started game: the acting seat's token, another seat's, and the watch token."""
    links, _ = start_game(client, app, smtpd)
    mover = acting(client, links)
    other = next(link for link in links.values() if link != mover)
    page = client.get(mover).get_data(as_text=True)
    watch = page.split('href="http://pbem.test/w/')[1].split('"')[0]
    ids = add_players(app, 3, domain="league.example")
    return {
        "league": league_key(app, make_league(app, ids)),
        "mover": api(mover).rsplit("/", 1)[1],
        "other": api(other).rsplit("/", 1)[1],
        "watch": watch,
        **{f"seat{n}": api(link).rsplit("/", 1)[1] for n, link in enumerate(links.values())},
    }


def concrete(route: Route, token: str, player: str = "1", game: str = "1") -> str:
    path = route.path.replace("{token}", token).replace("{player_id}", player)
    return path.replace("{game_id}", game).replace("{seek_id}", "1")


def walk(route: Route, app: Any, client: Any, table: dict[str, str], monkeypatch: Any) -> list[Any]:
    """Every kind of request a client may send to `route`, each answer as (status, json)."""
    token = table["watch"] if "/watch/" in route.path else table["mover"]
    token = table["league"] if "/leagues/" in route.path else token
    path = concrete(route, token)
    send = getattr(client, route.method)
    answers: list[tuple[int, Any]] = []

    def keep(answer: Any) -> None:
        answers.append((answer.status_code, answer.get_json()))

    keep(send(path, raw=True) if route.method == "post" else send(path))
    served = {r.method for r in ROUTES if r.path == route.path}
    for method in METHODS:
        if method not in served:
            keep(getattr(client, method)(path))
    status, body = chunked_too_large(app, route.method, path)
    answers.append((status, json.loads(body)))
    cross = {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
    if "/vacation" in route.path:
        answers.extend(vacation_walk(route, client, path, cross))
    elif route.operation == "seatLeave":
        answers.extend(leave_walk(app, client, path, cross))
    elif route.operation in SESSION_ROUTES:
        answers.extend(session_walk(route, app, client, path, cross, monkeypatch))
    elif route.method == "post":
        view = client.get(concrete(ROUTES[0], token)).get_json()
        good = {"turn": view["turn"], "move": view["legal_moves"][0]}
        keep(client.post(path, json=good, headers=cross, raw=True))
        keep(client.post(path, data={"turn": "1"}, raw=True))  # a form, not JSON
        for data in ("[" * 2000, "{", '{"turn": 1, "move": {}}', "[]", '{"turn": "x"}'):
            keep(client.post(path, data=data, content_type="application/json", raw=True))
        for move in ({"card": ["x"], "market": "a"}, {}, {"card": "nothing"}):
            keep(client.post(path, json={"turn": view["turn"], "move": move}, raw=True))
        keep(client.post(path, json=good, raw=True))  # played
        keep(client.post(path, json=good, raw=True))  # the same turn again: stale
        elsewhere = concrete(route, table["other"])
        keep(client.post(elsewhere, json=good, raw=True))  # not this seat's turn
        if "/takeback" in route.path:
            answers.extend(take_back_walk(route, client, table, good))
    elif route.method == "put" and route.path.endswith("/notes"):  # the seat's notes
        keep(client.put(path, json={"text": "x"}, headers=cross))
        for data in ("{", '{"text": 5}', "[]"):
            keep(client.put(path, data=data, content_type="application/json"))
        keep(client.put(path, json={"text": "x" * 5000}))  # past the notes' limit
        keep(client.put(path, json={"text": "remember the Moons"}))
    elif route.method == "put":  # a plan ahead (the table's game has three seats)
        keep(client.put(path, json={"plan": []}, headers=cross))
        keep(client.put(path, data="{", content_type="application/json"))
        keep(client.put(path, json={"plan": "x"}))
        keep(client.put(path, json={"plan": []}))  # dropped: always allowed
        keep(client.put(path, json={"plan": [{"if": {}, "then": {}}]}))  # two players only
        keep(client.put(path, data="plan", content_type="text/plain"))
        keep(client.put(path, json={"pass_above": 3}))  # standing orders: Fantasy Business
    else:
        keep(send(path, headers=cross))
    if "{player_id}" in route.path:  # no such player (or a private page)
        keep(send(concrete(route, token, "99999")))
    listing = route.path == "/api/v1/open" and route.method == "get"
    if listing:  # filters it cannot read
        keep(client.get(path + "?game=chess"))
    if "{player_id}" in route.path or listing:  # the database down
        with monkeypatch.context() as patch:
            patch.setattr("pbem.web.api.read_session", down)
            keep(send(path))
    if route.token:
        guesser = app.test_client()
        guesser.environ_base["REMOTE_ADDR"] = "192.0.2.9"
        wrong = concrete(route, token[:-3] + "xyz")
        for _ in range(BAD_LINKS.count + 1):
            if route.method == "post":
                keep(guesser.post(wrong, json={}, raw=True))
            else:
                keep(getattr(guesser, route.method)(wrong))
        with monkeypatch.context() as patch:
            for module in ("api", "apiplayer", "apileagues"):
                patch.setattr(f"pbem.web.{module}.read_session", down)
            patch.setattr("pbem.web.api.read_connection", down)  # a move's read
            keep(client.post(path, json={}, raw=True) if route.method == "post" else send(path))
    return answers


def vacation_walk(route: Route, client: Any, path: str, cross: dict[str, str]) -> list[Any]:
    """A vacation's answers: from another site, a form, bodies it cannot read, days out of
    range, started (then started again), ended (then ended again)."""
    start = path.removesuffix("/end")
    sent = [client.post(path, json={"days": 3}, headers=cross, raw=True)]
    if not route.path.endswith("/end"):
        sent.append(client.post(path, data={"days": "3"}, raw=True))  # a form, not JSON
        for data in ("{", "[]", '{"days": "3"}', '{"days": 0}', '{"days": 100000}'):
            sent.append(client.post(path, data=data, content_type="application/json", raw=True))
    sent.append(client.post(start, json={"days": 3}, raw=True))
    sent.append(client.post(path, json={"days": 3}, raw=True))  # again: already away, or ended
    if route.path.endswith("/end"):
        sent.append(client.post(path, raw=True))  # no vacation left to end
    return [(answer.status_code, answer.get_json()) for answer in sent]


# The routes that act for the player signed in on the device (pbem.web.apiplayer).
SESSION_ROUTES = {
    "playerBlock",
    "playerUnblock",
    "openPost",
    "openWithdraw",
    "openJoin",
    "leagueCreate",
    "leagueJoin",
    "leagueLeave",
    "openSeeks",
    "openSeek",
    "openSeekRemove",
}


def session_walk(
    route: Route, app: Any, client: Any, path: str, cross: dict[str, str], monkeypatch: Any
) -> list[Any]:
    """A signed-in player's request: signed out, from another site, bodies it cannot read,
    done, refused, past the pages' allowance, and with the database down."""
    send = getattr(client, route.method)
    # A JSON body where the route takes one; no form token ever (raw), as any API client.
    extra: dict[str, Any] = {"json": {}, "raw": True} if route.body else {}
    sent = [getattr(app.test_client(), route.method)(path, **extra)]  # signed out
    sign_in_as(client, app, 2)
    sent.append(send(path, headers=cross, **extra))
    if route.body:
        sent.append(client.post(path, data={"share": ""}, raw=True))  # a form, not JSON
        sent.append(client.post(path, data="{", content_type="application/json", raw=True))
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    if "/block" in route.path:
        sent += [send(path), send(concrete(route, "", "2")), send(concrete(route, "", "99999"))]
    elif route.operation == "openJoin":
        moment = app.config["CLOCK"]()
        with write_session(engine) as session:
            game = post_table(session, site, 4, "colour-bazaar", 3, {}, "en", (None, None),
                              False, moment)  # fmt: skip
        joining = concrete(route, "", game=str(game.id))
        sent += [client.post(joining, json={}, raw=True)]  # seated
        sent += [client.post(joining, json={}, raw=True)]  # seated already: refused
        sent += [client.post(path, json={}, raw=True)]  # game 1 is no open table
        sent.append(database_down(send, path, extra, monkeypatch))
        use_up(engine, OPEN_JOINS, 2, moment)
        sent += [client.post(joining, json={}, raw=True)]  # the day's joins are used up
    elif route.operation == "openSeek":
        moment = app.config["CLOCK"]()
        sent.append(client.post(path, json={"game": "colour-bazaar"}, raw=True))  # kept
        sent.append(
            client.post(path, json={"game": "colour-bazaar", "rating_min": 99999}, raw=True)
        )
        sent.append(database_down(send, path, {"json": {"game": "colour-bazaar"}, "raw": True},
                                  monkeypatch))  # fmt: skip
        use_up(engine, OPEN_POSTS, 2, moment)
        sent.append(client.post(path, json={"game": "colour-bazaar"}, raw=True))  # used up
    elif route.operation in ("openPost", "openWithdraw", "leagueCreate", "leagueLeave"):
        sent += TABLE_AND_LEAGUE_WALKS[route.operation](app, client, path, monkeypatch)
    elif route.operation in ("openSeeks", "openSeekRemove"):
        sent.append(send(path))
        if "{seek_id}" in route.path:  # a number no route takes
            sent.append(send(concrete(route, "").replace("/1", "/2147483648")))
    else:  # a league: the table's has started; an open one forming takes the player
        sent.append(client.post(path, json={}, raw=True))
        league_id = make_league(app, [4, 5, 6], start=False, is_open=True, most_players="4")
        sent.append(client.post(concrete(route, league_key(app, league_id)), json={}, raw=True))
    sent.append(database_down(send, path, extra, monkeypatch))
    return [(answer.status_code, answer.get_json()) for answer in sent]


def use_up(engine: Any, allowance: Allowance, player_id: int, moment: Any) -> None:
    """Spend what is left of the player's allowance, as the pages count it."""
    for _ in range(allowance.count):
        try:
            with write_session(engine) as session:
                take(session, allowance, player_id, moment)
        except OverLimit:
            return


def database_down(send: Any, path: str, extra: dict[str, Any], monkeypatch: Any) -> Any:
    """The answer to a signed-in player's request while the database is down."""
    with monkeypatch.context() as patch:
        for module in ("apiplayer", "apileagues", "opentables", "leagues"):
            patch.setattr(f"pbem.web.{module}.write_session", down)
            patch.setattr(f"pbem.web.{module}.read_session", down)
        patch.setattr("pbem.web.leagues.refusal", down)  # the address's count of new games
        return send(path, **extra)


def post_walk(app: Any, client: Any, path: str, monkeypatch: Any) -> list[Any]:
    """Posting an open table: posted, a field the page's form refuses, the database down,
    then past the day's posts."""
    table = {"game": "colour-bazaar", "seats": 3}
    sent = [client.post(path, json=table, raw=True)]
    sent.append(client.post(path, json={**table, "seats": 9}, raw=True))
    sent.append(database_down(client.post, path, {"json": table, "raw": True}, monkeypatch))
    use_up(app.extensions["pbem"]["engine"], OPEN_POSTS, 2, app.config["CLOCK"]())
    sent.append(client.post(path, json=table, raw=True))
    return sent


def withdraw_walk(app: Any, client: Any, path: str, monkeypatch: Any) -> list[Any]:
    """Withdrawing: game 1 is no open table, the player's own is called off (then again:
    no longer waiting)."""
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    with write_session(engine) as session:
        game = post_table(session, site, 2, "colour-bazaar", 3, {}, "en", (None, None),
                          False, app.config["CLOCK"]())  # fmt: skip
    mine = path.rsplit("/", 1)[0] + f"/{game.id}"
    return [client.delete(path), client.delete(mine), client.delete(mine)]


def create_walk(app: Any, client: Any, path: str, monkeypatch: Any) -> list[Any]:
    """Making a league: made (its invitation mailed), a field the page's form refuses, the
    database down, and an invitation past the day's."""
    league = {"name": "Walk league", "game": "colour-bazaar", "invites": ["bea@walk.example"]}
    sent = [client.post(path, json=league, raw=True)]
    sent.append(client.post(path, json={**league, "format": "ladder"}, raw=True))
    sent.append(database_down(client.post, path, {"json": league, "raw": True}, monkeypatch))
    use_up(app.extensions["pbem"]["engine"], INVITES_SENT, 2, app.config["CLOCK"]())
    sent.append(client.post(path, json=league, raw=True))
    return sent


def league_leave_walk(app: Any, client: Any, path: str, monkeypatch: Any) -> list[Any]:
    """Leaving a league: one the player is not in (nothing more), one they joined, and the
    organiser's before its start (refused)."""
    sent = [client.post(path, json={}, raw=True)]
    joined = league_key(app, make_league(app, [4, 2], start=False, most_players="4"))
    sent.append(client.post(f"/api/v1/leagues/{joined}/leave", json={}, raw=True))
    organised = league_key(app, make_league(app, [2, 5], start=False, most_players="4"))
    sent.append(client.post(f"/api/v1/leagues/{organised}/leave", json={}, raw=True))
    return sent


# The walks of the signed-in player's open tables and leagues (issue 48).
TABLE_AND_LEAGUE_WALKS = {
    "openPost": post_walk,
    "openWithdraw": withdraw_walk,
    "leagueCreate": create_walk,
    "leagueLeave": league_leave_walk,
}


def leave_walk(app: Any, client: Any, path: str, cross: dict[str, str]) -> list[Any]:
    """Leaving: from another site, left (then left again: nothing more), and a seat of a
    game not being played (one still forming)."""
    sent = [client.post(path, headers=cross, raw=True)]
    sent += [client.post(path, raw=True) for _ in range(2)]
    engine, site = app.extensions["pbem"]["engine"], app.extensions["pbem"]["site"]
    people = [Invitee("Ana", "ana@forming.example"), Invitee("Leo", "leo@forming.example")]
    with write_session(engine) as session:
        game = create_game(session, site, "colour-bazaar", people, {}, app.config["CLOCK"]())
        forming = api(site.seat_url(seats_of(session, game)[0]))
    sent.append(client.post(f"{forming}/leave", raw=True))
    return [(answer.status_code, answer.get_json()) for answer in sent]


def take_back_walk(
    route: Route, client: Any, table: dict[str, str], good: dict[str, Any]
) -> list[tuple[int, Any]]:
    """A take back's answers once there is a move to take back: asked (then asked again),
    or answered (then answered again)."""
    mover = table["mover"]
    played = client.post(f"/api/v1/seat/{mover}/move", json=good, raw=True)
    assert played.status_code == 200
    # The seat after the mover answers a take back: the one the game now waits for.
    (after,) = played.get_json()["game"]["to_act"]
    seats = [table[key] for key in table if key.startswith("seat")]
    other = next(t for t in seats if client.get(f"/api/v1/seat/{t}").get_json()["seat"] == after)
    ask = f"/api/v1/seat/{mover}/takeback"
    sent = [client.post(ask, raw=True)]
    if route.path.endswith("/answer"):
        assert sent[0].status_code == 200
        path = concrete(route, other)
        sent = [client.post(path, json={"answer": "refuse"}, raw=True) for _ in range(2)]
    else:
        sent.append(client.post(ask, raw=True))  # a second request: 409
    return [(answer.status_code, answer.get_json()) for answer in sent]


def test_every_api_route_is_in_the_route_table(app: Any) -> None:
    served = {
        (method.lower(), re.sub(r"<(?:[\w()=]+:)?(\w+)>", r"{\1}", rule.rule))
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith("/api/")
        for method in rule.methods or ()
        if method not in ("HEAD", "OPTIONS")
    }
    assert served == {(route.method, route.path) for route in ROUTES}


@pytest.mark.parametrize("route", ROUTES, ids=[r.operation for r in ROUTES])
def test_each_route_answers_exactly_the_statuses_listed(
    route: Route, app: Any, client: Any, table: dict[str, str], monkeypatch: Any
) -> None:
    listed = document()["paths"][route.path][route.method]["responses"]
    answers = walk(route, app, client, table, monkeypatch)
    answered = {str(status) for status, _ in answers}
    assert answered == set(listed), (route.path, sorted(answered), sorted(listed))
    for status, body in answers:
        if status == 200:
            route.answer.model_validate(body)
        else:
            Error.model_validate(body)  # a stable code from the document's list
    if route.answer is apimodels.Document:
        assert answers[0][1] == document()


def test_the_models_name_every_game_and_language() -> None:
    schemas = document()["components"]["schemas"]
    assert set(schemas["Game"]["properties"]["slug"]["enum"]) == set(GAMES)
    assert set(schemas["View"]["properties"]["lang"]["enum"]) == set(languages())


def test_each_seat_says_whether_mail_reaches_it() -> None:
    """Issue 46: the seats' `mail`, required, one of three words, and described."""
    seat = document()["components"]["schemas"]["Seat"]
    assert "mail" in seat["required"]
    assert seat["properties"]["mail"]["enum"] == ["ok", "bouncing", "off"]
    assert "bounced" in seat["properties"]["mail"]["description"]


@pytest.mark.parametrize(
    ("body", "read"),
    [
        (b'{"turn": "3", "move": {"card": "5M"}, "pad": "x"}', ("3", {"card": "5M"})),
        (b"{", "bad_json"),
        (b"[" * 2000, "bad_json"),
        (b'{"turn": NaN, "move": {}}', "bad_json"),
        (b'{"turn": 3, "move": {}}', "bad_request"),
        (b'{"turn": "3", "move": []}', "bad_request"),
        (b'{"turn": "3"}', "bad_request"),
        (b'["3", {}]', "bad_request"),
        (b'{"turn": "' + b"9" * 101 + b'", "move": {}}', "bad_request"),
    ],
)
def test_a_move_body_is_read_or_refused_with_a_reason(body: bytes, read: Any) -> None:
    got = read_move(body)
    assert (got.turn, got.move) == read if isinstance(got, MoveRequest) else got == read
