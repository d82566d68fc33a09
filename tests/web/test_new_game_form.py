"""The new-game form (issue 31): a computer seat's person fields are hidden and not read,
"Who plays first" names the seats as the rows do, and the button can say "Start the game"."""

from __future__ import annotations

import re
from typing import Any

from tests.clock.helpers import new_game
from tests.web.helpers import ANA, LEO, computer_form, seat_row, sign_in, state_of


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


# --- the clock kinds: each its own fieldset, its radio first (issue 47) ----------------------


def clock_kinds(page: str) -> dict[str, str]:
    """Each clock kind's fieldset on the form, by kind."""
    return dict(
        re.findall(r'<fieldset class="clock-kind" data-kind="(\w+)">(.*?)</fieldset>', page, re.S)
    )


def field_names(html: str) -> set[str]:
    return set(re.findall(r'<(?:input|select)[^>]* name="(\w+)"', html))


def test_each_clock_kind_shows_its_own_fields_under_its_radio(client: Any) -> None:
    for lang, move_words in (("en", "Days per move"), ("fr", "Jours par coup")):
        kinds = clock_kinds(client.get(f"/?lang={lang}").get_data(as_text=True))
        assert list(kinds) == ["move", "fischer", "bank"]
        for kind, html in kinds.items():
            # The legend leads with the kind's own radio; its fields follow, in the fieldset.
            legend = re.search(r"<legend>(.*?)</legend>", html, re.S)
            assert legend is not None
            assert re.match(
                rf'<label class="choice"><input type="radio" name="clock" value="{kind}"',
                legend.group(1),
            )
        assert move_words in kinds["move"]
        assert field_names(kinds["move"]) == {"clock"}  # "Days per move" needs nothing more
        assert field_names(kinds["fischer"]) == {"clock", "clock_add", "clock_cap_fischer"}
        assert field_names(kinds["bank"]) == {"clock", "clock_cap_bank"}
    assert 'value="move" checked' in client.get("/").get_data(as_text=True)


def test_only_the_chosen_kinds_most_days_is_read(client: Any, app: Any, smtpd: Any) -> None:
    both = {"clock_cap_fischer": "9", "clock_cap_bank": "2", "clock_add": "2"}
    new_game(client, app, smtpd, [ANA, LEO], days_per_move="3", clock="bank", **both)
    game = state_of(app, 1)
    assert (game.clock, game.clock_add, game.clock_cap) == ("bank", None, 2)
    new_game(client, app, smtpd, [ANA, LEO], days_per_move="3", clock="fischer", **both)
    game = state_of(app, 2)
    assert (game.clock, game.clock_add, game.clock_cap) == ("fischer", 2, 9)


def test_a_refused_form_comes_back_with_the_kind_and_its_fields(client: Any) -> None:
    form = {
        "game": "colour-bazaar",
        "name_0": "Ana",
        "email_0": "ana@example.org",
        "name_1": "Léo",
        "email_1": "leo@example.org",
        "days_per_move": "5",
        "clock": "fischer",
        "clock_add": "3",
        "clock_cap_fischer": "4",  # less than the 5 days it starts with: refused
    }
    answer = client.post("/games", data=form)
    assert answer.status_code == 400
    page = answer.get_data(as_text=True)
    assert '<details class="clock-more" open>' in page
    kinds = clock_kinds(page)
    assert 'value="fischer" checked' in kinds["fischer"] and "checked" not in kinds["move"]
    assert 'name="clock_cap_fischer" min="1" max="60" inputmode="numeric" value="4"' in page
    assert '<option value="3" selected>3 days</option>' in kinds["fischer"]


# --- a signed-in creator's own row (issue 47) -----------------------------------------------


def test_a_signed_in_player_finds_their_name_and_address_filled_in(
    client: Any, app: Any, smtpd: Any
) -> None:
    blank = client.get("/").get_data(as_text=True)
    assert 'name="name_0" maxlength="40" autocomplete="name" value=""' in blank
    new_game(client, app, smtpd, [("Léo", "leo@example.org"), ANA])
    sign_in(client, app, smtpd, "leo@example.org")
    page = client.get("/").get_data(as_text=True)
    assert 'name="name_0" maxlength="40" autocomplete="name" value="Léo"' in page
    assert 'name="email_0" maxlength="254" autocomplete="email" value="leo@example.org"' in page
    assert 'name="name_1" maxlength="40" autocomplete="off" value=""' in page  # only their row
    # A refused form comes back with what was sent, not with the player's row.
    sent = {"game": "colour-bazaar", "name_0": "Leo B", "email_0": "not an address"}
    answer = client.post("/games", data=sent)
    assert answer.status_code == 400
    assert 'autocomplete="name" value="Leo B"' in answer.get_data(as_text=True)
