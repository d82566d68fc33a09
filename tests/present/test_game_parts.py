"""A game is registered once; a missing part stops the application from starting."""

from __future__ import annotations

from typing import Any

import pytest
from jinja2 import DictLoader, Environment, FileSystemLoader

from pbem import create_app
from pbem.games import GAMES
from pbem.games.colour_bazaar import ColourBazaar
from pbem.mailout.mailer import make_templates
from pbem.present import (
    MissingPart,
    check_parts,
    fantasy_business,
    missing_parts,
    presenter,
    rounds_viewed,
)
from pbem.resources import folder
from tests.settings import app_settings

PAGES = Environment(loader=FileSystemLoader(str(folder("templates"))))
MAILS = make_templates().text


def test_every_registered_game_has_all_its_parts() -> None:
    for slug in GAMES:
        assert missing_parts(slug, PAGES, MAILS) == [], slug
    check_parts(PAGES, MAILS)


def test_a_game_registered_without_its_parts_is_named_with_each_missing_part(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    third = ColourBazaar()
    third.slug = "third-game"
    monkeypatch.setitem(GAMES, "third-game", third)
    assert missing_parts("third-game", PAGES, MAILS) == [
        "presenter pbem.present.third_game",
        "templates/games/third-game/page.html",
        "mail/results_third-game.txt",
        "mail/results_third-game.html",
        "catalogue entry game.third-game (en)",
        "catalogue entry game.third-game (fr)",
    ]
    with pytest.raises(MissingPart, match="third-game: presenter pbem.present.third_game"):
        check_parts(PAGES, MAILS)
    with pytest.raises(MissingPart):  # the application does not start
        create_app(app_settings(f"sqlite:///{tmp_path / 'never.db'}", tmp_path))


def test_a_missing_template_is_found_even_when_the_rest_is_there() -> None:
    empty = Environment(loader=DictLoader({}))
    assert missing_parts("colour-bazaar", empty, MAILS) == [
        "templates/games/colour-bazaar/page.html"
    ]


@pytest.mark.parametrize("bad", [-1, "1", 1.0, True])
def test_a_count_of_rounds_that_is_not_a_whole_number_is_a_missing_part(
    monkeypatch: pytest.MonkeyPatch, bad: object
) -> None:
    monkeypatch.setattr(fantasy_business, "MAIL_ROUNDS", bad)
    assert missing_parts("fantasy-business", PAGES, MAILS) == [
        "pbem.present.fantasy_business.MAIL_ROUNDS as a count of rounds"
    ]


def test_the_rounds_a_game_views_are_its_presenters_declared_counts() -> None:
    assert rounds_viewed(presenter("fantasy-business"), "page") == fantasy_business.PAST_ROUNDS == 1
    assert rounds_viewed(presenter("fantasy-business"), "mail") == fantasy_business.MAIL_ROUNDS == 1
    # Colour Bazaar is not played in rounds: it declares neither, and is viewed whole.
    assert rounds_viewed(presenter("colour-bazaar"), "page") is None
    assert rounds_viewed(presenter("colour-bazaar"), "mail") is None
