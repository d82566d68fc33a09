"""Fantasy Business moves as text, for replies by mail, one compact form per step.

- choose the next card: "choose 3" / "choisir 3" (the card's number in the row)
- an open auction: "bid 12" / "miser 12", or "pass" / "passer"
- sealed bids: "bid 12" / "miser 12" ("bid 0" or "pass": no bid)
- the last card: "take" / "prendre", or "pass" / "passer"
- specials: "play theft Léo swords" / "jouer vol Léo épées", or "done" / "fini"
- prices: "swords 6, horses 8" / "épées 6, chevaux 8"

The orders auction (Spec, Playing by mail: the orders auction):
- order of sale: "order horses special swords" / "ordre chevaux spéciale épées", or the
  row's numbers "order 3 1 2" (cards left out follow in the row's order)
- limits: "swords 6, horses 8, special 0" / "épées 6, chevaux 8, spéciale 0" (a card
  not named: 0), or one number per card in the order of sale, "6 8 0"
- specials: "play theft Léo swords, subsidy" / "jouer vol Léo épées, subvention", in the
  order they are carried out, or "none" / "aucune"
- the Antitrust sale: "limit 7" / "plafond 7" ("0" or "pass": none)

Case, accents, articles and word order do not matter. Bids and prices are read as
numbers and checked by the rules; the other steps are matched against the legal moves.
A card of the row is named by its article (the nth "swords" is the nth Swords card) or,
face down, as "special"; its kind is never said.
"""

from __future__ import annotations

import re
from typing import Any

from pbem.games.fantasy_business import FantasyBusiness
from pbem.games.fantasy_business.cards import ARTICLES, SPECIAL_KINDS, card_type, is_special
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
ORDER_WORDS = frozenset(words("order sale sell first ordre vente vendre"))
LIMIT_WORDS = frozenset(words("limit limits max maximum most plafond limite"))
NONE_WORDS = DONE_WORDS | PASS_WORDS
# A face-down special card of the row, named without its kind.
FACE_DOWN = "special"
ROW_PHRASES: dict[tuple[str, ...], str] = {}
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
ROW_PHRASES.update(ARTICLE_PHRASES)
add_phrases(ROW_PHRASES, ["special", "special card", "spéciale", "carte spéciale"], FACE_DOWN)

VERBS = {
    "en": {"choose": "choose", "bid": "bid", "pass": "pass", "take": "take", "done": "done",
           "play": "play", "order": "order", "limit": "limit", "none": "none",
           "special": "special"},
    "fr": {"choose": "choisir", "bid": "miser", "pass": "passer", "take": "prendre",
           "done": "fini", "play": "jouer", "order": "ordre", "limit": "plafond",
           "none": "aucune", "special": "spéciale"},
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
    tokens: list[str],
    legal: list[dict[str, Any]],
    names: list[str],
    seat: int,
    partial: bool = False,
) -> dict[str, Any]:
    """A special card play: its kind (or card id), and the player and article it names.

    With `partial`, a target or article left unsaid is taken from the only play that fits.
    """
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
            if not partial or (target is not None and move.get("target") != target):
                continue
            if article is not None and move.get("article") != article:
                continue
        matches.append(move)
    exact = [m for m in matches if m.get("target") == target and m.get("article") == article]
    matches = exact or matches
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


# --- the orders auction ------------------------------------------------------------------


def row_kind(card: str) -> str:
    """A row card as a player names it: its article, or "special" when face down."""
    return FACE_DOWN if is_special(card) else card_type(card)


def _row_word(kind: str, lang: str) -> str:
    verbs = VERBS.get(lang, VERBS["en"])
    return verbs["special"] if kind == FACE_DOWN else plain_name(card_name(kind, lang))


