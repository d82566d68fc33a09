"""The translations keep up with English: every msgid of the sources is translated in every
language with the same placeholders, one mail template pair serves every language and
renders in each, and the keys the templates build exist."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from pbem.mailout.mailer import MAIL_TEMPLATES, make_templates, render_mail
from pbem.present.i18n import translations
from pbem.present.vocabulary import VOCABULARY
from tests.present.mail_cases import (
    CASES,
    LANGS,
    NAMES,
    PLAYER_EVENTS,
    TWO_DAYS,
    UNSUBSCRIBE,
    build_context,
    finished_outcome,
)

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "templates"
# say('prefix.' ~ name): a key built in a template, looked up in the vocabulary.
BUILT_KEY = re.compile(r"(?<![\w.])say\('([a-z0-9_.\-]+)'\s*~")
INCLUDE = re.compile(r"{%-?\s*(?:include|extends)\s+\"([^\"]+)\"")


def mail_files() -> set[str]:
    return {p.name for p in MAIL_TEMPLATES.iterdir() if p.is_file()}


# --- mail templates -------------------------------------------------------------


def test_one_mail_template_pair_per_event_for_every_language() -> None:
    names = mail_files()
    assert not [p for p in MAIL_TEMPLATES.iterdir() if p.is_dir()], "no folder per language"
    stems = {name.rsplit(".", 1)[0] for name in names}
    assert {f"{stem}.txt" for stem in stems if not stem.startswith("_")} <= names
    assert {f"{stem}.html" for stem in stems if not stem.startswith("_")} <= names
    for name in sorted(names):
        source = (MAIL_TEMPLATES / name).read_text(encoding="utf-8")
        for target in INCLUDE.findall(source):
            assert "/" not in target, f"mail/{name} includes {target}"


@pytest.fixture(scope="module")
def outcome() -> dict[str, Any]:
    return finished_outcome()


URGENT = {"en": "(urgent)", "fr": "(urgent)"}


def test_every_mail_event_has_a_case() -> None:
    events = {
        p.stem for p in MAIL_TEMPLATES.glob("*.txt") if not p.stem.startswith(("_", "results_"))
    }
    assert events == {event for event, _ in CASES}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("event", "extra"), CASES)
def test_mail_renders(
    event: str, extra: dict[str, Any], lang: str, outcome: dict[str, Any]
) -> None:
    env = make_templates()
    context = build_context(event, lang, extra, outcome)
    subject, body, html = render_mail(env, event, lang, context)
    assert subject.strip() and "\n" not in subject and "\r" not in subject
    assert body.strip() and html.strip()
    assert f'<html lang="{lang}">' in html
    if context.get("unsubscribe_link"):
        assert UNSUBSCRIBE in body and UNSUBSCRIBE in html
    if event in PLAYER_EVENTS:
        for entry in context.get("games", []):
            assert entry["title"] in body and entry["link"] in body and entry["link"] in html
            assert entry["deadline_text"] in body and entry["deadline_text"] in html
        for entry in context.get("new_games", []) + context.get("waiting", []):
            assert entry["link"] in body and entry["link"] in html
        for line in context.get("standings", []):
            assert line["name"] in body and line["name"] in html
        if "league" in context:
            assert context["league_link"] in body and escape(context["league"]) in html
        if "vacation" in context:
            ends = context["when"](context["vacation"].ends_at)
            assert ends and ends in body and ends in html
        if "report" in context:  # the operator's: names, reason, message and links, escaped
            shown = context["report"]
            for text in (shown.reported, shown.reason, shown.said, context["report_link"]):
                assert text in body and escape(text).replace("\n", "") in html.replace("\n", "")
        return
    assert "Colour Bazaar #12" in subject
    for sealed in (context.get("deal_sealed"), context.get("deal_committed")):
        if sealed:
            assert sealed in body and sealed in html
    if event != "cancelled":
        assert context["link"] in body and context["link"] in html
        assert context["settings_link"] in body and context["settings_link"] in html
    if event in ("your_turn", "reminder", "deadline_warning"):
        assert context["deadline_text"] in body and context["deadline_text"] in html
        assert context["time_left"] in body and escape(context["time_left"]) in html
    if event in ("timeout", "absent"):
        # Others are named; the player who ran out of time is addressed, not named.
        assert (context["who"] in subject) == (context["who"] != context["name"])
    if event == "game_over":
        for player in context["results"]["players"]:
            assert player["name"] in body and player["name"] in html
    for message in context.get("talk", []):
        assert message["text"] in body and escape(message["text"]) in html
    for line in context["since"]:
        assert line in body
    if context.get("turn_table"):
        table = context["turn_table"]
        for card in table["hand"] + [m["top"] for m in table["markets"]]:
            assert card in body and escape(card) in html
    if context.get("reply_address"):
        assert context["reply_example"] in body and context["reply_example"] in html
    for move in context.get("moves", []):
        assert move in body and move in html
    if "reason" in context and event == "move_refused":
        assert context["reason"] in body and escape(context["reason"]) in html


@pytest.mark.parametrize("lang", LANGS)
def test_the_subject_stays_and_the_first_line_says_the_time_left(
    lang: str, outcome: dict[str, Any]
) -> None:
    env = make_templates()
    seen = {}
    for label, left in (("days", TWO_DAYS), ("hours", timedelta(hours=5)), ("none", None)):
        for event in ("your_turn", "reminder"):
            context = build_context(event, lang, {"left": left}, outcome)
            subject, body, html = render_mail(env, event, lang, context)
            seen[label, event] = (subject, body.splitlines()[0], context)
    assert len({subject for subject, _, _ in seen.values()}) == 1  # one thread in every client
    for event in ("your_turn", "reminder"):
        _, first, context = seen["days", event]
        assert context["time_left"] in first and context["deadline_short"] in first
        assert URGENT[lang].strip("()") not in first
        _, first, context = seen["hours", event]
        assert context["time_left"] in first and URGENT[lang].strip("()") in first
        _, first, context = seen["none", event]
        assert context["time_left"] == "" and NAMES[1] in first


# The operator's mail is in English, as the commands are (pbem.mailout.render._operator_mail).
OPERATOR_EVENTS = {"report"}


@pytest.mark.parametrize(("event", "extra"), [c for c in CASES if c[0] not in OPERATOR_EVENTS])
def test_french_mail_is_not_the_english_one(
    event: str, extra: dict[str, Any], outcome: dict[str, Any]
) -> None:
    env = make_templates()
    rendered = {}
    for lang in LANGS:
        context = build_context(event, lang, extra, outcome)
        rendered[lang] = render_mail(env, event, lang, context)
    for en_part, fr_part in zip(rendered["en"], rendered["fr"], strict=True):
        assert en_part != fr_part


# --- templates/ ---------------------------------------------------------------


def test_keys_built_in_templates_exist() -> None:
    prefixes = {
        prefix
        for path in sorted(TEMPLATES.rglob("*.html"))
        for prefix in BUILT_KEY.findall(path.read_text(encoding="utf-8"))
    }
    assert len(prefixes) >= 8, "the say('...' ~ pattern no longer finds the built keys"
    missing = sorted(p for p in prefixes if not any(key.startswith(p) for key in VOCABULARY))
    assert missing == []


def test_no_template_uses_the_old_key_function() -> None:
    for path in sorted([*TEMPLATES.rglob("*.html"), *MAIL_TEMPLATES.iterdir()]):
        assert not re.search(r"(?<![\w.])t\(", path.read_text(encoding="utf-8")), path


def test_french_is_a_catalogue_not_english() -> None:
    book = translations("fr")
    assert book.gettext("Your move.") == "À vous de jouer."
    assert book.ngettext("%(num)s écu", "%(num)s écus", 0) == "%(num)s écu"
