"""The OpenAPI 3.1 document of the JSON API, generated from its models and a route table.

components.schemas comes from the pydantic models of pbem.web.apimodels; paths come
from ROUTES, which names each route's body, answer and every refusal it can give.
tests/web/test_openapi.py walks the routes and checks that each status they answer
is listed here, and that each listed one is answered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from pbem.web.apimodels import (
    Blocked,
    Document,
    Error,
    JoinRequest,
    League,
    MoveRequest,
    Notes,
    NotesRequest,
    OpenTables,
    Plan,
    PlanRequest,
    PlayerRatings,
    Seated,
    SeekRequest,
    Seeks,
    Settings,
    SettingsRequest,
    Standing,
    StandingRequest,
    TakeBackAnswer,
    Vacation,
    VacationRequest,
    View,
)

REF = "#/components/schemas/{model}"

# What each refusal means; a route lists those it can give.
REFUSALS = {
    400: "The body or the move cannot be taken (see message); for a vacation: one is "
    "already under way, none is, or the year's allowance is spent",
    401: "No player is signed in on this device: these routes act for the player the "
    "pages' session cookie names (sign in on the site first)",
    403: "Sent from another site (Origin or Sec-Fetch-Site): refused",
    404: "No such link, or a revoked one; no such player or open table, or a number past "
    "the largest one",
    405: "This method is not allowed at this path (Allow lists those that are)",
    409: "The turn was already played (stale), or the game is not being played; for a take "
    "back: nothing to take back or answer now, or a request already waiting; for a join: "
    "the table or league no longer takes players, or not this one (see message)",
    413: "The body is larger than 16 KiB (sized or chunked): refused unread",
    415: "The body is not application/json",
    429: "Too many wrong links from this address, or (signed in) too many joins for the "
    "day or the hour, as the pages allow: wait and try again",
    503: "The database is not answering: nothing was changed",
}
# Every request's body is bounded (pbem.web.bodies): a chunked one past the limit gets
# 413 on any method, and any path answers 405 for a method it does not take.
ANY = (405, 413)
# A route that opens a link: a wrong one is 404, too many wrong ones 429; it reads the
# database, which may be down.
LINK = (404, 429, 503)


@dataclass(frozen=True)
class Route:
    """One operation of the API: what it takes, what it answers and how it refuses."""

    method: str
    path: str
    operation: str
    summary: str
    answer: type[BaseModel]
    answered: str
    refusals: tuple[int, ...]
    body: type[BaseModel] | None = None
    token: bool = True
    query: tuple[dict[str, Any], ...] = ()  # the route's query parameters, if any


ROUTES = (
    Route(
        "get",
        "/api/v1/seat/{token}",
        "seatView",
        "A seat's view, legal moves, deadlines and turn token",
        View,
        "The game as this seat may see it",
        (*LINK, *ANY),
    ),
    Route(
        "post",
        "/api/v1/seat/{token}/move",
        "seatMove",
        "Play a move for the turn it names",
        View,
        "The move is played: the new view",
        (400, 403, 409, 415, *LINK, *ANY),
        body=MoveRequest,
    ),
    Route(
        "post",
        "/api/v1/seat/{token}/settings",
        "seatSettings",
        "Change the seat's player's settings (automatic vacation), for all their games",
        Settings,
        "The settings as they now stand",
        (400, 403, 415, *LINK, *ANY),
        body=SettingsRequest,
    ),
    Route(
        "post",
        "/api/v1/seat/{token}/vacation",
        "seatVacation",
        "Start a vacation of some days from now: the clocks stand still in all the player's games",
        Vacation,
        "The vacation is under way",
        (400, 403, 415, *LINK, *ANY),
        body=VacationRequest,
    ),
    Route(
        "post",
        "/api/v1/seat/{token}/vacation/end",
        "seatVacationEnd",
        "End the vacation under way: the clocks run again and the unused days return",
        Vacation,
        "The vacation is over",
        (400, 403, *LINK, *ANY),
    ),
    Route(
        "post",
        "/api/v1/seat/{token}/leave",
        "seatLeave",
        "Leave the game: a computer plays the seat from now on; the result stays the player's",
        View,
        "The seat is left (again: nothing more): the seat's view",
        (403, 409, *LINK, *ANY),
    ),
    Route(
        "get",
        "/api/v1/seat/{token}/notes",
        "seatNotes",
        "The seat's private notes on the game (no one else reads them)",
        Notes,
        "The seat's notes",
        (*LINK, *ANY),
    ),
    Route(
        "put",
        "/api/v1/seat/{token}/notes",
        "seatNotesWrite",
        "Replace the seat's private notes (an empty text clears them)",
        Notes,
        "The notes are kept",
        (400, 403, 415, *LINK, *ANY),
        body=NotesRequest,
    ),
    Route(
        "get",
        "/api/v1/seat/{token}/plan",
        "seatPlan",
        "The seat's own plan ahead (conditional moves) and the moves it may name",
        Plan,
        "The plan, secret to this seat",
        (*LINK, *ANY),
    ),
    Route(
        "put",
        "/api/v1/seat/{token}/plan",
        "seatPlanPut",
        "Keep a plan ahead (their move -> my answer, two levels at most); [] drops it",
        Plan,
        "The plan is kept: the plan as kept",
        (400, 403, 409, 415, *LINK, *ANY),
        body=PlanRequest,
    ),
    Route(
        "delete",
        "/api/v1/seat/{token}/plan",
        "seatPlanDelete",
        "Drop the seat's plan ahead",
        Plan,
        "The plan is dropped",
        (403, *LINK, *ANY),
    ),
    Route(
        "get",
        "/api/v1/seat/{token}/standing",
        "seatStanding",
        "The seat's own standing orders (Fantasy Business)",
        Standing,
        "The orders, secret to this seat",
        (*LINK, *ANY),
    ),
    Route(
        "put",
        "/api/v1/seat/{token}/standing",
        "seatStandingPut",
        "Keep standing orders: pass on every lot above N, price each article at its base",
        Standing,
        "The orders are kept (a move they decide now is played at once)",
        (400, 403, 409, 415, *LINK, *ANY),
        body=StandingRequest,
    ),
    Route(
        "delete",
        "/api/v1/seat/{token}/standing",
        "seatStandingDelete",
        "Cancel the seat's standing orders",
        Standing,
        "The orders are cancelled",
        (403, *LINK, *ANY),
    ),
    Route(
        "post",
        "/api/v1/seat/{token}/takeback",
        "seatTakeBackAsk",
        "Ask the next player to let this seat take back its last move (no body needed)",
        View,
        "The request waits for the next player's answer: the view",
        (403, 409, *LINK, *ANY),
    ),
    Route(
        "post",
        "/api/v1/seat/{token}/takeback/answer",
        "seatTakeBackAnswer",
        "Allow or refuse the take back this seat is asked for",
        View,
        "Answered (allowed: the move is taken back): the new view",
        (400, 403, 409, 415, *LINK, *ANY),
        body=TakeBackAnswer,
    ),
    Route(
        "get",
        "/api/v1/watch/{token}",
        "watchView",
        "The onlooker's view: no hand, no secret",
        View,
        "The game as an onlooker may see it",
        (*LINK, *ANY),
    ),
    Route(
        "get",
        "/api/v1/players/{player_id}",
        "playerRatings",
        "A player's name and ratings per game kind (404 when their page is private)",
        PlayerRatings,
        "The player's public facts",
        (404, 503, *ANY),
        token=False,
    ),
    Route(
        "get",
        "/api/v1/open",
        "openTables",
        "The open tables: games waiting for players, newest first",
        OpenTables,
        "A page of the open tables (filtered by game and language)",
        (400, 503, *ANY),
        token=False,
        query=(
            {
                "name": "game",
                "in": "query",
                "required": False,
                "description": "Only this game's tables",
                "schema": {"type": "string", "enum": ["colour-bazaar", "fantasy-business"]},
            },
            {
                "name": "language",
                "in": "query",
                "required": False,
                "description": "Only the tables in this language",
                "schema": {"type": "string", "enum": ["en", "fr"]},
            },
            {
                "name": "page",
                "in": "query",
                "required": False,
                "description": "The page, from 0 (newest)",
                "schema": {"type": "integer", "minimum": 0, "maximum": 50},
            },
        ),
    ),
    Route(
        "get",
        "/api/v1/leagues/{token}",
        "league",
        "A league's standings, games, rounds and time control (the token is the key in its"
        " page's link)",
        League,
        "The league: names, results, whose move, rounds played of all, each game's clock;"
        " nothing hidden",
        (*LINK, *ANY),
    ),
    Route(
        "get",
        "/api/v1/openapi.json",
        "openapi",
        "This document",
        Document,
        "The OpenAPI document of this API",
        ANY,
        token=False,
    ),
    Route(
        "put",
        "/api/v1/players/{player_id}/block",
        "playerBlock",
        "The signed-in player blocks this one: never seated together again, their private "
        "messages hidden",
        Blocked,
        "The block stands (again: nothing more)",
        (400, 401, 403, 404, 503, *ANY),
        token=False,
    ),
    Route(
        "delete",
        "/api/v1/players/{player_id}/block",
        "playerUnblock",
        "The signed-in player lifts their block of this one",
        Blocked,
        "No block stands",
        (401, 403, 404, 503, *ANY),
        token=False,
    ),
    Route(
        "post",
        "/api/v1/open/{game_id}/join",
        "openJoin",
        "The signed-in player takes a seat at an open table (the game starts when it is full)",
        Seated,
        "The seat taken, with its link",
        (400, 401, 403, 404, 409, 415, 429, 503, *ANY),
        body=JoinRequest,
        token=False,
    ),
    Route(
        "post",
        "/api/v1/leagues/{token}/join",
        "leagueJoin",
        "The signed-in player joins a league by its key (open, or one they are invited to)",
        League,
        "The league as it now stands (it starts once full)",
        (400, 401, 403, 409, 415, *LINK, *ANY),
        body=JoinRequest,
    ),
    Route(
        "get",
        "/api/v1/open/seeks",
        "openSeeks",
        "The signed-in player's standing seeks",
        Seeks,
        "The seeks, oldest first",
        (401, 503, *ANY),
        token=False,
    ),
    Route(
        "post",
        "/api/v1/open/seeks",
        "openSeek",
        "Keep a standing seek: a fitting open table seats the player at once",
        Seeks,
        "The seeks, and the seat taken at once if one fitted",
        (400, 401, 403, 415, 429, 503, *ANY),
        body=SeekRequest,
        token=False,
    ),
    Route(
        "delete",
        "/api/v1/open/seeks/{seek_id}",
        "openSeekRemove",
        "Remove one of the signed-in player's seeks",
        Seeks,
        "The seeks left",
        (401, 403, 404, 503, *ANY),
        token=False,
    ),
)

TOKEN = {
    "name": "token",
    "in": "path",
    "required": True,
    "description": "The signed link token, as in a seat's /p/<token> or a spectator's /w/<token>",
    "schema": {"type": "string", "minLength": 1},
}
LANG = {
    "name": "lang",
    "in": "query",
    "required": False,
    "description": "The language of log lines and messages (default: the player's own)",
    "schema": {"type": "string", "enum": ["en", "fr"]},
}


PLAYER_ID = {
    "name": "player_id",
    "in": "path",
    "required": True,
    "description": "The player's number, as in their page's /players/<player_id>",
    "schema": {"type": "integer", "minimum": 0, "maximum": 2147483647},
}


GAME_ID = {
    "name": "game_id",
    "in": "path",
    "required": True,
    "description": "The open table's game number, as in /api/v1/open",
    "schema": {"type": "integer", "minimum": 0, "maximum": 2147483647},
}


SEEK_ID = {
    "name": "seek_id",
    "in": "path",
    "required": True,
    "description": "The seek's number, as in /api/v1/open/seeks",
    "schema": {"type": "integer", "minimum": 0, "maximum": 2147483647},
}


def _ids(path: str) -> list[dict[str, Any]]:
    named = {"{player_id}": PLAYER_ID, "{game_id}": GAME_ID, "{seek_id}": SEEK_ID}
    return [parameter for name, parameter in named.items() if name in path]


def _json(model: type[BaseModel], description: str) -> dict[str, Any]:
    schema = {"$ref": REF.format(model=model.__name__)}
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _operation(route: Route) -> dict[str, Any]:
    responses = {"200": _json(route.answer, route.answered)}
    for status in sorted(set(route.refusals)):
        responses[str(status)] = _json(Error, REFUSALS[status])
    operation: dict[str, Any] = {
        "operationId": route.operation,
        "summary": route.summary,
        "parameters": [TOKEN, LANG] if route.token else [*_ids(route.path), *route.query],
        "responses": responses,
    }
    if route.body is not None:
        operation["requestBody"] = {"required": True, "content": _json(route.body, "")["content"]}
    return operation


def schemas() -> dict[str, Any]:
    """components.schemas: every model a route reads or answers, and those they hold."""
    used: list[tuple[type[BaseModel], JsonSchemaMode]] = [(Error, "serialization")]
    for route in ROUTES:
        used.append((route.answer, "serialization"))
        if route.body is not None:
            used.append((route.body, "validation"))
    unique = list(dict.fromkeys(used))
    tops, defs = models_json_schema(unique, ref_template=REF)
    found = dict(defs.get("$defs", {}))
    # A model nothing else refers to is inlined by pydantic, not put in $defs.
    for (model, _), schema in tops.items():
        if "$ref" not in schema:
            found[model.__name__] = schema
    return dict(sorted(found.items()))


def document() -> dict[str, Any]:
    """The OpenAPI document."""
    paths: dict[str, dict[str, Any]] = {}
    for route in ROUTES:
        paths.setdefault(route.path, {})[route.method] = _operation(route)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "pbem",
            "version": "1",
            "description": "Play a pbem seat from outside: the same signed links, the same "
            "hidden information and the same rate limits as the pages.",
        },
        "paths": paths,
        "components": {"schemas": schemas()},
    }