def _named_slots(
    tokens: list[str], slots: list[int], row: list[str], allowed: frozenset[str]
) -> list[tuple[int | None, int | None]]:
    """Tokens read as cards of the row and numbers: [(slot or None, number or None)].

    The nth mention of a kind is the nth card of that kind among `slots` (in their order).
    """
    used: dict[str, int] = {}
    items: list[tuple[int | None, int | None]] = []
    i = 0
    while i < len(tokens):
        hit = longest_match(tokens, i, ROW_PHRASES)
        if hit is not None:
            kind = hit[1]
            of_kind = [slot for slot in slots if row_kind(row[slot]) == kind]
            k = used.get(kind, 0)
            if k >= len(of_kind):
                raise TextMoveError(
                    "mailmove.error.not_in_row", word=" ".join(tokens[i : i + hit[0]])[:30]
                )
            used[kind] = k + 1
            items.append((of_kind[k], None))
            i += hit[0]
            continue
        value = number(tokens[i])
        if value is not None:
            items.append((None, value))
        elif tokens[i] not in allowed:
            raise TextMoveError("mailmove.error.unknown_word", word=tokens[i][:30])
        i += 1
    return items


def _order(tokens: list[str], state: dict[str, Any]) -> dict[str, Any]:
    """Spec, Playing by mail, 2: the cards named or numbered in the order of sale."""
    row = state["row"]
    given: list[int] = []
    for slot, value in _named_slots(tokens, list(range(len(row))), row, ORDER_WORDS):
        given.append(slot if slot is not None else (value or 0) - 1)
    if not given:
        raise TextMoveError("mailmove.error.no_order", count=len(row))
    if len(set(given)) == len(given) and all(0 <= slot < len(row) for slot in given):
        # Forgiving: the cards left out are sold after, in the row's order.
        given += [slot for slot in range(len(row)) if slot not in given]
    # Anything else (a number twice, or past the row) is refused by the rules, saying why.
    return {"action": "order", "order": given}


def _limits(tokens: list[str], state: dict[str, Any]) -> dict[str, Any]:
    """Spec, Playing by mail, 3: a limit per card, by name ("swords 6") or all in sale order."""
    row = state["row"]
    order = list(state["order"])
    if _only(tokens, NONE_WORDS | LIMIT_WORDS) and _no_number(tokens) and _says_none(tokens):
        return {"action": "limits", "limits": [0] * len(row)}
    items = _named_slots(tokens, order, row, LIMIT_WORDS)
    numbers = [value for slot, value in items if slot is None]
    if all(slot is None for slot, _ in items):
        # Bare numbers: one per card, in the order of sale the page shows.
        if len(numbers) != len(row):
            raise TextMoveError("mailmove.error.limits_count", count=len(row))
        limits = [0] * len(row)
        for slot, value in zip(order, numbers, strict=True):
            limits[slot] = value or 0
        return {"action": "limits", "limits": limits}
    chosen: dict[int, int] = {}
    pending_slot: int | None = None
    pending_number: int | None = None
    for slot, value in items:
        if slot is not None:
            if pending_number is not None:
                chosen[slot] = pending_number
                pending_number = None
            elif pending_slot is not None:
                raise TextMoveError(
                    "mailmove.error.limit_missing", number=order.index(pending_slot) + 1
                )
            else:
                pending_slot = slot
        elif pending_slot is not None:
            chosen[pending_slot] = value or 0
            pending_slot = None
        elif pending_number is not None:
            raise TextMoveError("mailmove.error.two_numbers")
        else:
            pending_number = value
    if pending_slot is not None:
        raise TextMoveError("mailmove.error.limit_missing", number=order.index(pending_slot) + 1)
    if pending_number is not None:
        raise TextMoveError("mailmove.error.two_numbers")
    return {"action": "limits", "limits": [chosen.get(slot, 0) for slot in range(len(row))]}


def _says_none(tokens: list[str]) -> bool:
    """Whether a word says "nothing" ("none", "pass", "aucune", ...)."""
    return any(w in NONE_WORDS for w in tokens)


