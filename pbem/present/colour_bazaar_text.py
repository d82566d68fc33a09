"""Colour Bazaar moves as text, for replies by mail: "play castle 2 knots", "jouer château 2 nœuds".

A move line names a card (its English or French name, or its id), a market number
(1-4, as on the page) and the suit of the chip taken; a Court names its suit before
the chip ("play consul 3 moons chip knots"). "discard castle knots" throws a card away
when none can be played. Case, accents, articles and word order do not matter; the line
is matched against the seat's legal moves, so a line naming none or several is refused.
"""

from __future__ import annotations

from typing import Any

from pbem.games.colour_bazaar import ColourBazaar
from pbem.games.decktet import CARDS, SUITS
from pbem.present.text import card_name, suit_name
from pbem.present.textmove import (
    TextMoveError,
    add_phrases,
    longest_match,
    number,
    phrase,
    plain_name,
    words,
)

RULES = ColourBazaar()
PLAY_WORDS = frozenset(words("play jouer joue jouez pose poser posez place placer put"))
DISCARD_WORDS = frozenset(words("discard defausse defausser defaussez jette jeter throw"))
CHIP_WORDS = frozenset(words("chip chips jeton jetons take prendre prends prenez"))
NAMING_WORDS = frozenset(words("naming suit nommant couleur"))
MARKET_WORDS = frozenset(words("market marche"))
# Suits by their English and French names, singular and plural.
_SUIT_NAMES: dict[str, list[str]] = {
    "moons": ["moons", "moon", "lunes", "lune"],
    "suns": ["suns", "sun", "soleils", "soleil"],
    "waves": ["waves", "wave", "vagues", "vague"],
    "leaves": ["leaves", "leaf", "feuilles", "feuille"],
    "wyrms": ["wyrms", "wyrm", "vouivres", "vouivre"],
    "knots": ["knots", "knot", "nœuds", "noeud", "nœud"],
}
SUIT_PHRASES: dict[tuple[str, ...], str] = {}
for _suit, _names in _SUIT_NAMES.items():
    add_phrases(SUIT_PHRASES, _names + [suit_name(_suit, "en"), suit_name(_suit, "fr")], _suit)


def card_phrases(card_ids: set[str]) -> dict[tuple[str, ...], str]:
    """The folded names of the given cards: id, English and French names; aces in any mix."""
    table: dict[tuple[str, ...], str] = {}
    for card in sorted(card_ids):
        add_phrases(table, [card, card_name(card, "en"), card_name(card, "fr")], card)
        if CARDS[card].kind == "ace":
            suit = CARDS[card].suits[0]
            for ace in ("ace", "as"):
                for name in _SUIT_NAMES[suit]:
                    table.setdefault((ace, *phrase(name)), card)
    return table


def _read(line: str, hand: set[str]) -> dict[str, Any]:
    """The parts a line names: verb, card, market, suits (each marked as chip or not)."""
    tokens = words(line)
    cards = card_phrases(set(CARDS))
    found: dict[str, Any] = {"verb": None, "card": None, "market": None, "suits": []}
    chip_next = naming_next = False
    i = 0
    while i < len(tokens):
        word = tokens[i]
        # "market 2" is the market, unless The Market is in hand and no card is named yet.
        market_word = (
            word in MARKET_WORDS and i + 1 < len(tokens) and number(tokens[i + 1]) is not None
        )
        hit = longest_match(tokens, i, cards)
        if hit is not None and found["card"] is None and (hit[1] in hand or not market_word):
            found["card"] = hit[1]
            i += hit[0]
            continue
        if market_word:
            i += 1
            continue
        suit = longest_match(tokens, i, SUIT_PHRASES)
        if suit is not None:
            mark = "chip" if chip_next else "named" if naming_next else ""
            found["suits"].append((suit[1], mark))
            chip_next = naming_next = False
            i += suit[0]
            continue
        value = number(word)
        if value is not None:
            if found["market"] is not None:
                raise TextMoveError("mailmove.error.two_numbers")
            found["market"] = value
        elif word in PLAY_WORDS or word in DISCARD_WORDS:
            verb = "play" if word in PLAY_WORDS else "discard"
            if found["verb"] not in (None, verb):
                raise TextMoveError("mailmove.error.play_and_discard")
            found["verb"] = verb
        elif word in CHIP_WORDS:
            chip_next = True
        elif word in NAMING_WORDS:
            naming_next = True
        else:
            raise TextMoveError("mailmove.error.unknown_word", word=word[:30])
        i += 1
    return found


