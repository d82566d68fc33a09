"""What every game's text-move parser shares: words folded for comparison, phrases found.

A text move ("play castle 2 knots", "jouer château 2 nœuds") is read as a list of
folded words: lower case, no accents, œ as oe, punctuation as spaces, a plural
"s" dropped, and the little words of both languages (the, of, le, de, ...) left out.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any

# Words that carry no meaning in a move, in English and French.
FILLER = frozenset(
    "the a an of on to in at and with then my please thanks "
    "le la les l de du des d sur au aux en et puis avec un une mon ma mes stp svp merci".split()
)
NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "un": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7, "huit": 8,
}  # fmt: skip


class TextMoveError(ValueError):
    """A text that is not a move, or names none or several of the legal moves; a catalogue key."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


def fold_word(word: str) -> str:
    """One word as compared: a plural "s" dropped (not from short words like "as")."""
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def words(text: str, keep_filler: bool = False) -> list[str]:
    """The folded words of a text; numbers stay as digit strings."""
    text = text.replace("œ", "oe").replace("Œ", "oe").replace("æ", "ae").replace("Æ", "ae")
    decomposed = unicodedata.normalize("NFKD", text.lower())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    # Only ASCII letters and digits count: anything else separates words.
    raw = re.sub(r"[^a-z0-9]+", " ", plain).split()
    out = []
    for word in raw:
        # "2knots" or "knots2": split digits from letters.
        for part in re.findall(r"[0-9]+|[a-z]+", word):
            if not keep_filler and part in FILLER:
                continue
            out.append(part if part.isdigit() else fold_word(part))
    return out


def phrase(text: str) -> tuple[str, ...]:
    """A name folded to the words a player would type for it."""
    return tuple(words(text))


def number(word: str) -> int | None:
    """A word as a whole number (digits or a small number word), or None."""
    if word.isdigit() and len(word) <= 4:
        return int(word)
    return NUMBER_WORDS.get(word)


def longest_match(
    tokens: list[str], start: int, phrases: dict[tuple[str, ...], Any]
) -> tuple[int, Any] | None:
    """The longest phrase starting at `start`: (its length, its value), or None."""
    best = None
    for length in range(min(6, len(tokens) - start), 0, -1):
        key = tuple(tokens[start : start + length])
        if key in phrases:
            best = (length, phrases[key])
            break
    return best


def add_phrases(table: dict[tuple[str, ...], Any], names: Iterable[str], value: Any) -> None:
    """Index each name's folded form under `value` (an empty fold is skipped)."""
    for name in names:
        key = phrase(name)
        if key:
            table.setdefault(key, value)


def plain_name(name: str) -> str:
    """A display name as typed in a move: lower case, œ as oe, the article kept off."""
    lowered = name.replace("œ", "oe").replace("Œ", "Oe").lower()
    for article in ("the ", "le ", "la ", "les ", "l'", "l’"):
        if lowered.startswith(article):
            return lowered[len(article) :]
    return lowered


def first_move(
    parse: Callable[..., Any], lines: list[str], state: Any, seat: int, names: list[str]
) -> tuple[Any, str]:
    """The move the first line that reads as one holds, with that line; TextMoveError (the
    first line's, else "no move found") when none does."""
    first_error: TextMoveError | None = None
    for line in lines:
        try:
            return parse(line, state, seat, names), line
        except TextMoveError as exc:
            first_error = first_error or exc
    raise first_error or TextMoveError("mailmove.error.empty")
