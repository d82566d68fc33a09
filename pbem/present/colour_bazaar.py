"""Colour Bazaar on the page and in mail: cards with names and suits, the turn form, results."""

from __future__ import annotations

from typing import Any

from pbem.games.colour_bazaar import allowed_plays, market_values, suit_values
from pbem.games.decktet import CARDS, SUIT_COLOURS, SUITS
from pbem.present.common import FormError
from pbem.present.text import card_name, suit_name


def suit_info(suit: str, lang: str) -> dict[str, str]:
    """A suit's id, name and colour."""
    return {"id": suit, "name": suit_name(suit, lang), "colour": SUIT_COLOURS[suit]}


def card_info(card_id: str, lang: str) -> dict[str, Any]:
    """What a card face shows: rank mark, name and suits."""
    card = CARDS[card_id]
    mark = {"ace": "A", "crown": "♛", "pawn": "P", "court": "C"}.get(card.kind, str(card.rank))
    return {
        "id": card.id,
        "name": card_name(card.id, lang),
        "kind": card.kind,
        "rank": card.rank,
        "mark": mark,
        "suits": [suit_info(s, lang) for s in card.suits],
    }


def play_context(
    state: dict[str, Any],
    view: dict[str, Any],
    seat: int | None,
    lang: str,
    names: list[str],
    whole: bool = False,  # unused: this page has no history that grows
) -> dict[str, Any]:
    """Everything the play page shows, from the seat's view."""
    values = suit_values(view["markets"])
    markets = []
    for index, market in enumerate(view["markets"]):
        scoring = market_values(market)
        cards = [card_info(c, lang) for c in market]
        markets.append(
            {
                "number": index + 1,
                "cards": cards,
                # The board shows the top card large and the ones under it nearest first.
                "top": cards[-1],
                "under": cards[-2::-1],
                "values": [{**suit_info(s, lang), "value": scoring[s]["value"]} for s in SUITS],
            }
        )
    players = []
    for number, name in enumerate(names):
        players.append(
            {
                "seat": number,
                "name": name,
                "chips": [{**suit_info(s, lang), "count": view["chips"][number][s]} for s in SUITS],
                "worth": sum(view["chips"][number][s] * values[s] for s in SUITS),
                "cards": view["hands"][number]["count"],
                "known": [card_info(c, lang) for c in view["hands"][number]["known"]],
                "discards": view["discard_counts"][number],
                "to_act": number in view["to_act"],
            }
        )
    context: dict[str, Any] = {
        "markets": markets,
        "players": players,
        "suits": [
            {**suit_info(s, lang), "left": view["chips_left"][s], "value": values[s]} for s in SUITS
        ],
        "draw_count": view["draw_count"],
        "edict": None,
        "hand": [],
        "form": None,
        "my_discards": [],
    }
    edict = view["edict"]
    if edict:
        context["edict"] = {
            "court": card_info(edict["court"], lang),
            "suit": suit_info(edict["suit"], lang),
            "market": edict["market"] + 1,
            "seat": edict["seat"],
            "name": names[edict["seat"]],
        }
    if seat is None:
        return context
    context["my_discards"] = [card_info(c, lang) for c in view["my_discards"]]
    my_turn = not view["over"] and seat in view["to_act"]
    plays = allowed_plays(state, seat) if my_turn else []
    fits: dict[str, list[int]] = {}
    for card, market in plays:
        fits.setdefault(card, []).append(market + 1)
    context["hand"] = [
        {**card_info(c, lang), "playable": c in fits, "markets": fits.get(c, [])}
        for c in view["hand"]
    ]
    if my_turn:
        options: list[dict[str, Any]] = []
        for card, market in plays:
            info = card_info(card, lang)
            if CARDS[card].kind == "court":
                # Courts: one choice per suit it may name, so the suit always fits the card.
                options.extend(
                    {
                        "value": f"{card}@{market}/{s['id']}",
                        "card": info,
                        "market": market + 1,
                        "suit": s,
                    }
                    for s in info["suits"]
                )
            else:
                options.append({"value": f"{card}@{market}", "card": info, "market": market + 1})
        discards = [] if plays else [card_info(c, lang) for c in view["hand"]]
        # The choices sit at the cards of the hand: each card lists where it may go.
        for entry in context["hand"]:
            entry["options"] = [o for o in options if o["card"]["id"] == entry["id"]]
        context["form"] = {
            "plays": options,
            "discards": discards,
            # Each chip with what it is worth now, to choose without looking elsewhere.
            "chips": [
                {**suit_info(s, lang), "value": values[s], "left": view["chips_left"][s]}
                for s in SUITS
                if view["chips_left"][s]
            ],
        }
    return context