def _suits_fit(move: dict[str, Any], suits: list[tuple[str, str]]) -> bool:
    """Whether the suits named fit the move's chip (and a Court's named suit)."""
    chip, named = move["chip"], move.get("suit")
    if named is None:
        return len(suits) == 1 and suits[0][0] == chip
    if len(suits) == 1:
        suit, mark = suits[0]
        return (mark != "named" and suit == chip) or (mark != "chip" and suit == named)
    if len(suits) != 2:
        return False
    (first, first_mark), (second, second_mark) = suits
    if first_mark == "chip" or second_mark == "named":
        first, second = second, first  # "chip knots, moons": the other one is the named suit
    return (first, second) == (named, chip)


def parse(line: str, state: dict[str, Any], seat: int, names: list[str]) -> dict[str, Any]:
    """The one legal move a text line names; TextMoveError otherwise."""
    legal = RULES.legal_moves(state, seat)
    if not legal:
        raise TextMoveError("play.error.not_your_turn")
    return match(line, legal, set(state["hands"][seat]))


def match(line: str, legal: list[dict[str, Any]], hand: set[str]) -> dict[str, Any]:
    """The one move of `legal` a text line names, its cards read among `hand`; TextMoveError
    otherwise (a plan ahead reads the other's moves with the cards they may hold)."""
    found = _read(line, hand)
    if found["card"] is not None and found["card"] not in hand:
        raise TextMoveError("mailmove.error.not_in_hand", card=found["card"])
    if not found["suits"] and found["card"] is None and found["market"] is None:
        raise TextMoveError("mailmove.error.empty")
    matches = []
    for move in legal:
        if "discard" in move:
            if found["verb"] == "play" or found["market"] is not None:
                continue
            if found["card"] != move["discard"]:
                continue
        elif "card" in move:
            if found["verb"] == "discard" or found["card"] != move["card"]:
                continue
            if found["market"] is not None and found["market"] != move["market"] + 1:
                continue
        elif found["card"] is not None or found["market"] is not None:
            continue
        if _suits_fit(move, found["suits"]):
            matches.append(move)
    if len(matches) == 1:
        return matches[0]
    if not matches:
        if found["card"] is None and found["verb"] != "discard" and "card" in legal[0]:
            raise TextMoveError("mailmove.error.no_card")
        if not found["suits"]:
            raise TextMoveError("mailmove.error.no_chip")
        raise TextMoveError("mailmove.error.no_match")
    raise TextMoveError("mailmove.error.ambiguous", count=len(matches))


VERBS = {
    "en": {"play": "play", "discard": "discard", "chip": "chip"},
    "fr": {"play": "jouer", "discard": "défausser", "chip": "jeton"},
}


def text_of(move: dict[str, Any], lang: str) -> str:
    """A move's canonical text in `lang`: what the page and the turn mail show."""
    verbs = VERBS.get(lang, VERBS["en"])
    chip = plain_name(suit_name(move["chip"], lang))
    if "card" in move:
        card = plain_name(card_name(move["card"], lang))
        head = f"{verbs['play']} {card} {move['market'] + 1}"
        if "suit" in move:
            return f"{head} {plain_name(suit_name(move['suit'], lang))} {verbs['chip']} {chip}"
        return f"{head} {chip}"
    if "discard" in move:
        return f"{verbs['discard']} {plain_name(card_name(move['discard'], lang))} {chip}"
    return f"{verbs['chip']} {chip}"


def legal_texts(
    state: dict[str, Any], seat: int, lang: str, names: list[str]
) -> list[dict[str, Any]]:
    """Every legal move of the seat with its text, in the rules' order."""
    return [{"move": m, "text": text_of(m, lang)} for m in RULES.legal_moves(state, seat)]


def example(state: dict[str, Any], seat: int, lang: str, names: list[str]) -> str:
    """One move from the seat's own hand, as the mail's example of an answer."""
    legal = RULES.legal_moves(state, seat)
    return text_of(legal[0], lang) if legal else ""


__all__ = ["SUITS", "TextMoveError", "example", "legal_texts", "parse", "text_of"]
