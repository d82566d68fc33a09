"""Card and suit-symbol markup, built once per card face and language and then reused.

A page shows dozens of cards and symbols, and a dozen log entries: templates call these
globals directly (no macro between), and they give the same HTML from a cache.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from flask import Flask
from markupsafe import Markup, escape

_Suit = tuple[str, str]  # id, name


@lru_cache(maxsize=512)
def _sym(suit: _Suit) -> Markup:
    ident, name = suit
    return Markup(
        '<svg class="sym" role="img" aria-label="{0}"><title>{0}</title><use href="#s-{1}"/></svg>'
    ).format(name, ident)


@lru_cache(maxsize=4096)
def _card(kind: str, mark: str, name: str, suits: tuple[_Suit, ...], extra: str) -> Markup:
    edge = suits[0][0] if suits else "none"  # a class, not a style: the CSP allows no inline style
    symbols = Markup("").join(_sym(s) for s in suits)
    # A span (not a div), so that a card may sit in a button, a label or a summary.
    return Markup(
        '<span class="card {0} {1} edge-{2}">'
        '<span class="mark">{3}</span><span class="suits">{5}</span>'
        '<span class="name">{4}</span></span>'
    ).format(kind, extra, edge, mark, name, symbols)


def _suit_key(suit: Mapping[str, Any]) -> _Suit:
    # Only what the markup shows: a rules page's suits carry no colour, a table's do.
    return (str(suit["id"]), str(suit["name"]))


def sym_html(suit: Mapping[str, Any]) -> Markup:
    """A suit's symbol, with its name for screen readers."""
    return _sym(_suit_key(suit))


def card_html(card: Mapping[str, Any], extra: str = "") -> Markup:
    """A card face: rank mark in its corner, suit symbols and name, edged in its first suit's
    colour (the symbols' shapes tell the suits apart without colour)."""
    suits = tuple(_suit_key(s) for s in card.get("suits") or ())
    kind, mark, name = (str(card.get(key, "")) for key in ("kind", "mark", "name"))
    return _card(kind, mark, name, suits, str(extra))


def said(text: list[str]) -> Markup:
    """A log entry's lines: the mover's own line, then what the table did after it (a sale
    worked out, lists carried out) as lines of their own, not run on as the mover's words."""
    if not text:
        return Markup("")
    html = escape(text[0])
    if len(text) > 1:
        lines = Markup("").join(Markup("<li>{0}</li>").format(line) for line in text[1:])
        html += Markup('<ul class="then">{0}</ul>').format(lines)
    return html


def said_html(entry: Mapping[str, Any]) -> Markup:
    """A log entry in HTML: made once with the entry when it is kept (pbem/web/game.py)."""
    made = entry.get("html")
    return made if made is not None else said(entry.get("text") or [])


def init_app(app: Flask) -> None:
    """Give templates card_html(), sym_html() and said_html()."""
    app.jinja_env.globals.update(card_html=card_html, sym_html=sym_html, said_html=said_html)
