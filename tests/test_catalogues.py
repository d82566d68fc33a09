"""The translations keep up with English: same catalogue keys and placeholders, a French
mail template for every English one, every template renders, and every literal t('...')
key in templates/ exists."""

from __future__ import annotations

import copy
import json
import random
import re
import string
from pathlib import Path
from typing import Any

import pytest

from pbem.games import GAMES
from pbem.games import text as game_text
from pbem.i18n import t
from pbem.mailer import MAIL_TEMPLATES, make_env, render_mail
from pbem.present.colour_bazaar import results as colour_bazaar_results

ROOT = Path(__file__).resolve().parent.parent
CATALOGUES = ROOT / "pbem" / "catalogue"
TEMPLATES = ROOT / "templates"
LANGS = ("en", "fr")
NAMES = ["Ana", "Léo", "Zoé"]
# t('key') or t('key', ...) with a literal key; t('prefix.' ~ name) is built, so skipped.
LITERAL_KEY = re.compile(r"(?<![\w.])t\('([a-z0-9_.\-]+)'\s*[,)]")
INCLUDE = re.compile(r"{%-?\s*(?:include|extends)\s+\"([^\"]+)\"")


def load(lang: str) -> dict[str, str]:
    return json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8"))


def placeholders(template: str) -> set[str]:
    """The field names a str.format template uses."""
    return {field for _, field, _, _ in string.Formatter().parse(template) if field is not None}


def mail_files(lang: str) -> set[str]:
    return {p.name for p in (MAIL_TEMPLATES / lang).iterdir() if p.is_file()}


# --- catalogues ---------------------------------------------------------------


def test_catalogues_have_the_same_keys() -> None:
    en, fr = load("en"), load("fr")
    assert sorted(set(en) - set(fr)) == [], "keys missing in fr.json"
    assert sorted(set(fr) - set(en)) == [], "keys in fr.json that en.json does not have"


def test_catalogue_values_are_non_empty_strings() -> None:
    for lang in LANGS:
        for key, value in load(lang).items():
            assert isinstance(value, str) and value.strip(), f"{lang}.json: {key} is empty"


def test_catalogues_have_the_same_placeholders() -> None:
    en, fr = load("en"), load("fr")
    wrong = {
        key: (sorted(placeholders(en[key])), sorted(placeholders(fr[key])))
        for key in en.keys() & fr.keys()
        if placeholders(en[key]) != placeholders(fr[key])
    }
    assert wrong == {}


# --- mail templates -------------------------------------------------------------


def test_every_mail_template_has_a_counterpart() -> None:
    assert sorted(mail_files("en") - mail_files("fr")) == [], "missing in mail/fr"
    assert sorted(mail_files("fr") - mail_files("en")) == [], "missing in mail/en"


@pytest.mark.parametrize("lang", LANGS)
def test_mail_templates_include_their_own_language(lang: str) -> None:
    for name in sorted(mail_files(lang)):
        source = (MAIL_TEMPLATES / lang / name).read_text(encoding="utf-8")
        for target in INCLUDE.findall(source):
            assert target.startswith(f"{lang}/"), f"mail/{lang}/{name} includes {target}"


def finished_outcome(seed: int = 7, players: int = 3) -> dict[str, Any]:
    """The stored outcome of a Colour Bazaar game played to the end with random moves."""
    rules = GAMES["colour-bazaar"]
    rng = random.Random(seed)
    state = rules.setup(players, {"courts": True}, seed)
    for _ in range(1000):
        outcome = rules.outcome(state)
        if outcome is not None:
            return {
                "scores": outcome.scores,
                "ranks": outcome.ranks,
                "breakdown": outcome.breakdown,
            }
        seat = rules.to_act(state)[0]
        state = rules.apply(state, seat, rng.choice(rules.legal_moves(state, seat)))
    raise AssertionError("the random game did not end")


@pytest.fixture(scope="module")
def outcome() -> dict[str, Any]:
    return finished_outcome()


