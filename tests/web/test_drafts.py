"""The move under review kept between "Review the move" and "Send" (pbem/web/drafts.py): a
page of its own that survives a reload, and nothing a forged, stale or oversized cookie
can turn into an error or a move."""

from __future__ import annotations

import base64
import json
from typing import Any

from tests.web.helpers import (
    ANA,
    LEO,
    form_with,
    hidden,
    new_game,
    play_turn,
    radio_values,
    review_page,
    state_of,
)


def choice(client: Any, link: str) -> dict[str, str]:
    form = form_with(client.get(link).get_data(as_text=True), "/move")
    return {
        **hidden(form),
        "play": radio_values(form, "play")[0],
        "chip": radio_values(form, "chip")[0],
    }


def cookie(client: Any, link: str, value: str) -> None:
    client.set_cookie("pbem_draft", value, path=link)


def test_the_review_is_a_page_that_reloads_and_sends_nothing(
    client: Any, app: Any, smtpd: Any
) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO])
    ana = links[ANA[1]]
    posted = client.post(f"{ana}/move", data=choice(client, ana))
    assert posted.status_code == 303
    assert posted.headers["Location"].endswith("?review=1#confirm")
    # The choices are in a cookie for the seat's own address, not in the address.
    assert "play=" not in posted.headers["Location"]
    (set_cookie,) = posted.headers.getlist("Set-Cookie")
    assert f"Path={ana}" in set_cookie and "HttpOnly" in set_cookie
    for _ in range(2):  # read again: still the review, still no move
        page = client.get(f"{ana}?review=1").get_data(as_text=True)
        assert "Check your move" in page and "Review the move" not in page
    french = client.get(f"{ana}?review=1&lang=fr").get_data(as_text=True)
    assert "Vérifiez votre coup" in french
    assert state_of(app, 1).ply == 0


def test_a_garbled_or_forged_draft_shows_the_table(client: Any, app: Any, smtpd: Any) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO])
    ana = links[ANA[1]]
    turn = hidden(form_with(client.get(ana).get_data(as_text=True), "/move"))["turn"]
    forged = {"turn": turn, "play": "no-such-card@9", "chip": "moons"}
    for value in (
        "!!not base64!!",
        base64.urlsafe_b64encode(b"[1, 2]").decode(),
        base64.urlsafe_b64encode(b"{not json").decode(),
        base64.urlsafe_b64encode(json.dumps(forged).encode()).decode(),
        "A" * 3600,  # longer than a draft may be
    ):
        cookie(client, ana, value)
        page = client.get(f"{ana}?review=1")
        assert page.status_code == 200, value[:40]
        html = page.get_data(as_text=True)
        assert "Check your move" not in html and "Review the move" in html
    assert state_of(app, 1).ply == 0


def test_a_draft_of_an_older_turn_is_not_reviewed(client: Any, app: Any, smtpd: Any) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO])
    ana, leo = links[ANA[1]], links[LEO[1]]
    old = choice(client, ana)
    assert review_page(client, ana, old).status_code == 200
    play_turn(client, ana)
    play_turn(client, leo)
    # Ana's turn again: the draft was for her first turn.
    cookie(client, ana, base64.urlsafe_b64encode(json.dumps(old).encode()).decode())
    html = client.get(f"{ana}?review=1").get_data(as_text=True)
    assert "Check your move" not in html and "Review the move" in html
