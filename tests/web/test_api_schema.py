"""Schemathesis over the OpenAPI document: no answer is a 5xx, and every one fits the schema."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from pbem.web.openapi import document
from tests.web.helpers import start_game

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


# The document as the app serves it (test_the_served_document_is_this_one checks that);
# real links of a started game are mixed into the generated ones by the hooks below.
schema = schemathesis.openapi.from_dict(document())
REAL: dict[str, Any] = {"seats": [], "watch": [], "client": None}


@schema.hook
def flatmap_path_parameters(context: Any, path: dict[str, Any]) -> Any:
    if path is None:  # a route with no token (the document itself)
        return st.just(path)
    real = REAL["seats"] if "/seat/" in context.operation.path else REAL["watch"]
    return st.sampled_from([path, *({**path, "token": t} for t in real)])


@schema.hook
def flatmap_body(context: Any, body: Any) -> Any:  # noqa: ARG001
    """Half the time, the move a seat may really make now, so 200s are checked too."""

    def real_move(token: str) -> Any:
        view = REAL["client"].get(f"/api/v1/seat/{token}").get_json() or {}
        if not view.get("turn"):
            return body
        return {"turn": view["turn"], "move": view["legal_moves"][0]}

    if not REAL["seats"]:
        return st.just(body)
    return st.one_of(st.just(body), st.sampled_from(REAL["seats"]).map(real_move))


@pytest.fixture
def started(client: Any, app: Any, smtpd: Any) -> Any:
    """A started three-player game whose links the hooks use."""
    links, _ = start_game(client, app, smtpd)
    page = client.get(next(iter(links.values()))).get_data(as_text=True)
    REAL["seats"] = [link.rsplit("/", 1)[-1] for link in links.values()]
    REAL["watch"] = [page.split('href="http://pbem.test/w/')[1].split('"')[0]]
    REAL["client"] = client
    yield app
    REAL.update(seats=[], watch=[], client=None)


def test_the_served_document_is_this_one(client: Any) -> None:
    assert client.get("/api/v1/openapi.json").get_json() == document()


@schema.parametrize()
@settings(
    max_examples=25,
    derandomize=True,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
)
def test_api_answers_fit_the_document(case: Any, started: Any) -> None:
    case.call_and_validate(app=started, checks=CHECKS)


def test_the_document_lists_every_refusal_the_api_gives(started: Any) -> None:
    """403 (cross-site), 405 (another method), 413 (too large, sized or chunked), and
    the rest: each answer's status is listed at its path, and its code in Error's enum."""
    client = started.test_client()
    seat, watch = REAL["seats"][0], REAL["watch"][0]
    view = client.get(f"/api/v1/seat/{seat}").get_json()
    move = {"turn": view["turn"] or "0", "move": {}}
    tried = {
        ("/api/v1/seat/{token}/move", 403): client.post(
            f"/api/v1/seat/{seat}/move",
            json=move,
            headers={"Origin": "https://evil.test"},
            raw=True,
        ),
        ("/api/v1/seat/{token}/move", 405): client.get(f"/api/v1/seat/{seat}/move"),
        ("/api/v1/seat/{token}", 405): client.put(f"/api/v1/seat/{seat}"),
        ("/api/v1/watch/{token}", 405): client.delete(f"/api/v1/watch/{watch}"),
        ("/api/v1/seat/{token}/move", 413): client.post(
            f"/api/v1/seat/{seat}/move", json={**move, "pad": "x" * 20_000}, raw=True
        ),
        ("/api/v1/seat/{token}/move", 400): client.post(
            f"/api/v1/seat/{seat}/move", data="[" * 2000, content_type="application/json", raw=True
        ),
        ("/api/v1/seat/{token}/move", 415): client.post(
            f"/api/v1/seat/{seat}/move", data={"turn": "1"}, raw=True
        ),
        ("/api/v1/seat/{token}", 404): client.get(f"/api/v1/seat/{seat}x"),
    }
    paths = document()["paths"]
    codes = document()["components"]["schemas"]["Error"]["properties"]["error"]["enum"]
    for (path, status), answer in tried.items():
        assert answer.status_code == status, (path, status, answer.get_json())
        listed = {code for operation in paths[path].values() for code in operation["responses"]}
        assert str(status) in listed, (path, status)
        assert answer.get_json()["error"] in codes, answer.get_json()
    assert "Allow" in tried[("/api/v1/seat/{token}", 405)].headers