def _no_number(tokens: list[str]) -> bool:
    """Whether the tokens hold no number."""
    values = [number(w) for w in tokens if number(w) is not None]
    return not values


def _segments(line: str) -> list[list[str]]:
    """A list of plays split at commas, semicolons and "then" / "puis"."""
    pieces = re.split(r"[,;/+]|\b(?:then|puis|ensuite)\b", line, flags=re.IGNORECASE)
    return [tokens for piece in pieces if (tokens := words(piece))]


def _lists(
    line: str, tokens: list[str], state: dict[str, Any], seat: int, names: list[str]
) -> dict[str, Any]:
    """Spec, Playing by mail, 5: the specials played, in order, each with its target."""
    if (
        _only(tokens, NONE_WORDS | PLAY_WORDS | SPECIAL_WORDS)
        and _no_number(tokens)
        and _says_none(tokens)
    ):
        return {"action": "specials", "plays": []}
    legal = [
        {"action": "play", **move["plays"][0]}
        for move in RULES.legal_moves(state, seat)
        if move["plays"]
    ]
    held = list(state["specials"][seat])
    plays: list[dict[str, Any]] = []
    for piece in _segments(line):
        for part in _split_at_kinds(piece, held, names, seat):
            plays.append(_one_play(part, legal, plays, names, seat))
    if not plays:
        raise TextMoveError("mailmove.error.empty")
    return {"action": "specials", "plays": plays}


def _split_at_kinds(
    tokens: list[str], held: list[str], names: list[str], seat: int
) -> list[list[str]]:
    """Tokens cut before each special card named after the first ("theft Léo swords subsidy")."""
    ids = {(*phrase(c),): c for c in held}
    parts: list[list[str]] = [[]]
    seen_card = False
    i = 0
    while i < len(tokens):
        hit = longest_match(tokens, i, ids) or longest_match(tokens, i, SPECIAL_PHRASES)
        people = longest_match(tokens, i, _names_table(names, seat))
        if hit is not None and (people is None or people[0] < hit[0]):
            if seen_card:
                parts.append([])
            seen_card = True
            parts[-1].extend(tokens[i : i + hit[0]])
            i += hit[0]
            continue
        parts[-1].append(tokens[i])
        i += 1
    return [part for part in parts if part]


def _one_play(
    tokens: list[str],
    legal: list[dict[str, Any]],
    chosen: list[dict[str, Any]],
    names: list[str],
    seat: int,
) -> dict[str, Any]:
    """One play of a list: a copy of the kind not listed yet, with its target and article."""
    taken = {play["card"] for play in chosen}
    free = [m for m in legal if m["card"] not in taken]
    move = _special(tokens, free, names, seat, partial=True)
    return {k: v for k, v in move.items() if k != "action"}


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
    if step == "order":
        return _order(tokens, state)
    if step == "limits":
        return _limits(tokens, state)
    if step == "lists":
        return _lists(line, tokens, state, seat, names)
    if step == "antitrust_limits":
        if _only(tokens, PASS_WORDS | NONE_WORDS) and _no_number(tokens):
            return {"action": "limit", "amount": 0}
        _check_words(tokens, LIMIT_WORDS | BID_WORDS)
        amount = _one_number(tokens)
        if amount is None:
            raise TextMoveError("mailmove.error.no_number")
        return {"action": "limit", "amount": amount}
    raise TextMoveError("mailmove.error.no_match")


