"""Game messages and site keys as sentences: key -> vocabulary msgid -> gettext, in a language.

The engines emit `Message(key, params)`; parameters follow a naming convention: a key
ending in `card` holds a card id, `cards` a list of card ids, `suit` a suit id, `seat` a
seat number, `seats` a list of seat numbers ("Ana and Léo"), `market` a market index (shown
from 1), `limits` a list of [seat, amount or None] pairs ("Ana 7, Léo –"); others are shown
as they are.
"""

from __future__ import annotations

import re
from typing import Any

from jinja2 import Environment, pass_context
from jinja2.runtime import Context

from pbem.games.message import Message
from pbem.present.i18n import SOURCE_LANGUAGE, Msgid, Plural, fill, translate, translations
from pbem.present.vocabulary import VOCABULARY

_COPY = re.compile(r"-\d+$")
_ENCODED_WORD = re.compile(r"=\?")


def msgid_of(key: str) -> Msgid | None:
    """The msgid of a key; a singular "_1" key and a numbered card share their base key's."""
    found = VOCABULARY.get(key)
    if found is None and key.endswith("_1"):
        found = VOCABULARY.get(key[:-2])
    if found is None and key.startswith("card."):
        found = VOCABULARY.get(_COPY.sub("", key))
    return found


def translated(key: str, lang: str) -> bool:
    """Whether a key has its sentence in `lang`: in the vocabulary and, past English, translated."""
    msgid = msgid_of(key)
    if msgid is None:
        return False
    if lang == SOURCE_LANGUAGE:
        return True
    entries = getattr(translations(lang), "_catalog", {})
    if isinstance(msgid, Plural):
        return bool(entries.get((msgid.singular, 0)))
    return bool(entries.get(msgid))


def say(lang: str, key: str, markup: bool = False, **params: Any) -> str:
    """The sentence for a vocabulary key in `lang`; an unknown key shows as itself."""
    msgid = msgid_of(key)
    if msgid is None:
        return key
    return translate(lang, msgid, params, markup)


def card_name(card_id: str, lang: str = SOURCE_LANGUAGE) -> str:
    """A card's name in `lang`."""
    return say(lang, f"card.{card_id}")


def suit_name(suit: str, lang: str = SOURCE_LANGUAGE) -> str:
    """A suit's name in `lang`."""
    return say(lang, f"suit.{suit}")


def game_name(slug: str, lang: str = SOURCE_LANGUAGE) -> str:
    """A game's title in `lang`."""
    return say(lang, f"game.{slug}")


def seat_name(seat: int, lang: str = SOURCE_LANGUAGE, names: list[str] | None = None) -> str:
    """A seat's player name, or "Player N" when names are not given."""
    if names is not None and 0 <= seat < len(names):
        return names[seat]
    return say(lang, "seat.default", number=seat + 1)


def neutralise_encoded_words(value: str) -> str:
    """Text in which no RFC 2047 encoded word (=?charset?q?...?=) can start.

    A mail program decodes an encoded word it finds in a header, so text a player wrote
    could read as other text, CR LF included (CVE-2024-6923): "=?" becomes "= ?". It sits
    here, below forms and mail alike, because both clean a player's name with it.
    """
    return _ENCODED_WORD.sub("= ?", value)


def join_names(names: list[str], lang: str) -> str:
    """Names as a list in words: "Ana, Léo and Zoé"."""
    if len(names) < 2:
        return "".join(names)
    return ", ".join(names[:-1]) + say(lang, "list.and") + names[-1]


def _param(name: str, value: Any, lang: str, names: list[str] | None) -> Any:
    if name.endswith("limits"):
        # [[seat, amount or None], ...] -> "Ana 7, Léo 5, Zoé –" (a dash: no limit set).
        return ", ".join(
            f"{seat_name(seat, lang, names)} {'–' if amount is None else amount}"
            for seat, amount in value
        )
    if name.endswith("seats"):
        # [seat, ...] -> "Ana and Léo".
        return join_names([seat_name(seat, lang, names) for seat in value], lang)
    if name.endswith("cards"):
        return ", ".join(card_name(c, lang) for c in value)
    if name.endswith("card"):
        return card_name(value, lang)
    if name.endswith("suit"):
        return suit_name(value, lang)
    if name.endswith("seat"):
        return seat_name(value, lang, names)
    if name.endswith("market"):
        return value + 1
    return value


def render(msg: Message, lang: str = SOURCE_LANGUAGE, names: list[str] | None = None) -> str:
    """The message as a sentence in `lang`, with player names if given."""
    params = {k: _param(k, v, lang, names) for k, v in msg.params.items()}
    return say(lang, msg.key, **params)


# A seat reads its own lines in the second person where the vocabulary has them: "<key>.you"
# in its log ("You played…"), "<key>.review" in the review of a move not yet sent ("You
# play…"). The player a line is about is its "seat" (or, for a shown hand, "target_seat").
_WHOSE = ("seat", "target_seat")


def render_for(
    msg: Message,
    lang: str,
    names: list[str] | None,
    viewer: int | None,
    review: bool = False,
) -> str:
    """The message as `viewer` reads it: its own moves said to it as "you" when they can be."""
    if viewer is not None and any(msg.params.get(p) == viewer for p in _WHOSE):
        for suffix in (".review", ".you") if review else (".you",):
            if msg.key + suffix in VOCABULARY:
                return render(Message(msg.key + suffix, msg.params), lang, names)
    return render(msg, lang, names)


def error_text(exc: Any, lang: str = SOURCE_LANGUAGE, names: list[str] | None = None) -> str:
    """A game error (IllegalMove, BadOptions) as a sentence in `lang`."""
    return render(exc.msg, lang, names)


def _lang(context: Context) -> str:
    # Pages get `lang` from the app's context processor, mails from render_mail.
    lang = context.get("lang")
    return lang if isinstance(lang, str) else SOURCE_LANGUAGE


@pass_context
def _gettext(context: Context, msgid: str, **params: Any) -> str:
    lang = _lang(context)
    return fill(lang, translations(lang).gettext(msgid), params, context.eval_ctx.autoescape)


@pass_context
def _ngettext(context: Context, singular: str, plural: str, n: int, **params: Any) -> str:
    lang = _lang(context)
    params.setdefault("num", n)
    text = translations(lang).ngettext(singular, plural, n)
    return fill(lang, text, params, context.eval_ctx.autoescape)


@pass_context
def _pgettext(context: Context, ctx: str, msgid: str, **params: Any) -> str:
    lang = _lang(context)
    return fill(lang, translations(lang).pgettext(ctx, msgid), params, context.eval_ctx.autoescape)


@pass_context
def _say(context: Context, key: str, **params: Any) -> str:
    return say(_lang(context), key, context.eval_ctx.autoescape, **params)


def install_jinja(env: Environment) -> None:
    """Give templates `_`, `gettext`, `ngettext`, `pgettext` (msgids) and `say` (keys)."""
    env.globals.update(
        _=_gettext, gettext=_gettext, ngettext=_ngettext, pgettext=_pgettext, say=_say
    )
