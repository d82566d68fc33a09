"""Page and mail strings from the catalogues in pbem/catalogue/, with game strings as fallback."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from pbem.games import text as game_text

LANGUAGES: tuple[str, ...] = ("en", "fr")
_DIR = Path(__file__).with_name("catalogue")


@cache
def catalogue(lang: str) -> dict[str, str]:
    """The site strings of one language: `<lang>.json`, then each `<part>.<lang>.json`."""
    merged: dict[str, str] = {}
    for path in [_DIR / f"{lang}.json", *sorted(_DIR.glob(f"*.{lang}.json"))]:
        if path.exists():
            merged.update(json.loads(path.read_text(encoding="utf-8")))
    return merged


def t(lang: str, key: str, **params: Any) -> str:
    """The string for `key` in `lang` (English, then the game catalogues, as fallbacks)."""
    template = catalogue(lang).get(key) or catalogue("en").get(key) or game_text.lookup(key, lang)
    try:
        return template.format(**params) if params else template
    except (KeyError, IndexError, ValueError):
        return template


def best_lang(header_value: str | None, default: str = "en") -> str:
    """The first supported language in an Accept-Language header."""
    for part in (header_value or "").split(","):
        code = part.split(";")[0].strip().lower()[:2]
        if code in LANGUAGES:
            return code
    return default
