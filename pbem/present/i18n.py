"""Translation through Babel: the gettext catalogues in translations/, plurals, elision, Jinja.

English is the source language: msgids are English sentences with %(name)s placeholders.
Each other language is one `translations/<lang>/LC_MESSAGES/messages.po`; its `.mo` is
compiled by `make` (pybabel compile), or here when it is missing or older than the `.po`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from functools import cache
from gettext import NullTranslations
from io import BytesIO
from pathlib import Path
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel.core import Locale
from babel.dates import format_datetime
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations
from markupsafe import Markup, escape
from werkzeug.datastructures import LanguageAccept

from pbem.resources import folder, packaged

TRANSLATIONS = folder("translations")
DOMAIN = "messages"
SOURCE_LANGUAGE = "en"
_VOWEL = re.compile(r"[aeiouyàâäéèêëîïôöùûüœæ]", re.IGNORECASE)

_directories: list[Path] = [TRANSLATIONS]


class Plural(NamedTuple):
    """A msgid with its plural form, and the parameter that carries the count."""

    singular: str
    plural: str
    counter: str


Msgid = str | Plural


class Moment(NamedTuple):
    """A moment a message names (a limit's end, say), shown to its reader in their language
    and in `zone`, a player's time zone: "Fri 4 Dec, 14:05 (Europe/Paris)"."""

    at: datetime  # naive means UTC, as the database gives it back
    zone: str = "UTC"


def N_(msgid: str) -> str:  # noqa: N802 (the gettext idiom pybabel extract looks for)
    """Mark a msgid for extraction; it is translated where it is shown."""
    return msgid


def NN_(singular: str, plural: str, count: str) -> Plural:  # noqa: N802
    """Mark a plural msgid for extraction, with the parameter that holds its count."""
    return Plural(singular, plural, count)


def set_directories(extra: Iterable[str | Path] = ()) -> None:
    """Look for catalogues in `extra` first, then in translations/ (tests add a language so)."""
    _directories[:] = [*(Path(d) for d in extra), TRANSLATIONS]
    languages.cache_clear()
    translations.cache_clear()
    compile_catalogues()


def compile_catalogues() -> None:
    """Compile every `.po` whose `.mo` is missing or older (what `pybabel compile` does), but
    in an installed package, never written to (its files belong to whoever installed it, and
    the install's file times say nothing): its build compiled them, and a missing one is
    compiled in memory when read (_catalogue); so is one whose folder refuses the write."""
    for directory in _directories:
        if packaged(directory):
            continue
        for po in sorted(directory.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
            mo = po.with_suffix(".mo")
            if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
                continue
            tmp = mo.with_suffix(f".mo.{os.getpid()}.tmp")
            try:
                with tmp.open("wb") as target:
                    write_mo(target, _read_po(po))
                tmp.replace(mo)
            except OSError:
                tmp.unlink(missing_ok=True)


def _read_po(po: Path) -> Catalog:
    with po.open("rb") as source:
        return read_po(source)


def _catalogue(directory: Path, lang: str) -> Translations | None:
    """The catalogue of `lang` in `directory`: its .mo, or its .po compiled in memory."""
    po = directory / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    mo = po.with_suffix(".mo")
    if mo.exists():
        with mo.open("rb") as found:
            return Translations(found, DOMAIN)
    if not po.exists():
        return None
    compiled = BytesIO()
    write_mo(compiled, _read_po(po))
    compiled.seek(0)
    return Translations(compiled, DOMAIN)


@cache
def languages() -> tuple[str, ...]:
    """English, then every language that has a catalogue: a new `.po` is a new language."""
    found = {
        po.parent.parent.name
        for directory in _directories
        for po in directory.glob(f"*/LC_MESSAGES/{DOMAIN}.po")
    }
    return (SOURCE_LANGUAGE, *sorted(found - {SOURCE_LANGUAGE}))


def language_name(lang: str) -> str:
    """A language's name in itself, from CLDR: "English", "Français"."""
    name = Locale.parse(lang).get_display_name(lang) or lang
    return name[:1].upper() + name[1:]


@cache
def translations(lang: str) -> NullTranslations:
    """The merged catalogues of `lang` (English and unknown languages translate to themselves)."""
    compile_catalogues()
    merged: NullTranslations | None = None
    for directory in _directories:
        found = _catalogue(directory, lang)
        if found is None:
            continue
        if isinstance(merged, Translations):
            merged.merge(found)
        elif merged is None:
            merged = found
    return merged or NullTranslations()


def best_lang(accept: LanguageAccept, default: str = SOURCE_LANGUAGE) -> str:
    """The best supported language for an Accept-Language header, q-values counted.

    A regional tag also offers its language at the same weight: "fr-CA,en;q=0.5" is French.
    """
    offered = [*accept, *((tag.split("-")[0], q) for tag, q in accept if "-" in tag)]
    return LanguageAccept(offered).best_match(languages(), default=default) or default


@cache
def _elisions(lang: str) -> tuple[tuple[str, re.Pattern[str], str], ...]:
    # The catalogue lists the language's elisions, "de=d'|que=qu'" in French; "none" in English.
    # Each comes with the text it needs ("de %("), looked for before the pattern is run.
    rule = translations(lang).pgettext("elision", "none")
    pairs = [part.split("=", 1) for part in rule.split("|") if "=" in part]
    return tuple(
        (f"{word} %(", re.compile(rf"(?<!\w){re.escape(word)} %\((\w+)\)s"), short)
        for word, short in pairs
    )


def elide(lang: str, template: str, params: Mapping[str, Any]) -> str:
    """Apply the language's elisions before a name with a vowel first ("de Ana" -> "d'Ana")."""

    def one(short: str) -> Any:
        def replace(match: re.Match[str]) -> str:
            value = str(params.get(match.group(1), ""))
            return f"{short}%({match.group(1)})s" if _VOWEL.match(value) else match.group(0)

        return replace

    for needle, pattern, short in _elisions(lang):
        if needle in template:
            template = pattern.sub(one(short), template)
    return template


def _escaped(value: Any) -> Any:
    # As Markup's % does: text escaped, numbers left as numbers (for %d).
    return value if isinstance(value, (int, float)) else escape(value)


def fill(lang: str, template: str, params: Mapping[str, Any], markup: bool = False) -> str:
    """The template with its %(name)s placeholders filled (escaped when `markup`)."""
    if not params and "%" not in template:
        return Markup(template) if markup else template  # nothing to fill (most labels)
    template = elide(lang, template, params) if params else template
    try:
        if markup and params:
            # The values escaped first, then plain %: what Markup's % gives, at about half
            # of the cost (it wraps every value in a helper object).
            return Markup(template % {k: _escaped(v) for k, v in params.items()})
        return Markup(template) % dict(params) if markup else template % dict(params)
    except (KeyError, ValueError, TypeError):
        return template


def tr(lang: str, msgid: str, **params: Any) -> str:
    """The msgid translated into `lang`, placeholders filled."""
    return fill(lang, translations(lang).gettext(msgid), params)


def ntr(lang: str, singular: str, plural: str, n: int, **params: Any) -> str:
    """The singular or plural form that `n` takes in `lang` (CLDR rules), `num` set to `n`."""
    params.setdefault("num", n)
    return fill(lang, translations(lang).ngettext(singular, plural, n), params)


def ptr(lang: str, context: str, msgid: str, **params: Any) -> str:
    """The msgid translated in a context (the same English, read two ways)."""
    return fill(lang, translations(lang).pgettext(context, msgid), params)


def moment_text(moment: Moment, lang: str) -> str:
    """A moment as messages show it: the short day and time (as a mail's first line), and
    the zone, so that it is exact whoever reads it. Seconds round up to the next minute: a
    limit that ends at 14:05:30 says "after 14:06", which holds for every moment after it."""
    try:
        zone = ZoneInfo(moment.zone)
    except (ZoneInfoNotFoundError, ValueError):
        zone = ZoneInfo("UTC")
    at = moment.at if moment.at.tzinfo else moment.at.replace(tzinfo=UTC)
    if at.second or at.microsecond:
        at = at.replace(second=0, microsecond=0) + timedelta(minutes=1)
    when = format_datetime(at, tr(lang, "EEE d MMM, HH:mm"), tzinfo=zone, locale=lang)
    return tr(lang, "%(when)s (%(zone)s)", when=when, zone=zone.key)


def translate(lang: str, msgid: Msgid, params: Mapping[str, Any], markup: bool = False) -> str:
    """A vocabulary msgid (plain or plural) translated and filled; a Moment among the
    parameters is written in `lang`."""
    if params and any(type(value) is Moment for value in params.values()):
        params = {
            name: moment_text(value, lang) if type(value) is Moment else value
            for name, value in params.items()
        }
    book = translations(lang)
    if isinstance(msgid, Plural):
        count = params.get(msgid.counter, 1)
        n = count if isinstance(count, int) else 1
        return fill(lang, book.ngettext(msgid.singular, msgid.plural, n), params, markup)
    return fill(lang, book.gettext(msgid), params, markup)


def ordinal(n: int, lang: str) -> str:
    """A rank as the language writes it, "2nd" or "2e" (CLDR's ordinal plural rules)."""
    form = Locale.parse(lang).ordinal_form(n)
    if form == "one":
        return ptr(lang, "ordinal", "%(n)sst", n=n)
    if form == "two":
        return ptr(lang, "ordinal", "%(n)snd", n=n)
    if form == "few":
        return ptr(lang, "ordinal", "%(n)srd", n=n)
    return ptr(lang, "ordinal", "%(n)sth", n=n)
