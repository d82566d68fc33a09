"""A plan ahead on the two-player Colour Bazaar table: their moves grouped by card, the table as
it would be after the one picked (the answer is chosen on it as a move is made), and the plan's
lines in words. Everything comes from what the planner can see (pbem.games.ahead): their moves
are the cards it cannot place, the table after them keeps its hands and pile imagined, and
only the cards it knows it holds are offered as its answer."""

from __future__ import annotations

from typing import Any

from pbem.games import GameError, ahead
from pbem.games.colour_bazaar import ColourBazaar
from pbem.games.decktet import CARDS, SUITS
from pbem.present.colour_bazaar import card_info, play_context, suit_info
from pbem.present.colour_bazaar_text import text_of
from pbem.present.text import render_for, say, suit_name

RULES = ColourBazaar()
_DECK_ORDER = {card: place for place, card in enumerate(CARDS)}


def their_value(move: dict[str, Any]) -> str:
    """Their move as a page names it: "card@market", "card@market/suit" for a Court (the
    market from 0, as in the turn form); the chip left out: a line is whatever chip."""
    value = f"{move['card']}@{move['market']}"
    return f"{value}/{move['suit']}" if move.get("suit") else value


def read_their_value(value: str | None) -> dict[str, Any] | None:
    """The move of theirs (without its chip) that a page's value names, or None."""
    card, sep, rest = (value or "").partition("@")
    market, _, suit = rest.partition("/")
    if not sep or card not in CARDS or not market.isdecimal() or len(market) > 1:
        return None
    if suit and suit not in SUITS:
        return None
    move: dict[str, Any] = {"card": card, "market": int(market)}
    if suit:
        move["suit"] = suit
    return move


def their_cards(table: dict[str, Any], seat: int, lang: str) -> list[dict[str, Any]]:
    """Their moves `seat` can imagine on `table`, by card in the deck's order: each card with
    the markets it may go on (a Court once for each suit it may name)."""
    by_card: dict[str, dict[str, Any]] = {}
    for move in ahead.their_moves(table, seat):
        if "card" not in move:
            continue  # a chip alone: their hand is empty, there is no card to tap
        entry = by_card.setdefault(move["card"], {"card": card_info(move["card"], lang), "on": []})
        value = their_value(move)
        if all(on["value"] != value for on in entry["on"]):
            named = suit_info(move["suit"], lang) if move.get("suit") else None
            entry["on"].append({"value": value, "market": move["market"] + 1, "suit": named})
    return sorted(by_card.values(), key=lambda e: _DECK_ORDER[e["card"]["id"]])


def answer_table(
    table: dict[str, Any],
    seat: int,
    theirs: dict[str, Any],
    known: set[str],
    lang: str,
    names: list[str],
) -> dict[str, Any] | None:
    """The table after their move, as the turn form shows one, for `seat` to answer on: the
    markets, the values, its choices among the cards it knows it holds. Their chip is the
    one of which most are left (whatever chip they take, the answers are the same, but for
    the last chip of a suit). None when they cannot make the move as far as `seat` sees."""
    moves = [m for m in ahead.their_moves(table, seat) if ahead.chipless(m) == theirs]
    if not moves:
        return None
    move = max(moves, key=lambda m: table["chips_left"][m["chip"]])
    after = ahead.after_theirs(table, seat, move)
    if after["over"]:
        raise ahead.BadPlan("ahead.error.game_ends")
    shown = play_context(after, RULES.view(after, seat), seat, lang, names)
    # The imagined table may deal a card into the hand (after an answer above): never offered.
    shown["hand"] = [c for c in shown["hand"] if c["id"] in known]
    form = shown["form"]
    if form:
        form["discards"] = [c for c in form["discards"] if c["id"] in known]
    return shown


def plan_lines(
    table: dict[str, Any], seat: int, tree: list[dict[str, Any]], lang: str, names: list[str]
) -> list[dict[str, Any]]:
    """The plan's lines in words (pbem.games.ahead.lines_of): their move, the answer as its
    review says it ("You play…"), the chips of theirs it leaves out, the lines after it."""
    lines = []
    chips = [s for s in SUITS if table["chips_left"][s]]
    for line in ahead.lines_of(tree):
        first = tree[line["indexes"][0]]
        missing = [suit_name(s, lang) for s in chips if s not in line["chips"]]
        deeper: list[dict[str, Any]] = []
        try:
            after = ahead.imagined_after(table, seat, first["if"], first["then"])
            deeper = plan_lines(after, seat, first.get("next") or [], lang, names)
        except GameError:
            pass  # a plan is kept for the table it was made on; nothing after it to say
        lines.append(
            {
                "theirs": their_words(line["if"], lang),
                "mine": _answer_words(table, seat, first["if"], line["then"], lang, names),
                "missing": say(lang, "list.or").join(missing) if line["chips"] else "",
                "next": deeper,
            }
        )
    return lines


def their_words(move: dict[str, Any], lang: str) -> dict[str, Any]:
    """Their move's parts as a sentence names them: the card, the market (from 1), the suit."""
    if "card" not in move:
        return {"card": None, "market": None, "suit": None}
    named = suit_name(move["suit"], lang) if move.get("suit") else None
    return {"card": card_info(move["card"], lang)["name"], "market": move["market"] + 1,
            "suit": named}  # fmt: skip


def _answer_words(
    table: dict[str, Any],
    seat: int,
    theirs: dict[str, Any],
    mine: dict[str, Any],
    lang: str,
    names: list[str],
) -> str:
    """My answer as the review of a move says it, on the table after their move."""
    try:
        after = ahead.after_theirs(table, seat, theirs)
        said = RULES.review(after, seat, mine)
    except GameError:
        return text_of(mine, lang)
    return " ".join(render_for(m, lang, names, seat, review=True) for m in said)
