"""The new-game form (issue 31): a computer seat's person fields are hidden and not read,
"Who plays first" names the seats as the rows do, and the button can say "Start the game"."""

from __future__ import annotations

import re
from typing import Any

from tests.clock.helpers import seat_row, state_of
from tests.web.test_play_the_computer import computer_form


def test_the_form_names_the_seats_and_hides_a_computer_seats_person(client: Any) -> None:
    page = client.get("/").get_data(as_text=True)
    first = re.search(r'<select name="opt_colour-bazaar_first".*?</select>', page, re.S)
    assert first is not None
    options = re.findall(r'data-seat="\d"\s*>([^<]+)</option>', first.group(0))
    assert options == ["You", "Player 2", "Player 3"]
    # The computer choice comes before the person's fields it hides (static/pbem.css :has).
    row = re.search(r'<fieldset class="player" data-seat="1">.*?</fieldset>', page, re.S)
    assert row is not None
    assert row.group(0).index('class="seat-kind"') < row.group(0).index('class="person"')
    assert "required" not in row.group(0)
    assert '<span class="start" hidden>Start the game</span>' in page
    assert 'src="/static/newgame.js" defer' in page
    french = client.get("/?lang=fr").get_data(as_text=True)
    assert "Lancer la partie" in french and "Joué par" in french


def test_a_computer_seats_hidden_fields_are_not_read(client: Any, app: Any, smtpd: Any) -> None:
    form = computer_form("0", name_1="Typed before", email_1="not an address", lang_1="xx")
    assert client.post("/games", data=form).status_code == 303
    assert state_of(app).status == "active"
    assert seat_row(app, 1, 1).name == "Casual 2" and seat_row(app, 1, 1).computer == "casual"
