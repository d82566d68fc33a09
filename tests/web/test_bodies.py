"""Request bodies are bounded: past the limit a POST gets 413, sized or chunked, and the
rest of the body is never read (pbem.web.bodies).

tests/live/test_gunicorn_facing.py sends a real chunked body to gunicorn as well.
"""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from werkzeug.test import EnvironBuilder, run_wsgi_app

from pbem.web.bodies import API_MAX_BODY, EXPORT_MAX_BODY, MAX_BODY
from tests.web.helpers import acting, api, counts, post_move, start_game

HUGE = 256 * 1024 * 1024
SLACK = 64 * 1024  # what a parser may read ahead in one go past the limit


class Endless(io.RawIOBase):
    """A request body of 256 MB, counting what the server read of it (it gives up after
    CAP bytes, so that a server that reads on fails the test rather than hangs)."""

    CAP = 8 * 1024 * 1024

    def __init__(self) -> None:
        self.taken = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        size = min(len(buffer), self.CAP - self.taken)
        buffer[:size] = b"a" * size
        self.taken += size
        return size


def send_body(app: Any, path: str, content_type: str, chunked: bool) -> tuple[int, int]:
    """POST an endless body to `path`, chunked or with a Content-Length of 256 MB, as a
    WSGI server would hand it over; (status, bytes the app read)."""
    environ = EnvironBuilder(path=path, method="POST", content_type=content_type).get_environ()
    body = Endless()
    environ["wsgi.input"] = body
    if chunked:
        # What gunicorn says of a chunked body: no length, but the stream ends by itself.
        environ.pop("CONTENT_LENGTH", None)
        environ["HTTP_TRANSFER_ENCODING"] = "chunked"
        environ["wsgi.input_terminated"] = True
    else:
        environ["CONTENT_LENGTH"] = str(HUGE)
    answer, status, _ = run_wsgi_app(app, environ)
    b"".join(answer)
    return int(status.split()[0]), body.taken


def post_paths(app: Any, seat: str, watch: str) -> list[str]:
    """Every path a POST is routed to, with the game's real links in it."""
    paths = []
    for rule in app.url_map.iter_rules():
        if "POST" not in (rule.methods or ()):
            continue
        path = re.sub(r"<int(?:\([^)]*\))?:\w+>", "1", rule.rule)
        path = path.replace("/p/<token>", seat).replace("/w/<token>", watch)
        path = path.replace("/seat/<token>", "/seat/" + seat.rsplit("/", 1)[1])
        paths.append(re.sub(r"<[^>]+>", "x", path))
    return paths


@pytest.mark.parametrize("chunked", [True, False], ids=["chunked", "sized"])
def test_no_post_route_reads_a_huge_body(client: Any, app: Any, smtpd: Any, chunked: bool) -> None:
    links, _ = start_game(client, app, smtpd)
    seat = acting(client, links)
    page = client.get(seat).get_data(as_text=True)
    watch = "/w/" + page.split('href="http://pbem.test/w/')[1].split('"')[0]
    before = counts(app)
    paths = post_paths(app, seat, watch)
    assert {"/signin", "/games", f"{seat}/move", f"{api(seat)}/move"} <= set(paths)
    for path in paths:
        kind = (
            "application/json"
            if path.startswith("/api/")
            else ("application/x-www-form-urlencoded")
        )
        status, taken = send_body(app, path, kind, chunked)
        limit = API_MAX_BODY if path.startswith("/api/") else MAX_BODY
        if path == "/verify":  # an exported log, a few hundred KiB at most
            limit = EXPORT_MAX_BODY
        assert taken <= limit + SLACK, f"{path} read {taken} bytes"
        if taken or path in ("/signin", "/games", f"{seat}/move", f"{api(seat)}/move"):
            assert status == 413, f"{path}: {status}"
    assert counts(app) == before


def test_the_api_takes_16_kib_and_answers_413_in_json(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    link = acting(client, links)
    view = client.get(api(link)).get_json()
    padded = {"turn": view["turn"], "move": view["legal_moves"][0], "pad": "x" * API_MAX_BODY}
    answer = post_move(client, link, padded)
    assert answer.status_code == 413 and answer.get_json()["error"] == "too_large"
    small = {"turn": view["turn"], "move": view["legal_moves"][0], "pad": "x" * 1000}
    assert post_move(client, link, small).status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        "[" * 1000,
        "[" * 5000 + "]" * 5000,
        '{"turn": "1", "move": ' + '{"a": ' * 2000 + "1" + "}" * 2001,
        "{",
        "\xff\xfe",
    ],
    ids=["open-brackets", "deep-list", "deep-move", "unclosed", "not-utf8"],
)
def test_unreadable_json_is_400_bad_json(client: Any, app: Any, smtpd: Any, body: str) -> None:
    links, _ = start_game(client, app, smtpd)
    link = acting(client, links)
    before = counts(app)
    answer = client.post(
        f"{api(link)}/move",
        data=body.encode("latin-1"),
        content_type="application/json",
        raw=True,
    )
    assert answer.status_code == 400, answer.get_data(as_text=True)[:200]
    assert answer.get_json()["error"] == "bad_json" and answer.get_json()["message"]
    assert counts(app) == before
