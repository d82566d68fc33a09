"""The OpenAPI 3.0 document of the JSON API, written by hand to say exactly what it answers."""

from __future__ import annotations

from typing import Any


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*codes: int) -> dict[str, Any]:
    words = {
        400: "The body or the move cannot be taken (see message)",
        403: "Sent from another site (Origin or Sec-Fetch-Site): refused",
        404: "No such link, or a revoked one",
        405: "This method is not allowed at this path (Allow lists those that are)",
        409: "The turn was already played, or the game is not being played",
        413: "The body is larger than 16 KiB (sized or chunked): refused unread",
        415: "The body is not application/json",
        429: "Too many wrong links from this address: wait and try again",
        503: "The database is not answering: nothing was changed",
    }
    return {str(code): _json(_ref("Error"), words[code]) for code in codes}


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
NULLABLE_TIME = {"type": "string", "format": "date-time", "nullable": True}

SCHEMAS: dict[str, Any] = {
    "Error": {
        "type": "object",
        "required": ["error", "message"],
        "properties": {
            "error": {
                "type": "string",
                "description": "A stable code",
                "enum": [
                    "bad_json",
                    "bad_request",
                    "bad_move",
                    "illegal",
                    "stale",
                    "not_active",
                    "not_found",
                    "method_not_allowed",
                    "too_large",
                    "unsupported_media_type",
                    "rate_limited",
                    "forbidden",
                    "unavailable",
                    "http_error",
                ],
            },
            "message": {"type": "string", "description": "Why, in the reader's language"},
        },
    },
    "Seat": {
        "type": "object",
        "required": ["seat", "name", "status", "deadline", "away_until", "absent", "computer"],
        "properties": {
            "seat": {"type": "integer", "minimum": 0},
            "name": {"type": "string"},
            "status": {"type": "string", "enum": ["invited", "joined", "declined"]},
            "deadline": NULLABLE_TIME,
            "away_until": NULLABLE_TIME,
            "absent": {"type": "boolean"},
            "computer": {
                "type": ["string", "null"],
                "description": (
                    "The level of the computer that plays this seat now (a computer seat, "
                    "or an absent person's seat the game hands over), or null."
                ),
            },
        },
    },
    "Game": {
        "type": "object",
        "required": ["id", "slug", "status", "ply", "days_per_move", "seats", "to_act", "outcome"],
        "properties": {
            "id": {"type": "integer"},
            "slug": {"type": "string", "enum": ["colour-bazaar", "fantasy-business"]},
            "status": {"type": "string", "enum": ["forming", "active", "over", "cancelled"]},
            "ply": {"type": "integer", "minimum": 0, "description": "Moves played so far"},
            "days_per_move": {"type": "integer", "nullable": True},
            "seats": {"type": "array", "items": _ref("Seat")},
            "to_act": {"type": "array", "items": {"type": "integer", "minimum": 0}},
            "outcome": {
                "type": "object",
                "nullable": True,
                "description": "Scores, ranks and their breakdown, once the game is over",
            },
        },
    },
    "LogLine": {
        "type": "object",
        "required": ["ply", "seat", "source", "text"],
        "properties": {
            "ply": {"type": "integer", "minimum": 0},
            "seat": {"type": "integer", "minimum": 0},
            "source": {"type": "string", "description": "web, timeout, cli, ..."},
            "text": {"type": "array", "items": {"type": "string"}},
        },
    },
    "View": {
        "type": "object",
        "required": [
            "game",
            "seat",
            "lang",
            "view",
            "legal_moves",
            "turn",
            "log",
            "log_from",
        ],
        "properties": {
            "game": _ref("Game"),
            "seat": {
                "type": "integer",
                "nullable": True,
                "description": "The reader's seat; null for an onlooker",
            },
            "lang": {"type": "string", "enum": ["en", "fr"]},
            "view": {
                "type": "object",
                "nullable": True,
                "description": "The game as this reader may see it (the rules' view); null "
                "before the game starts",
            },
            "legal_moves": {
                "type": "array",
                "items": {"type": "object"},
                "description": "Moves the rules accept now (for bids and prices a sample: any "
                "amount in range is accepted); empty when the reader may not move",
            },
            "turn": {
                "type": "string",
                "nullable": True,
                "description": "The turn token to send with a move; null when the reader may "
                "not move",
            },
            "log": {
                "type": "array",
                "items": _ref("LogLine"),
                "description": "The last moves, as this reader may read them",
            },
            "log_from": {"type": "integer", "minimum": 0, "description": "The first ply in log"},
        },
    },
    "MoveRequest": {
        "type": "object",
        "required": ["turn", "move"],
        "properties": {
            "turn": {"type": "string", "description": "The turn token from the view"},
            "move": {"type": "object", "description": "A move shaped as in legal_moves"},
        },
    },
}


def document() -> dict[str, Any]:
    """The OpenAPI document."""
    view = _json(_ref("View"), "The game as this reader may see it")
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "pbem",
            "version": "1",
            "description": "Play a pbem seat from outside: the same signed links, the same "
            "hidden information and the same rate limits as the pages.",
        },
        "paths": {
            "/api/v1/seat/{token}": {
                "get": {
                    "operationId": "seatView",
                    "summary": "A seat's view, legal moves, deadlines and turn token",
                    "parameters": [TOKEN, LANG],
                    "responses": {"200": view, **_errors(404, 405, 429, 503)},
                }
            },
            "/api/v1/seat/{token}/move": {
                "post": {
                    "operationId": "seatMove",
                    "summary": "Play a move for the turn it names",
                    "parameters": [TOKEN, LANG],
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": _ref("MoveRequest")}},
                    },
                    "responses": {
                        "200": _json(_ref("View"), "The move is played: the new view"),
                        **_errors(400, 403, 404, 405, 409, 413, 415, 429, 503),
                    },
                }
            },
            "/api/v1/watch/{token}": {
                "get": {
                    "operationId": "watchView",
                    "summary": "The onlooker's view: no hand, no secret",
                    "parameters": [TOKEN, LANG],
                    "responses": {"200": view, **_errors(404, 405, 429, 503)},
                }
            },
        },
        "components": {"schemas": SCHEMAS},
    }
