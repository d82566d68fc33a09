"""The OpenAPI 3.1 document of the JSON API, generated from its models and a route table.

components.schemas comes from the pydantic models of pbem.web.apimodels; paths come
from ROUTES (pbem.web.apiroutes and apisiteroutes), which names each route's body,
answer and every refusal it can give.
tests/web/test_openapi.py walks the routes and checks that each status they answer
is listed here, and that each listed one is answered.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from pbem.web.apimodels import Error
from pbem.web.apiroutes import SEAT_ROUTES, Route
from pbem.web.apisiteroutes import SITE_ROUTES

REF = "#/components/schemas/{model}"

# What each refusal means; a route lists those it can give.
REFUSALS = {
    400: "The body or the move cannot be taken (see message); for a vacation: one is "
    "already under way, none is, or the year's allowance is spent; for an open table or a "
    "league: a field its page's form refuses, with the page's message",
    401: "No player is signed in on this device: these routes act for the player the "
    "pages' session cookie names (sign in on the site first)",
    403: "Sent from another site (Origin or Sec-Fetch-Site): refused; or the operator "
    "barred the account from open tables and leagues",
    404: "No such link, or a revoked one; no such player or open table (another player's, "
    "to withdraw), or a number past the largest one",
    405: "This method is not allowed at this path (Allow lists those that are)",
    409: "The turn was already played (stale), or the game is not being played; for a take "
    "back: nothing to take back or answer now, or a request already waiting; for a join: "
    "the table or league no longer takes players, or not this one (see message); for a "
    "withdrawal: the table no longer waits (started or called off)",
    413: "The body is larger than 16 KiB (sized or chunked): refused unread",
    415: "The body is not application/json",
    429: "Too many wrong links from this address, or (signed in) past an allowance of the "
    "pages': joins, posts, tables waiting, new leagues, invitations (see message)",
    503: "The database is not answering: nothing was changed",
}
ROUTES: tuple[Route, ...] = (*SEAT_ROUTES, *SITE_ROUTES)

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


def _number(name: str, description: str) -> dict[str, Any]:
    """A path's number parameter, as the routes take them (<int(max=2147483647):name>)."""
    return {
        "name": name,
        "in": "path",
        "required": True,
        "description": description,
        "schema": {"type": "integer", "minimum": 0, "maximum": 2147483647},
    }


NUMBERS = {
    "{player_id}": _number("player_id", "The player's number, as in their page's /players/<id>"),
    "{game_id}": _number("game_id", "The open table's game number, as in /api/v1/open"),
    "{seek_id}": _number("seek_id", "The seek's number, as in /api/v1/open/seeks"),
}


def _ids(path: str) -> list[dict[str, Any]]:
    return [parameter for name, parameter in NUMBERS.items() if name in path]


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
