"""The move a Fantasy Business turn form describes."""

from __future__ import annotations

import re
from typing import Any

from pbem.games.fantasy_business.cards import ALL_CARD_IDS, ARTICLE_IDS, card_type, is_special
from pbem.present.common import FormError

# Special kinds that cannot be played without naming another player.
_NEEDS_TARGET = {"theft", "defaulting", "defective"}


_NUMBER = re.compile(r"^\d{1,4}$")


_MAX_PRICES = len(ARTICLE_IDS)


_MAX_ROW = 8  # the most cards a row can hold (8 players)


def _number(raw: Any, key: str) -> int:
    text = str(raw).strip()
    if not _NUMBER.match(text):
        raise FormError(key)
    return int(text)


def _play(form: Any, card: str) -> dict[str, Any]:
    if card not in ALL_CARD_IDS or not is_special(card):
        raise FormError("fb.form.garbled")
    move: dict[str, Any] = {"action": "play", "card": card}
    pick = str(form.get(f"pick_{card}", "")).strip()
    if not pick:
        if card_type(card) in _NEEDS_TARGET:
            raise FormError("fb.form.no_target")
        return move
    target, sep, article = pick.partition(":")
    move["target"] = _number(target, "fb.form.garbled")
    if sep:
        if not article or len(article) > 40:
            raise FormError("fb.form.garbled")
        move["article"] = article
    return move


def _prices(form: Any) -> dict[str, Any]:
    prices = {}
    for key in form:
        if str(key).startswith("price_"):
            prices[str(key)[len("price_") :]] = _number(form.get(key, ""), "fb.form.bad_price")
    if not prices:
        raise FormError("fb.form.no_prices")
    if len(prices) > _MAX_PRICES:
        raise FormError("fb.form.garbled")
    return {"action": "prices", "prices": prices}


def _numbered(form: Any, prefix: str, key: str, blank: int | None) -> list[int]:
    """Fields prefix0, prefix1, ... as numbers, in slot order; a blank field is `blank`."""
    found: dict[int, int] = {}
    for name in form:
        name = str(name)
        if not name.startswith(prefix):
            continue
        slot = _number(name[len(prefix) :], "fb.form.garbled")
        raw = str(form.get(name, "")).strip()
        if not raw and blank is not None:
            found[slot] = blank
        else:
            found[slot] = _number(raw, key)
    if not found or sorted(found) != list(range(len(found))) or len(found) > _MAX_ROW:
        raise FormError("fb.form.garbled")
    return [found[slot] for slot in range(len(found))]


def _order(form: Any) -> dict[str, Any]:
    # Spec, Playing by mail, 2: each card of the row gets its place in the order of sale.
    places = _numbered(form, "place_", "fb.form.bad_order", None)
    if sorted(places) != list(range(1, len(places) + 1)):
        raise FormError("fb.form.bad_order")
    return {"action": "order", "order": sorted(range(len(places)), key=lambda s: places[s])}


def _lists(form: Any) -> dict[str, Any]:
    # Spec, Playing by mail, 5: the cards ticked, in the order of their places, with targets.
    chosen: list[tuple[int, int, dict[str, Any]]] = []
    for name in form:
        name = str(name)
        if not name.startswith("use_"):
            continue
        card = name[len("use_") :]
        raw = str(form.get(f"rank_{card}", "")).strip()
        rank = _number(raw, "fb.form.garbled") if raw else 99
        play = _play(form, card)
        del play["action"]
        chosen.append((rank, len(chosen), play))
    if len(chosen) > _MAX_ROW * 3:
        raise FormError("fb.form.garbled")
    return {"action": "specials", "plays": [play for _, _, play in sorted(chosen)]}


def parse_form(form: Any) -> dict[str, Any]:
    """The move a turn form describes; FormError when a part is missing or garbled."""
    action = str(form.get("action", "")).strip()
    if action == "order":
        return _order(form)
    if action == "limits":
        # A blank limit is no bid: a phone user may leave the cards they do not want empty.
        return {"action": "limits", "limits": _numbered(form, "limit_", "fb.form.bad_limit", 0)}
    if action == "specials":
        return _lists(form)
    if action == "limit":
        raw = str(form.get("amount", "")).strip()
        return {"action": "limit", "amount": _number(raw, "fb.form.bad_amount") if raw else 0}
    if action == "choose":
        if not str(form.get("slot", "")).strip():
            raise FormError("fb.form.no_slot")
        return {"action": "choose", "slot": _number(form.get("slot"), "fb.form.garbled")}
    if action == "bid":
        if not str(form.get("amount", "")).strip():
            raise FormError("fb.form.no_amount")
        return {"action": "bid", "amount": _number(form.get("amount"), "fb.form.bad_amount")}
    if action in ("pass", "take", "done"):
        return {"action": action}
    if action.startswith("play:"):
        return _play(form, action[len("play:") :])
    if action == "prices":
        return _prices(form)
    raise FormError("fb.form.no_action")
