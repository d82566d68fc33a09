""" "Rated" is an option of a private game: a checkbox on the new-game form, shown on the page."""

from __future__ import annotations

from typing import Any

from tests.web.helpers import computer_form, state_of


def test_the_form_offers_rated_and_the_game_page_says_so(client: Any, app: Any) -> None:
    page = client.get("/").get_data(as_text=True)
    assert 'name="rated" value="1"' in page
    made = client.post("/games", data=computer_form("0", rated="1"))
    assert made.status_code == 303
    assert state_of(app).rated is True
    assert "Rated game" in client.get(made.headers["Location"]).get_data(as_text=True)


def test_a_game_is_unrated_unless_asked(client: Any, app: Any) -> None:
    made = client.post("/games", data=computer_form("0"))
    assert made.status_code == 303
    assert state_of(app).rated is False
    assert "Rated game" not in client.get(made.headers["Location"]).get_data(as_text=True)


def test_the_leave_page_of_a_rated_game_says_leaving_counts_as_a_loss(
    client: Any, app: Any
) -> None:
    warning = "leaving resigns it, and your rating counts it as a loss"
    for rated in ("1", ""):
        made = client.post("/games", data=computer_form("0", rated=rated))
        page = client.get(f"{made.headers['Location']}/leave").get_data(as_text=True)
        assert (warning in page) == bool(rated)
        french = client.get(f"{made.headers['Location']}/leave?lang=fr").get_data(as_text=True)
        assert ("votre classement la compte comme une défaite" in french) == bool(rated)
