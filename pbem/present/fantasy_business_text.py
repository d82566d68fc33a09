"""Fantasy Business moves as text, for replies by mail, one compact form per step.

- choose the next card: "choose 3" / "choisir 3" (the card's number in the row)
- an open auction: "bid 12" / "miser 12", or "pass" / "passer"
- sealed bids: "bid 12" / "miser 12" ("bid 0" or "pass": no bid)
- the last card: "take" / "prendre", or "pass" / "passer"
- specials: "play theft Léo swords" / "jouer vol Léo épées", or "done" / "fini"
- prices: "swords 6, horses 8" / "épées 6, chevaux 8"

Case, accents, articles and word order do not matter. Bids and prices are read as
numbers and checked by the rules; the other steps are matched against the legal moves.
"""

from __future__ import annotations

from typing import Any

from pbem.games.fantasy_business import FantasyBusiness
from pbem.games.fantasy_business.cards import ARTICLES, SPECIAL_KINDS, card_type
from pbem.games.fantasy_business.engine import step_name
from pbem.present.text import card_name
from pbem.present.textmove import (
    TextMoveError,
    add_phrases,
    longest_match,
    number,
    phrase,
    plain_name,
    words,
)

RULES = FantasyBusiness()
CHOOSE_WORDS = frozenset(words("choose choice pick card lot choisir choisis choix carte"))
BID_WORDS = frozenset(words("bid bids offer enchere encherir miser mise offre"))
PASS_WORDS = frozenset(words("pass passe passer no non nothing rien"))
TAKE_WORDS = frozenset(words("take buy prendre prends prenez acheter achete"))
DONE_WORDS = frozenset(words("done finished end fini termine fin none aucune"))
PLAY_WORDS = frozenset(words("play jouer joue jouez use utiliser"))
SPECIAL_WORDS = frozenset(words("special specials speciale speciales"))
PRICE_WORDS = frozenset(words("price prices prix"))
# Articles and special kinds by their ids, English and French names, and short forms.
_ARTICLE_EXTRA = {
    "herbs": ["herbs", "herb", "plantes", "plante"],
    "components": ["components", "composants"],
    "bows": ["bows", "bow", "arcs", "arc"],
    "swords": ["swords", "épées", "épée"],
    "armour": ["armour", "armor", "armures", "armure"],
    "horses": ["horses", "horse", "chevaux", "cheval"],
    "scrolls": ["scrolls", "parchemins"],
    "potions": ["potions"],
}
_SPECIAL_EXTRA = {
    "subsidy": ["subsidy", "subvention"],
    "theft": ["theft", "vol"],
    "defaulting": ["defaulting", "defaulting buyer", "défaillant", "acheteur défaillant"],
    "defective": ["defective", "defective goods", "défectueux", "article défectueux"],
    "antitrust": ["antitrust", "anti-trust", "loi antitrust"],
}
ARTICLE_PHRASES: dict[tuple[str, ...], str] = {}
for _a in ARTICLES:
    add_phrases(ARTICLE_PHRASES, [_a.id, _a.en, _a.fr, *_ARTICLE_EXTRA[_a.id]], _a.id)
SPECIAL_PHRASES: dict[tuple[str, ...], str] = {}
for _k in SPECIAL_KINDS:
    add_phrases(SPECIAL_PHRASES, [_k.id, _k.en, _k.fr, *_SPECIAL_EXTRA[_k.id]], _k.id)

VERBS = {
    "en": {"choose": "choose", "bid": "bid", "pass": "pass", "take": "take", "done": "done",
           "play": "play"},
    "fr": {"choose": "choisir", "bid": "miser", "pass": "passer", "take": "prendre",
           "done": "fini", "play": "jouer"},
}  # fmt: skip


