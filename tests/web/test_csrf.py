"""Every POST form carries a token tied to its link; cross-site posts are refused."""

from __future__ import annotations

import time
from typing import Any

from pbem.web.csrf import csrf_token
from tests.web.helpers import PLAYERS, first_mover, snapshot


def lobby_form() -> dict[str, str]:
    form = {"game": "colour-bazaar"}
    for row, (name, email) in enumerate(PLAYERS):
        form[f"name_{row}"], form[f"email_{row}"] = name, email
    return form


def test_lobby_post_without_a_token_is_refused(client: Any, app: Any) -> None:
    response = client.post("/games", data=lobby_form(), raw=True)
    assert response.status_code == 400
    assert "This form is too old, or did not come from this site" in response.get_data(as_text=True)
    page = client.get("/").get_data(as_text=True)
    token = page.split('name="csrf" value="')[1].split('"')[0]
    assert client.post("/games", data={**lobby_form(), "csrf": token}, raw=True).status_code == 303


def test_move_tokens_belong_to_their_link_and_last_for_days(
    client: Any, app: Any, smtpd: Any, monkeypatch: Any
) -> None:
    link, data, links = first_mover(client, app, smtpd)
    before = snapshot(app)
    missing = {k: v for k, v in data.items() if k != "csrf"}
    assert client.post(f"{link}/move", data=missing, raw=True).status_code == 400
    other = next(x for x in links.values() if x != link)
    with app.test_request_context():
        wrong = {**data, "csrf": csrf_token(other.rsplit("/", 1)[1])}  # another seat's token
    assert client.post(f"{link}/move", data=wrong, raw=True).status_code == 400
    assert snapshot(app) == before
    # A form opened 61 days ago is refused; one opened two days ago still goes through.
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() - 61 * 86400)
    old_page = client.get(link).get_data(as_text=True)
    monkeypatch.setattr(time, "time", lambda: real() - 2 * 86400)
    two_days = client.get(link).get_data(as_text=True)
    monkeypatch.setattr(time, "time", real)
    stale = old_page.split('name="csrf" value="')[1].split('"')[0]
    fresh = two_days.split('name="csrf" value="')[1].split('"')[0]
    assert client.post(f"{link}/move", data={**data, "csrf": stale}, raw=True).status_code == 400
    assert snapshot(app) == before
    assert client.post(f"{link}/move", data={**data, "csrf": fresh}, raw=True).status_code == 303


def test_cross_site_posts_are_refused(client: Any, app: Any, smtpd: Any) -> None:
    link, data, _ = first_mover(client, app, smtpd)
    before = snapshot(app)
    evil = {"Origin": "https://evil.example"}
    assert client.post(f"{link}/move", data=data, headers=evil, raw=True).status_code == 403
    cross = {"Sec-Fetch-Site": "cross-site"}
    assert client.post(f"{link}/move", data=data, headers=cross, raw=True).status_code == 403
    assert snapshot(app) == before
    same = {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"}
    assert client.post(f"{link}/move", data=data, headers=same, raw=True).status_code == 303
