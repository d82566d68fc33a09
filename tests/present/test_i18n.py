"""Translation with Babel: the catalogues are complete and current, plurals follow CLDR,
the reader's language comes from Accept-Language with its q-values, and a new language is
nothing but a new .po file."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po
from hypothesis import given
from hypothesis import strategies as st
from markupsafe import Markup
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header

from pbem.present.i18n import (
    TRANSLATIONS,
    best_lang,
    elide,
    fill,
    languages,
    ntr,
    set_directories,
    tr,
)
from pbem.present.text import say
from pbem.present.timefmt import format_left, format_when
from tests.app import make_test_app
from tests.web.helpers import PLAYERS, deliver, text_of

ROOT = Path(__file__).resolve().parents[2]
POT = TRANSLATIONS / "messages.pot"
# The keywords of the Makefile's `messages` target.
KEYWORDS = ["-k", "N_", "-k", "NN_:1,2", "-k", "tr:2", "-k", "ntr:2,3", "-k", "ptr:2c,3"]


def entries(path: Path) -> dict[tuple[Any, str | None], Any]:
    with path.open("rb") as source:
        return {(m.id, m.context): m for m in read_po(source) if m.id}


def test_messages_pot_is_up_to_date_with_the_sources(tmp_path: Path) -> None:
    fresh = tmp_path / "messages.pot"
    subprocess.run(
        [sys.executable, "-m", "babel.messages.frontend", "-q", "extract", "-F", "babel.cfg",
         *KEYWORDS, "--no-location", "-o", str(fresh), "."],
        cwd=ROOT, check=True,
    )  # fmt: skip
    assert sorted(map(str, entries(fresh))) == sorted(map(str, entries(POT))), (
        "translations/messages.pot is out of date: run `make messages` and translate"
    )


@pytest.mark.parametrize("lang", [lang for lang in languages() if lang != "en"])
def test_every_entry_is_translated_and_none_is_fuzzy(lang: str) -> None:
    po = TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po"
    with po.open("rb") as source:
        catalog = read_po(source)
    assert not catalog.fuzzy, f"{po} is marked fuzzy"
    template = entries(POT)
    done = {(m.id, m.context): m for m in catalog if m.id}
    assert sorted(map(str, template.keys() - done.keys())) == [], "missing in the catalogue"
    assert sorted(map(str, done.keys() - template.keys())) == [], "obsolete in the catalogue"
    for message in done.values():
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(s.strip() for s in strings), f"untranslated: {message.id!r}"
        assert "fuzzy" not in message.flags, f"fuzzy: {message.id!r}"
    errors = [(m.id, [str(e) for e in errs]) for m, errs in catalog.check()]
    assert errors == []


def test_plurals_follow_each_language_rule() -> None:
    args = ("%(num)s écu", "%(num)s écus")
    assert [ntr("fr", *args, n) for n in (0, 1, 2)] == ["0 écu", "1 écu", "2 écus"]
    assert [ntr("en", *args, n) for n in (0, 1, 2)] == ["0 écus", "1 écu", "2 écus"]
    cards = ("%(num)s card in hand", "%(num)s cards in hand")
    assert ntr("en", *cards, 1) == "1 card in hand" and ntr("en", *cards, 3) == "3 cards in hand"
    assert ntr("fr", *cards, 1) == "1 carte en main" and ntr("fr", *cards, 3) == "3 cartes en main"
    # An engine key and its "_1" variant are one plural entry.
    assert say("fr", "fb.log.bid", seat="Ana", amount=0) == "Ana enchérit à 0 écu."
    assert say("en", "fb.log.bid_1", seat="Ana", amount=1) == "Ana bids 1 écu."


def test_french_typography_and_elision() -> None:
    assert tr("fr", "Your move.") == "À vous de jouer."
    assert tr("fr", "Since your last move:") == "Depuis votre dernier coup\u00a0:"
    assert tr("fr", "privately to %(name)s", name="Ana") == "en privé à Ana"
    line = say(
        "fr", "fb.log.defective", seat="Léo", card="Article défectueux",
        article_card="Épées", target_seat="Ana",
    )  # fmt: skip
    assert "les cartes Épées d'Ana sont retirées" in line
    line = say(
        "fr", "fb.log.defective", seat="Ana", card="Article défectueux",
        article_card="Épées", target_seat="Léo",
    )  # fmt: skip
    assert "les cartes Épées de Léo sont retirées" in line
    assert tr("fr", "Round %(round)s of %(rounds)s", round=2, rounds=5) == "Manche 2 sur 5"
    assert tr("fr", "It is not your turn.") == "Ce n'est pas votre tour."


@given(name=st.text(), count=st.integers(), lang=st.sampled_from(["en", "fr"]))
def test_names_put_into_a_page_sentence_are_escaped(name: str, count: int, lang: str) -> None:
    # A player's name is theirs to choose: in a page it is text, never markup. The fill
    # gives what markupsafe's own % gives (after the language's elisions).
    template = "<b>%(name)s</b> de %(name)s: %(count)d"
    params = {"name": name, "count": count}
    filled = fill(lang, template, params, markup=True)
    assert isinstance(filled, Markup)
    assert filled == Markup(elide(lang, template, params)) % params
    assert "<" not in filled.replace("<b>", "", 1).replace("</b>", "", 1)


def test_dates_and_durations_come_from_cldr() -> None:
    first = datetime(2026, 3, 1, 13, 0, tzinfo=UTC)
    paris = "Europe/Paris"
    assert format_when(first, paris, "fr") == "dimanche 1er mars 2026 à 14:00 (Europe/Paris)"
    assert format_when(first, paris, "en") == "Sunday 1 March 2026, 14:00 (Europe/Paris)"
    assert format_when(first + timedelta(days=1), paris, "fr").startswith("lundi 2 mars 2026")
    assert format_left(timedelta(days=14, hours=3), "en") == "14 days"
    assert format_left(timedelta(hours=47), "fr") == "47\u00a0heures"  # CLDR's no-break space
    assert format_left(timedelta(hours=1, minutes=5), "en") == "1 hour"
    assert format_left(timedelta(minutes=5), "fr") == "moins d'une heure"


def test_accept_language_q_values_choose_the_language(client: Any) -> None:
    header = "de,en;q=0.3,fr;q=0.8"
    assert best_lang(parse_accept_header(header, LanguageAccept)) == "fr"
    assert best_lang(parse_accept_header("fr-CA,en;q=0.5", LanguageAccept)) == "fr"
    assert best_lang(parse_accept_header("de", LanguageAccept)) == "en"
    page = client.get("/", headers={"Accept-Language": header}).get_data(as_text=True)
    assert '<html lang="fr">' in page and "Lancer une partie" in page
    page = client.get("/", headers={"Accept-Language": "fr;q=0.2,en"}).get_data(as_text=True)
    assert '<html lang="en">' in page and "Start a game" in page


GERMAN = r"""
msgid ""
msgstr ""
"Language: de\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"
"Content-Type: text/plain; charset=utf-8\n"