def _names_table(names: list[str], seat: int) -> dict[tuple[str, ...], int]:
    """The players by their folded names (antitrust may name oneself; empty folds skipped)."""
    table: dict[tuple[str, ...], int] = {}
    for other, name in enumerate(names):
        key = phrase(name)
        if key:
            table.setdefault(key, other)
    return table


def _only(tokens: list[str], allowed: frozenset[str]) -> bool:
    return all(w in allowed or number(w) is not None for w in tokens)


def _one_number(tokens: list[str]) -> int | None:
    values = [number(w) for w in tokens if number(w) is not None]
    if len(values) > 1:
        raise TextMoveError("mailmove.error.two_numbers")
    return values[0] if values else None


def _check_words(tokens: list[str], allowed: frozenset[str]) -> None:
    for word in tokens:
        if word not in allowed and number(word) is None:
            raise TextMoveError("mailmove.error.unknown_word", word=word[:30])


def _prices(tokens: list[str]) -> dict[str, Any]:
    """ "swords 6 horses 8" or "6 swords, 8 horses": each article with the number next to it."""
    prices: dict[str, int] = {}
    pending_article: str | None = None
    pending_number: int | None = None
    i = 0
    while i < len(tokens):
        hit = longest_match(tokens, i, ARTICLE_PHRASES)
        if hit is not None:
            if hit[1] in prices or hit[1] == pending_article:
                raise TextMoveError("mailmove.error.price_twice", article_card=hit[1])
            if pending_number is not None:
                prices[hit[1]] = pending_number
                pending_number = None
            elif pending_article is not None:
                raise TextMoveError("mailmove.error.price_missing", article_card=pending_article)
            else:
                pending_article = hit[1]
            i += hit[0]
            continue
        value = number(tokens[i])
        if value is not None:
            if pending_article is not None:
                prices[pending_article] = value
                pending_article = None
            elif pending_number is not None:
                raise TextMoveError("mailmove.error.two_numbers")
            else:
                pending_number = value
        elif tokens[i] not in PRICE_WORDS:
            raise TextMoveError("mailmove.error.unknown_word", word=tokens[i][:30])
        i += 1
    if pending_article is not None:
        raise TextMoveError("mailmove.error.price_missing", article_card=pending_article)
    if pending_number is not None or not prices:
        raise TextMoveError("mailmove.error.no_prices")
    return {"action": "prices", "prices": prices}


def _special(
    tokens: list[str], legal: list[dict[str, Any]], names: list[str], seat: int
) -> dict[str, Any]:
    """A special card play: its kind (or card id), and the player and article it names."""
    people = _names_table(names, seat)
    held = list(dict.fromkeys(m["card"] for m in legal if m["action"] == "play"))
    ids = {(*phrase(c),): c for c in held}
    kind = card = target = article = None
    i = 0
    while i < len(tokens):
        for table, slot in ((ids, "card"), (SPECIAL_PHRASES, "kind"), (people, "target"),
                            (ARTICLE_PHRASES, "article")):  # fmt: skip
            hit = longest_match(tokens, i, table)
            if hit is not None:
                if slot == "card":
                    card = hit[1]
                elif slot == "kind" and kind is None:
                    kind = hit[1]
                elif slot == "target" and target is None:
                    target = hit[1]
                elif slot == "article" and article is None:
                    article = hit[1]
                else:
                    continue
                i += hit[0]
                break
        else:
            word = tokens[i]
            if word not in PLAY_WORDS and word not in SPECIAL_WORDS:
                raise TextMoveError("mailmove.error.unknown_word", word=word[:30])
            i += 1
    matches = []
    for move in legal:
        if move["action"] != "play":
            continue
        if card is not None and move["card"] != card:
            continue
        if kind is not None and card_type(move["card"]) != kind:
            continue
        if move.get("target") != target or move.get("article") != article:
            continue
        matches.append(move)
    if card is None:
        # Copies of one kind are alike: the first copy held stands for the kind.
        firsts: dict[str, str] = {}
        for c in held:
            firsts.setdefault(card_type(c), c)
        matches = [m for m in matches if m["card"] == firsts[card_type(m["card"])]]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise TextMoveError("mailmove.error.no_match")
    raise TextMoveError("mailmove.error.ambiguous", count=len(matches))