def text_of(
    move: dict[str, Any], lang: str, names: list[str], state: dict[str, Any] | None = None
) -> str:
    """A move's canonical text in `lang`: what the page and the turn mail show.

    The orders auction's order of sale and limits name the row's cards: pass the state.
    """
    verbs = VERBS.get(lang, VERBS["en"])
    action = move["action"]
    if action == "choose":
        return f"{verbs['choose']} {move['slot'] + 1}"
    if action == "bid":
        return f"{verbs['bid']} {move['amount']}"
    if action == "limit":
        return f"{verbs['limit']} {move['amount']}"
    if action in ("pass", "take", "done"):
        return verbs[action]
    if action == "play":
        return f"{verbs['play']} {_play_text(move, lang, names)}"
    if action == "specials":
        if not move["plays"]:
            return verbs["none"]
        return verbs["play"] + " " + ", ".join(_play_text(p, lang, names) for p in move["plays"])
    if action == "order":
        return _order_text(move["order"], lang, state)
    if action == "limits":
        row, order = _row_and_order(state)
        return ", ".join(
            f"{_row_word(row_kind(row[slot]), lang)} {move['limits'][slot]}" for slot in order
        )
    return ", ".join(
        f"{plain_name(card_name(a, lang))} {p}" for a, p in sorted(move["prices"].items())
    )


def _row_and_order(state: dict[str, Any] | None) -> tuple[list[str], list[int]]:
    if state is None:
        raise ValueError("the orders auction's moves are said with the row: give the state")
    return state["row"], list(state["order"])


def _play_text(play: dict[str, Any], lang: str, names: list[str]) -> str:
    """A special card play without its verb: "theft Léo swords"."""
    parts = [plain_name(card_name(card_type(play["card"]), lang))]
    if "target" in play:
        parts.append(names[play["target"]])
    if "article" in play:
        parts.append(plain_name(card_name(play["article"], lang)))
    return " ".join(parts)


def _order_text(order: list[int], lang: str, state: dict[str, Any] | None) -> str:
    """An order of sale by the cards' names when that reads back the same, else by numbers."""
    row, _ = _row_and_order(state)
    verbs = VERBS.get(lang, VERBS["en"])
    named = " ".join([verbs["order"], *(_row_word(row_kind(row[slot]), lang) for slot in order)])
    try:
        if _order(words(named), {"row": row})["order"] == list(order):
            return named
    except TextMoveError:
        pass
    return " ".join([verbs["order"], *(str(slot + 1) for slot in order)])


def _distinct_plays(legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Legal moves with one play per kind of special (the first copy held)."""
    firsts: dict[str, str] = {}
    out = []
    for move in legal:
        single = move["plays"] if move["action"] == "specials" else [move]
        if len(single) == 1 and single[0].get("card") and move["action"] in ("play", "specials"):
            kind = card_type(single[0]["card"])
            if firsts.setdefault(kind, single[0]["card"]) != single[0]["card"]:
                continue
        out.append(move)
    return out


def legal_texts(
    state: dict[str, Any], seat: int, lang: str, names: list[str]
) -> list[dict[str, Any]]:
    """The seat's legal moves with their texts (bids, limits, prices: a sample, as the rules
    give)."""
    legal = _distinct_plays(RULES.legal_moves(state, seat))
    return [{"move": m, "text": text_of(m, lang, names, state)} for m in legal]


def example(state: dict[str, Any], seat: int, lang: str, names: list[str]) -> str:
    """One move of the seat, from its own situation, as the mail's example of an answer."""
    legal = RULES.legal_moves(state, seat)
    if not legal:
        return ""
    step = step_name(state)
    if step == "order" and len(legal) > 1:
        # An order that differs from the row's own, by names when they read back.
        texts = [text_of(m, lang, names, state) for m in legal[1:]]
        return next((t for t in texts if not t.split()[-1].isdigit()), texts[0])
    if step == "limits":
        # Every card the seat can afford, at its base price.
        bids = [m for m in legal if sum(1 for v in m["limits"] if v) > 0]
        widest = max(bids, key=lambda m: sum(1 for v in m["limits"] if v), default=legal[0])
        return text_of(widest, lang, names, state)
    if step == "lists":
        plays = [m for m in legal if m["plays"]]
        return text_of(plays[0] if plays else legal[0], lang, names, state)
    preferred = [
        m for m in legal if m["action"] not in ("pass", "done") and m.get("amount") != 0
    ] or legal
    return text_of(preferred[0], lang, names, state)