# What a queued turn mail keeps of the seat's view: the table it shows (turn_table).
_MAIL_KEYS = ("markets", "chips", "chips_left", "hand", "edict", "to_act", "over")


def mail_view(view: dict[str, Any]) -> dict[str, Any]:
    """What a queued turn mail keeps of the seat's view: only what its table shows."""
    return {k: view[k] for k in _MAIL_KEYS if k in view}


def turn_table(
    view: dict[str, Any], seat: int, names: list[str], lang: str
) -> dict[str, Any] | None:
    """For a turn mail: the table as the seat sees it, in words. Each market's top card and
    what it gives each suit now, the seat's hand, its chips with what they are worth, the
    chips left and the edict it must follow; None when it is not the seat's turn."""
    if view["over"] or seat not in view["to_act"] or "hand" not in view:
        return None
    values = suit_values(view["markets"])
    markets = []
    for index, market in enumerate(view["markets"]):
        scoring = market_values(market)
        gives = [(suit_name(s, lang), scoring[s]["value"]) for s in SUITS if scoring[s]["value"]]
        markets.append({"number": index + 1, "top": card_name(market[-1], lang), "gives": gives})
    held = view["chips"][seat]
    edict = view["edict"]
    return {
        "markets": markets,
        "hand": [card_name(c, lang) for c in view["hand"]],
        "chips": [(suit_name(s, lang), held[s]) for s in SUITS if held[s]],
        "points": sum(held[s] * values[s] for s in SUITS),
        "left": [
            (suit_name(s, lang), values[s], view["chips_left"][s])
            for s in SUITS
            if view["chips_left"][s]
        ],
        "edict": {
            "suit": suit_name(edict["suit"], lang),
            "market": edict["market"] + 1,
            "court": card_name(edict["court"], lang),
        }
        if edict and edict["seat"] == seat
        else None,
    }


def parse_form(form: Any) -> dict[str, Any]:
    """The move a turn form describes; FormError when a part is missing or garbled."""
    play = str(form.get("play", "")).strip()
    chip = str(form.get("chip", "")).strip()
    play, _, named = play.partition("/")
    if not play:
        raise FormError("cb.form.no_card")
    if not chip:
        raise FormError("cb.form.no_chip")
    move: dict[str, Any] = {"chip": chip}
    if play.startswith("discard:"):
        move["discard"] = play[len("discard:") :]
    else:
        card, sep, market = play.rpartition("@")
        if not sep or not market.isdecimal() or len(market) > 2:
            raise FormError("cb.form.garbled")
        move["card"] = card
        move["market"] = int(market)
        if named or (card in CARDS and CARDS[card].kind == "court"):
            if not named:
                raise FormError("cb.form.no_suit")
            move["suit"] = named
    return move


def results(outcome: dict[str, Any], names: list[str], lang: str) -> dict[str, Any]:
    """The scoring breakdown in rows a player can check."""
    breakdown = outcome["breakdown"]
    markets = []
    for index, per_suit in enumerate(breakdown["markets"]):
        rows = []
        for s in SUITS:
            entry = per_suit[s]
            rows.append(
                {
                    **suit_info(s, lang),
                    "value": entry["value"],
                    "card": card_name(entry["card"], lang) if entry["card"] else None,
                    "copied": card_name(entry["copied"], lang) if entry["copied"] else None,
                }
            )
        markets.append({"number": index + 1, "rows": rows})
    short = breakdown["shortcut"]
    players = []
    for number, name in enumerate(names):
        players.append(
            {
                "name": name,
                "total": outcome["scores"][number],
                "rank": outcome["ranks"][number],
                "lines": [
                    {
                        **suit_info(s, lang),
                        "chips": breakdown["chips"][number][s],
                        "value": breakdown["suit_values"][s],
                        "points": breakdown["lines"][number][s],
                    }
                    for s in SUITS
                ],
                "short_chips": [
                    {**suit_info(s, lang), "count": short["chips"][number][s]} for s in SUITS
                ],
                "short_total": short["totals"][number],
            }
        )
    order = sorted(range(len(names)), key=lambda n: (outcome["ranks"][n], n))
    return {
        "markets": markets,
        "suit_values": [
            {**suit_info(s, lang), "value": breakdown["suit_values"][s]} for s in SUITS
        ],
        "players": players,
        "standings": [players[n] for n in order],
        "winners": [names[n] for n in order if outcome["ranks"][n] == 1],
        "shortcut": {
            "common": [{**suit_info(s, lang), "count": short["common"][s]} for s in SUITS],
            "lowest": short["lowest_value"],
            "lowest_suits": [suit_name(s, lang) for s in short["lowest_suits"]],
            "values": [{**suit_info(s, lang), "value": short["values"][s]} for s in SUITS],
        },
    }
