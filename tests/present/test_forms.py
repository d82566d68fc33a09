"""The form models turn form text into values, and refuse bad text with a catalogue key."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.errors import PlayError
from pbem.games import GAMES
from pbem.present.forms import (
    TALK_MAX,
    ExtendForm,
    PlayersForm,
    TalkForm,
    TimeControl,
    VacationForm,
    read_options,
)


def refusal(read: Any, data: Any) -> tuple[str, dict[str, Any]]:
    with pytest.raises(PlayError) as caught:
        read(data)
    return caught.value.key, caught.value.params


def test_time_control_reads_the_lobby_fields() -> None:
    control = TimeControl.read(
        {"days_per_move": "none", "reminders": "12h 50%", "absent_after": "2"}
    )
    assert (control.days_per_move, control.reminders, control.absent_after) == (
        None,
        ["12h", "50%"],
        2,
    )
    assert TimeControl.read({}) == TimeControl()
    assert refusal(TimeControl.read, {"days_per_move": "15"})[0] == "lobby.error.days_per_move"
    assert refusal(TimeControl.read, {"days_per_move": "x"})[0] == "lobby.error.days_per_move"
    assert refusal(TimeControl.read, {"absent_after": "0"})[0] == "lobby.error.absent_after"
    assert refusal(TimeControl.read, {"reminders": "soon"})[0] == "lobby.error.reminders"


def test_players_are_cleaned_and_each_problem_names_its_row() -> None:
    people = PlayersForm.read([{"name": " Ana\r\n", "email": " ANA@Example.org "}])
    assert (people[0].name, people[0].email) == ("Ana", "ana@example.org")
    good = {"name": "Ana", "email": "ana@example.org"}
    assert refusal(PlayersForm.read, []) == ("lobby.error.name_missing", {"number": 1})
    bad_name = [good, {"name": "\x00 ", "email": "leo@example.org"}]
    assert refusal(PlayersForm.read, bad_name) == ("lobby.error.name_missing", {"number": 2})
    bad_mail = [good, {"name": "Léo", "email": "leo@"}]
    assert refusal(PlayersForm.read, bad_mail) == ("lobby.error.email_invalid", {"number": 2})
    twice = [good, {"name": "Ana again", "email": "ANA@example.org"}]
    assert refusal(PlayersForm.read, twice) == (
        "lobby.error.email_twice",
        {"email": "ana@example.org"},
    )


def test_options_are_typed_from_the_games_option_list() -> None:
    rules = GAMES["colour-bazaar"]
    assert read_options(rules, "colour-bazaar", {}) == {"courts": False, "first": None}
    ticked = {"opt_colour-bazaar_courts": "on", "opt_colour-bazaar_first": "1"}
    assert read_options(rules, "colour-bazaar", ticked) == {"courts": True, "first": 1}
    junk = {"opt_colour-bazaar_first": "second"}
    assert refusal(lambda f: read_options(rules, "colour-bazaar", f), junk) == (
        "error.option_int",
        {"name": "first"},
    )


def test_talk_vacation_and_extra_time() -> None:
    assert TalkForm.read({"to": "all", "text": " hi\x07 "}) == TalkForm(text="hi", to=None)
    assert TalkForm.read({"to": "1", "text": "psst"}).to == 1
    assert refusal(TalkForm.read, {"to": "-1", "text": "x"})[0] == "talk.error.recipient"
    assert refusal(TalkForm.read, {"text": " \x00 "})[0] == "talk.error.empty"
    assert refusal(TalkForm.read, {"text": "a" * (TALK_MAX + 1)}) == (
        "talk.error.long",
        {"limit": TALK_MAX},
    )
    assert VacationForm.read({"days": "5"}).days == 5
    assert refusal(VacationForm.read, {"days": "61"}) == ("settings.error.days", {"high": 60})
    assert refusal(VacationForm.read, {"days": "lots"})[0] == "settings.error.days"
    assert ExtendForm.read({"seat": "1", "days": "2"}) == ExtendForm(seat=1, days=2)
    assert refusal(ExtendForm.read, {"seat": "1"})[0] == "extend.error.days"
