"""Opponents for bench/bots.py written from the rules alone, not from pbem/bots.

Each is `move(game, view, legal, rng)`, seeing what a seat sees (a state dealt from its
view, whose hidden parts are guesses) and choosing among the legal moves or any move the
rules accept. They measure the computer levels against players that are not themselves.

- "greedy" (Colour Bazaar): the turn that leaves its own chips worth most right now.
- "bidder" (Fantasy Business): its own valuation of a card (the base price it keeps, and
  the income it can earn in the rounds left, more when no one else sells that article),
  limits up to that value, prices that undercut the other sellers' last prices, and
  specials aimed at the leader.
"""

from __future__ import annotations

import math
import random
from typing import Any

from pbem.games.base import Game, Move, State
from pbem.games.colour_bazaar import score
from pbem.games.fantasy_business.cards import ARTICLE_BY_ID, base_price, card_type, is_special
from pbem.games.fantasy_business.tally import goods_value

# A face-down special, before it is known (a subsidy is 5 écus; the rest are weapons).
SPECIAL_VALUE = 4.0
# Income is not certain: monopolies get broken, shared prices slide.
CAUTION = 0.5
# Sealed bids are shaded, as the winner pays their own bid.
SEALED_SHARE = 0.75


def greedy(game: Game, view: dict[str, Any], legal: list[Move], rng: random.Random) -> Move:
    """Colour Bazaar: the turn after which this seat's chips score most (first such turn)."""
    seat = view["seat"]
    state = game.deal(view, seat, rng)
    best, best_total = legal[0], -1
    for move in legal:
        after = game.apply(state, seat, move)
        total = score(after["markets"], after["chips"]).scores[seat]
        if total > best_total:
            best, best_total = move, total
    return best


def _owners(state: State, article: str) -> list[int]:
    return [
        s
        for s in range(state["n"])
        if any(c.startswith(article + "-") for c in state["articles"][s])
    ]


def _income_rounds(state: State) -> int:
    """Rounds in which a card bought now still earns, this one included."""
    return state["rounds"] - state["round"] + 1


def _card_value(state: State, seat: int, card: str) -> float:
    """What owning `card` is worth to `seat`: its base price at the end and its income."""
    if is_special(card):
        return SPECIAL_VALUE if state["round"] < state["rounds"] else 0.0
    article = card_type(card)
    base = ARTICLE_BY_ID[article].base
    rivals = [s for s in _owners(state, article) if s != seat]
    per_round = 2 * base + 2 if not rivals else base + 1
    return base + CAUTION * per_round * _income_rounds(state)


def _wealth(state: State, seat: int) -> int:
    """Écus and the base prices of the articles held: the score if the game ended now."""
    return state["money"][seat] + goods_value(state, seat)


def _leader(state: State, seat: int) -> int:
    others = [s for s in range(state["n"]) if s != seat]
    return max(others, key=lambda s: (_wealth(state, s), -s))


def _limit(state: State, seat: int, card: str, base: int) -> int:
    value = min(state["money"][seat], math.floor(_card_value(state, seat, card)))
    return value if value >= base else 0


def _plays(state: State, seat: int, legal_plays: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each special held, played on the leader where it has a target; subsidies always."""
    leader = _leader(state, seat)

    def worth(play: dict[str, Any]) -> tuple[int, int]:
        # The leader first, then the article that earns most.
        target, article = play.get("target"), play.get("article")
        cards = (
            sum(1 for c in state["articles"][target] if card_type(c) == article) if article else 0
        )
        return (target == leader, cards * (ARTICLE_BY_ID[article].base if article else 0))

    by_card: dict[str, list[dict[str, Any]]] = {}
    for play in legal_plays:
        by_card.setdefault(play["card"], []).append(play)
    chosen = []
    for card, options in by_card.items():
        kind = card_type(card)
        if kind == "subsidy":
            chosen.append(options[0])
            continue
        aimed = [p for p in options if p.get("target") is not None]
        if not aimed:
            continue  # an Antitrust with no monopoly to break does nothing
        if kind != "antitrust":
            aimed = [p for p in aimed if p["target"] == leader] or aimed
        chosen.append(max(aimed, key=worth))
    return chosen


def _prices(state: State, seat: int, legal: list[Move]) -> dict[str, int]:
    """Twice the base when no one else sells it, else one below the cheapest rival's last."""
    selling = list(legal[0]["prices"])
    prices = {}
    for article in selling:
        base = ARTICLE_BY_ID[article].base
        rivals = [s for s in _owners(state, article) if s != seat]
        if not rivals:
            prices[article] = 2 * base
            continue
        last = [state["last_prices"][s].get(article, 2 * base) for s in rivals]
        prices[article] = max(base, min(2 * base, min(last) - 1))
    return prices


def bidder(game: Game, view: dict[str, Any], legal: list[Move], rng: random.Random) -> Move:
    """Fantasy Business: bids and limits up to its own value, undercutting prices."""
    seat = view["seat"]
    state = game.deal(view, seat, rng)
    action = legal[0]["action"]
    money = state["money"][seat]
    if action == "choose":
        # Sell first the card this seat wants least.
        slots = [m["slot"] for m in legal]
        return {
            "action": "choose",
            "slot": min(slots, key=lambda s: (_card_value(state, seat, state["row"][s]), s)),
        }
    if action == "order":
        row = state["row"]
        return {
            "action": "order",
            "order": sorted(range(len(row)), key=lambda s: (_card_value(state, seat, row[s]), s)),
        }
    if action == "limits":
        return {
            "action": "limits",
            "limits": [_limit(state, seat, c, base_price(c)) for c in state["row"]],
        }
    if action in ("pass", "take", "bid"):
        auction = state["auction"]
        card = auction["card"]
        limit = _limit(state, seat, card, auction["base"])
        kinds = {m["action"] for m in legal}
        if "take" in kinds:
            return {"action": "take"} if limit else {"action": "pass"}
        if "pass" in kinds:  # open auction: the next bid while under the limit
            bids = [m["amount"] for m in legal if m["action"] == "bid"]
            low = min(bids) if bids else None
            return (
                {"action": "bid", "amount": low}
                if low is not None and low <= limit
                else {"action": "pass"}
            )
        amount = math.floor(limit * SEALED_SHARE)
        return {
            "action": "bid",
            "amount": amount if amount >= auction["base"] else (auction["base"] if limit else 0),
        }
    if action == "limit":
        # An Antitrust sale: one of these cards, shared with whoever wins the others.
        base = state["auction"]["base"]
        value = base + CAUTION * (base + 1) * _income_rounds(state)
        amount = min(money, math.floor(value))
        return {"action": "limit", "amount": amount if amount >= base else 0}
    if action in ("done", "play"):
        plays = _plays(state, seat, [m for m in legal if m["action"] == "play"])
        return {"action": "play", **plays[0]} if plays else {"action": "done"}
    if action == "specials":
        options = [m["plays"][0] for m in legal if m["plays"]]
        return {"action": "specials", "plays": _plays(state, seat, options)}
    return {"action": "prices", "prices": _prices(state, seat, legal)}
