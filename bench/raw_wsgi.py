"""Requests as a browser sends them, handed to a WSGI app as raw environs.

The benches count what the server does for a request, not what a test client does to
make one: Flask's test client builds each environ through werkzeug's EnvironBuilder and
reads the answer back through a response wrapper, about 0.6M instructions a request. Here
an environ is a plain dict with the headers a phone's browser sends (its user agent, the
accepted types, languages and encodings, the cookie the page set, the origin of a form),
the body a BytesIO, and the answer read by iterating the app's iterable, as a WSGI server
does. pbem's app and the floor's get the same environs.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urlencode, urlsplit

HOST = "127.0.0.1:8000"
BROWSER = {
    "HTTP_USER_AGENT": (
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko)"
        " Chrome/131.0.0.0 Mobile Safari/537.36"
    ),
    "HTTP_ACCEPT": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "HTTP_ACCEPT_LANGUAGE": "en-GB,en;q=0.9,fr;q=0.8",
    "HTTP_ACCEPT_ENCODING": "gzip, deflate, br, zstd",
    "HTTP_SEC_FETCH_SITE": "same-origin",
    "HTTP_SEC_FETCH_MODE": "navigate",
    "HTTP_CONNECTION": "keep-alive",
}

Answer = tuple[int, dict[str, str], bytes]


def environ(
    method: str,
    target: str,
    body: bytes = b"",
    content_type: str = "",
    cookie: str = "",
    accept: str = "",
) -> dict[str, Any]:
    """A WSGI environ for `method` on `target` (a path, with a query or not) as a browser
    on HOST sends it; the body read from a fresh stream."""
    parts = urlsplit(target)
    env: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": parts.path,
        "QUERY_STRING": parts.query,
        "SERVER_NAME": HOST.split(":")[0],
        "SERVER_PORT": HOST.split(":")[1],
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "REMOTE_PORT": "50000",
        "HTTP_HOST": HOST,
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": io.StringIO(),
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        **BROWSER,
    }
    if accept:
        env["HTTP_ACCEPT"] = accept
    if body or method == "POST":
        env["CONTENT_LENGTH"] = str(len(body))
        env["CONTENT_TYPE"] = content_type
        env["HTTP_ORIGIN"] = f"http://{HOST}"
        env["HTTP_REFERER"] = f"http://{HOST}{parts.path}"
    if cookie:
        env["HTTP_COOKIE"] = cookie
    return env


def call(app: Callable[..., Any], env: dict[str, Any]) -> Answer:
    """The app's answer to `env`: its status, headers and body, read as a server reads it."""
    got: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        got["status"], got["headers"] = status, headers
        return lambda data: None

    iterable = app(env, start_response)
    try:
        body = b"".join(iterable)
    finally:
        close = getattr(iterable, "close", None)
        if close is not None:
            close()
    headers: dict[str, str] = {}
    for name, value in got["headers"]:
        headers[name.lower()] = value if name.lower() not in headers else headers[name.lower()]
    cookies = [value for name, value in got["headers"] if name.lower() == "set-cookie"]
    if cookies:
        headers["set-cookie"] = "\n".join(cookies)
    return int(got["status"].split(" ", 1)[0]), headers, body


def get(app: Callable[..., Any], target: str, cookie: str = "", **extra: str) -> Answer:
    """A GET of `target` as a browser sends it (extra headers as environ keys)."""
    env = environ("GET", target, cookie=cookie)
    env.update(extra)
    return call(app, env)


def post_form(
    app: Callable[..., Any], target: str, fields: dict[str, str], cookie: str = ""
) -> Answer:
    """A form POST to `target`, as the page's form sends it."""
    body = urlencode(fields).encode()
    kind = "application/x-www-form-urlencoded"
    return call(app, environ("POST", target, body, kind, cookie))


def post_json(app: Callable[..., Any], target: str, data: Any) -> Answer:
    """A JSON POST to `target`, as an API client sends it."""
    body = json.dumps(data).encode()
    return call(app, environ("POST", target, body, "application/json", accept="application/json"))


def cookie_of(answer: Answer, before: str = "") -> str:
    """The Cookie header a browser sends after `answer` (its Set-Cookie over `before`)."""
    jar = SimpleCookie()
    if before:
        jar.load(before)
    for line in answer[1].get("set-cookie", "").split("\n"):
        if line:
            jar.load(line)
    return "; ".join(f"{key}={morsel.value}" for key, morsel in jar.items())