def parse(line: str, state: dict[str, Any], seat: int, names: list[str]) -> dict[str, Any]:
    """The move a text line names in the current step; TextMoveError otherwise."""
    legal = RULES.legal_moves(state, seat)
    if not legal:
        raise TextMoveError("play.error.not_your_turn")
    tokens = words(line)
    if not tokens:
        raise TextMoveError("mailmove.error.empty")
    step = step_name(state)
    if step == "choose":
        _check_words(tokens, CHOOSE_WORDS)
        slot = _one_number(tokens)
        if slot is None:
            raise TextMoveError("mailmove.error.no_number")
        return {"action": "choose", "slot": slot - 1}
    if step in ("open", "sealed"):
        if _only(tokens, PASS_WORDS) and _one_number(tokens) is None:
            return {"action": "pass"} if step == "open" else {"action": "bid", "amount": 0}
        _check_words(tokens, BID_WORDS)
        amount = _one_number(tokens)
        if amount is None:
            raise TextMoveError("mailmove.error.no_number")
        return {"action": "bid", "amount": amount}
    if step == "single":
        if _only(tokens, PASS_WORDS) and _one_number(tokens) is None:
            return {"action": "pass"}
        _check_words(tokens, TAKE_WORDS)
        if _one_number(tokens) is not None:
            raise TextMoveError("mailmove.error.unknown_word", word=tokens[0][:30])
        return {"action": "take"}
    if step == "specials":
        if _only(tokens, DONE_WORDS | PASS_WORDS) and _one_number(tokens) is None:
            return {"action": "done"}
        return _special(tokens, legal, names, seat)
    if step == "pricing":
        return _prices(tokens)
    raise TextMoveError("mailmove.error.no_match")


def text_of(move: dict[str, Any], lang: str, names: list[str]) -> str:
    """A move's canonical text in `lang`: what the page and the turn mail show."""
    verbs = VERBS.get(lang, VERBS["en"])
    action = move["action"]
    if action == "choose":
        return f"{verbs['choose']} {move['slot'] + 1}"
    if action == "bid":
        return f"{verbs['bid']} {move['amount']}"
    if action in ("pass", "take", "done"):
        return verbs[action]
    if action == "play":
        parts = [verbs["play"], plain_name(card_name(card_type(move["card"]), lang))]
        if "target" in move:
            parts.append(names[move["target"]])
        if "article" in move:
            parts.append(plain_name(card_name(move["article"], lang)))
        return " ".join(parts)
    return ", ".join(
        f"{plain_name(card_name(a, lang))} {p}" for a, p in sorted(move["prices"].items())
    )


def _distinct_plays(legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Legal moves with one play per kind of special (the first copy held)."""
    firsts: dict[str, str] = {}
    out = []
    for move in legal:
        if move["action"] == "play":
            kind = card_type(move["card"])
            if firsts.setdefault(kind, move["card"]) != move["card"]:
                continue
        out.append(move)
    return out


def legal_texts(
    state: dict[str, Any], seat: int, lang: str, names: list[str]
) -> list[dict[str, Any]]:
    """The seat's legal moves with their texts (bids and prices: a sample, as the rules give)."""
    legal = _distinct_plays(RULES.legal_moves(state, seat))
    return [{"move": m, "text": text_of(m, lang, names)} for m in legal]


def example(state: dict[str, Any], seat: int, lang: str, names: list[str]) -> str:
    """One move of the seat, as the mail's example of an answer."""
    legal = RULES.legal_moves(state, seat)
    if not legal:
        return ""
    preferred = [m for m in legal if m["action"] not in ("pass", "done")] or legal
    return text_of(preferred[0], lang, names)