msgid "Start a game"
msgstr "Ein Spiel beginnen"

msgid "%(title)s with %(others)s"
msgstr "%(title)s mit %(others)s"

msgid "%(name)s, %(creator)s invites you to a game of %(game)s."
msgstr "Hallo %(name)s, %(creator)s lädt dich zum Spielen ein: %(game)s."

msgid "%(num)s day"
msgid_plural "%(num)s days"
msgstr[0] "%(num)s Tag"
msgstr[1] "%(num)s Tage"
"""


@pytest.fixture
def german(tmp_path: Path) -> Any:
    """A translations directory holding one tiny German catalogue, and nothing else."""
    folder = tmp_path / "translations"
    (folder / "de" / "LC_MESSAGES").mkdir(parents=True)
    (folder / "de" / "LC_MESSAGES" / "messages.po").write_text(GERMAN, encoding="utf-8")
    yield folder
    set_directories()


def test_a_new_language_is_only_a_new_po_file(
    german: Path, database_url: str, clock: Any, smtpd: Any, tmp_path: Path
) -> None:
    app = make_test_app(database_url, clock, smtpd, tmp_path, TRANSLATIONS_DIRS=[str(german)])
    try:
        assert languages() == ("en", "de", "fr")
        client = app.test_client()
        page = client.get("/", headers={"Accept-Language": "de"}).get_data(as_text=True)
        assert '<html lang="de">' in page and "Ein Spiel beginnen" in page
        assert "2 Tage" in page  # a CLDR plural, from the catalogue
        assert "Name" in page  # what the catalogue lacks stays English
        form = {"game": "colour-bazaar"}
        for row, (name, email) in enumerate(PLAYERS[:2]):
            form[f"name_{row}"], form[f"email_{row}"] = name, email
        response = client.post("/games?lang=de", data=form)
        assert response.status_code == 303, response.get_data(as_text=True)[:500]
        deliver(app)
        invitation = smtpd.to(PLAYERS[1][1])[-1]
        assert str(invitation["Subject"]) == f"Colour Bazaar #1 mit {PLAYERS[0][0]}"
        assert text_of(invitation).startswith(f"Hallo {PLAYERS[1][0]}, Ana lädt dich")
    finally:
        app.extensions["pbem"]["engine"].dispose()