def sample_context(event: str, lang: str, outcome: dict[str, Any]) -> dict[str, Any]:
    """A context like pbem.mail_context builds, for the seat of Léo."""
    name = NAMES[1]
    others = [n for n in NAMES if n != name]
    to_act = [NAMES[0]]
    context: dict[str, Any] = {
        "event": event,
        "slug": "colour-bazaar",
        "lang": lang,
        "name": name,
        "game_id": 12,
        "move_number": 7,
        "title": "Colour Bazaar #12",
        "game_name": "Colour Bazaar",
        "others": others,
        "creator": NAMES[0],
        "link": "https://pbem.example/s/12/1/abcdef",
        "watch_link": "https://pbem.example/w/12/xyz",
        "since": [],
        "to_act": to_act,
        "results": None,
        "others_text": " & ".join(others),
        "guests": [n for n in others if n != NAMES[0]],
        "guests_text": " & ".join(n for n in others if n != NAMES[0]),
        "to_act_text": " & ".join(to_act),
    }
    if event in ("your_turn", "game_over"):
        context["since"] = ["Zoé played The Sailor on market 2.", "Ana took a Moons chip."]
    if event == "game_over":
        context["results"] = colour_bazaar_results(outcome, NAMES, lang)
        context["winners_text"] = " & ".join(context["results"]["winners"])
    return context


CASES = [
    ("invitation", {}),
    ("created", {}),
    ("started", {}),
    ("started", {"to_act": ["Ana", "Zoé"], "to_act_text": "Ana & Zoé"}),
    ("your_turn", {}),
    ("your_turn", {"since": []}),
    ("cancelled", {"reason": "declined", "by": "Zoé"}),
    ("cancelled", {"reason": "cancelled", "by": "Ana"}),
    ("game_over", {}),
    ("game_over", {"winners": 2}),
]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("event", "extra"), CASES)
def test_mail_renders(
    event: str, extra: dict[str, Any], lang: str, outcome: dict[str, Any]
) -> None:
    env = make_env({"t": t})
    context = sample_context(event, lang, outcome)
    extra = copy.deepcopy(extra)
    winners = extra.pop("winners", None)
    context.update(extra)
    if winners is not None:
        context["results"]["winners"] = NAMES[:winners]
        context["winners_text"] = " & ".join(NAMES[:winners])
    subject, body, html = render_mail(env, event, lang, context)
    assert subject.strip() and "\n" not in subject and "\r" not in subject
    assert "Colour Bazaar #12" in subject
    if event != "cancelled":
        assert context["link"] in body and context["link"] in html
    assert body.strip() and html.strip()
    assert f'<html lang="{lang}">' in html
    if event == "game_over":
        for player in context["results"]["players"]:
            assert player["name"] in body and player["name"] in html
    for line in context["since"]:
        assert line in body


@pytest.mark.parametrize(("event", "extra"), CASES)
def test_french_mail_is_not_the_english_one(
    event: str, extra: dict[str, Any], outcome: dict[str, Any]
) -> None:
    env = make_env({"t": t})
    rendered = {}
    for lang in LANGS:
        context = sample_context(event, lang, outcome)
        context.update({k: v for k, v in extra.items() if k != "winners"})
        rendered[lang] = render_mail(env, event, lang, context)
    for en_part, fr_part in zip(rendered["en"], rendered["fr"], strict=True):
        assert en_part != fr_part


# --- templates/ ---------------------------------------------------------------


def template_keys() -> dict[str, set[str]]:
    """Literal keys passed to t() in templates/, with the files that use them."""
    found: dict[str, set[str]] = {}
    for path in sorted(TEMPLATES.rglob("*.html")):
        for key in LITERAL_KEY.findall(path.read_text(encoding="utf-8")):
            found.setdefault(key, set()).add(str(path.relative_to(ROOT)))
    return found


def test_template_keys_exist() -> None:
    keys = template_keys()
    assert len(keys) > 20, "the t('...') pattern no longer finds the template keys"
    known = load("en").keys() | game_text.catalogue("en").keys()
    missing = {key: sorted(files) for key, files in keys.items() if key not in known}
    assert missing == {}
