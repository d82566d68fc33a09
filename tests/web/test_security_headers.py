"""Seat pages carry their secret in the URL: every answer limits where it can leak."""

from __future__ import annotations

from typing import Any

from tests.app import make_test_app
from tests.web.helpers import start_game

EXPECTED = {
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
}


def check_headers(response: Any, where: str) -> None:
    for name, value in EXPECTED.items():
        if name == "Cache-Control" and where == "stylesheet":
            continue  # our own stylesheet holds no secret; browsers may revalidate it
        assert response.headers.get(name) == value, f"{name} on {where}"
    policy = response.headers.get("Content-Security-Policy", "")
    assert "frame-ancestors 'none'" in policy, where
    assert "'unsafe-inline'" not in policy and "script-src 'self'" in policy, where


def test_every_answer_carries_the_security_headers(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd, courts=True)
    link = next(iter(links.values()))
    answers = {
        "home": client.get("/"),
        "seat page": client.get(link),
        "settings": client.get(f"{link}/settings"),
        "stylesheet": client.get("/static/pbem.css"),
        "bad link": client.get("/p/not-a-link"),
        "redirect": client.post(f"{link}/talk", data={"text": "hello", "to": "all"}),
        "refused form": client.post(f"{link}/move", data={"turn": "x"}, raw=True),
        "wrong method": client.put("/games"),
    }
    for where, response in answers.items():
        check_headers(response, where)


def test_pages_need_no_inline_script_or_style(client: Any, app: Any, smtpd: Any) -> None:
    """The CSP allows only our own files: a page with inline code would break under it."""
    links, _ = start_game(client, app, smtpd, courts=True)
    link = next(iter(links.values()))
    for path in ("/", link, f"{link}/settings", f"{link}?lang=fr"):
        page = client.get(path).get_data(as_text=True)
        assert "<script>" not in page and " style=" not in page and "<style" not in page, path
        assert " onclick=" not in page and "javascript:" not in page, path


def test_redirects_use_the_base_url_whatever_the_host(client: Any, app: Any, smtpd: Any) -> None:
    evil = {"Host": "evil.test"}
    for path in ("/p//settings", "/mailbox", "/p//", "//evil.test/"):
        response = client.get(path, headers=evil)
        location = response.headers.get("Location", "")
        assert "evil.test" not in location, (path, response.status_code, location)
    links, _ = start_game(client, app, smtpd)
    link = next(iter(links.values()))
    moved = client.post(f"{link}/talk", data={"text": "hi", "to": "all"}, headers=evil)
    assert moved.status_code == 303 and "evil.test" not in moved.headers["Location"]
    created = client.post(
        "/games",
        data={
            "game": "colour-bazaar",
            "name_0": "A",
            "email_0": "a@example.org",
            "name_1": "B",
            "email_1": "b@example.org",
        },
        headers=evil,
    )
    assert created.status_code == 303 and "evil.test" not in created.headers["Location"]


def test_a_site_served_over_https_asks_for_https_only(
    database_url: str, clock: Any, smtpd: Any, tmp_path: Any
) -> None:
    """HSTS on every answer of an https site (a year), none on a plain http one."""
    secure = make_test_app(database_url, clock, smtpd, tmp_path, BASE_URL="https://pbem.test")
    plain = make_test_app(database_url, clock, smtpd, tmp_path)
    for app in (secure, plain):
        client = app.test_client()
        answers = [client.get("/"), client.get("/p/not-a-link"), client.put("/games")]
        answers.append(client.get("/static/pbem.css"))
        for answer in answers:
            hsts = answer.headers.get("Strict-Transport-Security")
            if app is secure:
                assert hsts == "max-age=31536000", answer.status
            else:
                assert hsts is None, answer.status
        app.extensions["pbem"]["engine"].dispose()
