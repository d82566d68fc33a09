"""Request bodies are bounded: a small limit for every route, a smaller one for the API.

Past its limit a body gets 413 and is never read in full, whether it comes with a
Content-Length or chunked. Werkzeug checks a Content-Length before reading; a chunked
body has no length to check, and Werkzeug's limit only stops reading it (the form then
holds a truncated body), so it is read here up to the limit and refused if more follows.
"""

from __future__ import annotations

from flask import Flask, abort, request
from werkzeug.wrappers import Response

from pbem.web import api

# No form of ours comes near this (a new game of eight players is about 3 KiB, a talk
# message of 1,000 characters at most 9 KiB).
MAX_BODY = 64 * 1024
API_MAX_BODY = 16 * 1024  # a move is a few hundred bytes
# An exported log sent to /verify: a long Fantasy Business game's is a few hundred KiB.
EXPORT_MAX_BODY = 2 * 1024 * 1024


def bound_body() -> None:
    """Set this request's limit; read a chunked body whole (up to it) or answer 413."""
    if api.is_api():
        request.max_content_length = API_MAX_BODY
    elif request.path == "/verify":
        request.max_content_length = EXPORT_MAX_BODY
        request.max_form_memory_size = EXPORT_MAX_BODY
    else:
        request.max_content_length = MAX_BODY
    if request.content_length is None and request.environ.get("wsgi.input_terminated"):
        request.get_data(cache=True)  # the form is parsed from what this keeps
        if request.environ["wsgi.input"].read(1):
            abort(413)


def close_after_413(response: Response) -> Response:
    """Close the connection with a 413: a server keeping it open would read the rest of
    the body, to find the next request after it (gunicorn's threaded workers do)."""
    if response.status_code == 413:
        response.headers["Connection"] = "close"
    return response


def init_app(app: Flask) -> None:
    """Bound every request's body, before anything reads it (the form token check does)."""
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.before_request(bound_body)
    app.after_request(close_after_413)
