"""Fantasy Business players: bids, limits and prices from the game's economics.

Spec, Income: an article earns every round it is held. A lone seller asks up to twice
the base price and earns price + 2 a card; sellers who share an article undercut each
other down to the base price (base + 2 a card when tied lowest), and the highest earns
nothing. Spec, End of game: each card then counts its base price. So a seat's worth is
its écus, plus its cards' base prices, plus the income its cards should still bring;
a card is worth what it adds to its buyer's standing against the others, and a seat
wins at most one card a round, so winning this lot forgoes the next ones.
"""

from __future__ import annotations

import math
import random
from typing import Any

from pbem.games.base import Game, Move, State
from pbem.games.fantasy_business import FantasyBusiness, engine
from pbem.games.fantasy_business.auction import min_bid
from pbem.games.fantasy_business.cards import (
    ARTICLE_BY_ID,
    ARTICLE_IDS,
    KIND_BY_ID,
    base_price,
    card_type,
    is_special,
)
from pbem.games.fantasy_business.income import LOW_BONUS

# Income a card is expected to earn in a later round: a monopoly may be broken, and shared
# sellers do not always tie at the base price.
MONOPOLY_KEEP = 0.8
SHARED_LOSS = 0.5
# Spec, Special cards: what a face-down special is worth, by kind, before it is seen.
KIND_WORTH = {"theft": 6.0, "defaulting": 3.0, "defective": 2.0, "antitrust": 2.5}
# Part of the best later lot's surplus a seat gives up by winning this one.
WAIT_SHARE = 0.6
# Sealed bids are shaded below the limit, as the winner pays their own bid.
SEALED_SHADE = 0.8
_RULES = FantasyBusiness()
# A margin of this many écus over the best other seat is about a sure win.
MARGIN_SCALE = 12.0


def _future_rounds(state: State) -> tuple[bool, int]:
    """Whether this round's income is still to come, and how many whole rounds follow."""
    if state["step"] == "over":
        return False, 0
    pending = state["history"][-1]["income"] is None
    return pending, state["rounds"] - state["round"]


def _specials_live(state: State) -> bool:
    """Whether a special card may still be played in this game."""
    if state["step"] == "over":
        return False
    if state["round"] < state["rounds"]:
        return True
    return state["step"] in ("reveal", "lots", "choose", "auction", "specials")


def worth(state: State, counts: list[dict[str, int]] | None = None) -> list[float]:
    """Each seat's expected final score: écus, base prices, and the income still to come."""
    n = state["n"]
    held = counts if counts is not None else engine.counts(state)
    pending, later = _future_rounds(state)
    effects = state["effects"]
    defective = [tuple(pair) for pair in effects["defective"]]
    result = [float(m) for m in state["money"]]
    for article in ARTICLE_IDS:
        owners = [s for s in range(n) if held[s].get(article)]
        if not owners:
            continue
        base = ARTICLE_BY_ID[article].base
        mono = 2 * base + LOW_BONUS
        shared = base + LOW_BONUS - SHARED_LOSS * (len(owners) - 2)
        if pending:
            sellers = [s for s in owners if (s, article) not in defective]
            for s in sellers:
                if s in effects["defaulting"]:
                    continue
                price = (state["prices"][s] or {}).get(article)
                if len(sellers) == 1:
                    per = (price if price is not None else 2 * base) + LOW_BONUS
                else:
                    per = base + LOW_BONUS
                result[s] += held[s][article] * per
        for s in owners:
            k = held[s][article]
            if len(owners) == 1:
                per = MONOPOLY_KEEP * mono + (1 - MONOPOLY_KEEP) * (base + LOW_BONUS)
            else:
                per = max(shared, base)
            result[s] += k * (base + per * later)
    if _specials_live(state):
        for s in range(n):
            result[s] += sum(_held_special_worth(state, s, c) for c in state["specials"][s])
    return result


def _held_special_worth(state: State, seat: int, card: str) -> float:
    kind = card_type(card)
    if kind == "subsidy":
        return float(state["table"]["subsidy"]["amount"])
    return KIND_WORTH[kind]


def standing(values: list[float], seat: int) -> float:
    """A seat's standing: its worth less the mean of the others' and the best other's."""
    others = [v for s, v in enumerate(values) if s != seat]
    return values[seat] - 0.5 * (sum(others) / len(others)) - 0.5 * max(others)


def _unseen_special_worth(state: State) -> float:
    """What a face-down special should be worth, from the kinds not yet seen."""
    remaining: dict[str, int] = {k: state["table"][k]["copies"] for k in KIND_BY_ID}
    for card in state["discard"]:
        if is_special(card):
            remaining[card_type(card)] -= 1
    total = sum(max(v, 0) for v in remaining.values())
    if total == 0:
        return 0.0
    amount = float(state["table"]["subsidy"]["amount"])
    return (
        sum(max(v, 0) * (amount if k == "subsidy" else KIND_WORTH[k]) for k, v in remaining.items())
        / total
    )


def card_value(state: State, seat: int, card: str) -> float:
    """How much owning `card` raises `seat`'s standing (before paying for it)."""
    if is_special(card):
        return _unseen_special_worth(state) if _specials_live(state) else 0.0
    held = engine.counts(state)
    before = standing(worth(state, held), seat)
    article = card_type(card)
    with_card = [dict(c) for c in held]
    with_card[seat][article] = with_card[seat].get(article, 0) + 1
    return standing(worth(state, with_card), seat) - before


def _lot_limit(state: State, seat: int) -> int:
    """The most `seat` should pay for the card now at auction."""
    auction = state["auction"]
    money = state["money"][seat]
    value = card_value(state, seat, auction["card"])
    if auction["kind"] == "lot":
        # A seat wins one card a round: winning this one forgoes the later lots' surplus.
        later = [state["row"][slot] for slot in state["pending"]]
        surpluses = [card_value(state, seat, c) - base_price(c) for c in later]
        if surpluses:
            rivals = len([s for s in auction["eligible"] if s != seat])
            share = WAIT_SHARE * min(1.0, len(later) / max(rivals, 1))
            value -= share * max(0.0, max(surpluses))
    return max(0, min(money, math.floor(value)))


def _prices(state: State, seat: int) -> dict[str, int]:
    """Spec, A round, 4: per article, twice the base when selling alone, else the price the
    other sellers are expected to ask (their last one), as ties count as lowest."""
    held = engine.counts(state)
    defective = [tuple(p) for p in state["effects"]["defective"]]
    defaulted = seat in state["effects"]["defaulting"]
    prices = {}
    for article in engine.on_sale(state, seat):
        base = ARTICLE_BY_ID[article].base
        rivals = [
            s
            for s in range(state["n"])
            if s != seat and held[s].get(article) and (s, article) not in defective
        ]
        if defaulted:
            # Spec, defaulting buyer: no income, but the price still counts: undercut.
            prices[article] = base
        elif not rivals:
            prices[article] = 2 * base
        else:
            expected = [state["last_prices"][s].get(article, base) for s in rivals]
            prices[article] = max(base, min(2 * base, min(expected)))
    return prices


def _special_plays(state: State, seat: int) -> list[tuple[float, Move]]:
    """Every play open to `seat` with what it gains over keeping the card, best first."""
    before = standing(worth(state), seat)
    keep = _specials_live_later(state)
    scored: list[tuple[float, Move]] = [(0.0, {"action": "done"})]
    plays = [m for m in _RULES.legal_moves(state, seat) if m["action"] == "play"]
    for order, move in enumerate(plays):
        after = _RULES.apply(state, seat, move)
        gain = standing(worth(after), seat) - before
        if keep:
            # The card kept could be played in a later round instead.
            gain += 0.7 * _held_special_worth(state, seat, move["card"])
        else:
            gain += _held_special_worth(state, seat, move["card"])
        scored.append((gain - 1e-6 * order, move))
    scored.sort(key=lambda pair: -pair[0])
    return scored


def _specials_live_later(state: State) -> bool:
    return state["round"] < state["rounds"]


def casual_move(state: State, seat: int, rng: random.Random, noise: float = 0.0) -> Move:
    """The heuristic move of `seat`, reading only what the seat may see of `state`."""
    step = engine.step_name(state)
    money = state["money"][seat]
    if step == "choose":
        # Sell first what this seat wants least; the best card comes when rivals are out.
        slots = state["pending"]
        return {
            "action": "choose",
            "slot": min(slots, key=lambda s: (card_value(state, seat, state["row"][s]), s)),
        }
    if step in ("open", "sealed", "single"):
        auction = state["auction"]
        limit = _lot_limit(state, seat)
        if noise:
            limit = max(0, min(money, round(limit * (1 + rng.uniform(-noise, noise)))))
        if step == "single":
            return {"action": "take"} if auction["base"] <= limit else {"action": "pass"}
        if step == "sealed":
            amount = math.floor(limit * SEALED_SHADE)
            amount = amount if auction["base"] <= amount <= money else 0
            if not amount and auction["base"] <= limit:
                amount = auction["base"]
            return {"action": "bid", "amount": amount}
        low = min_bid(auction)
        if low <= limit:
            return {"action": "bid", "amount": low}
        return {"action": "pass"}
    if step == "specials":
        best_gain, best = _special_plays(state, seat)[0]
        return best if best_gain > 0 else {"action": "done"}
    return {"action": "prices", "prices": _prices(state, seat)}


class FantasyBusinessBot:
    """The three levels for Fantasy Business."""

    def beginner(
        self, game: Game, view: dict[str, Any], legal: list[Move], rng: random.Random
    ) -> Move:
        """Bids a little over base on any card, prices at the defaults, plays subsidies."""
        seat = view["seat"]
        state = game.deal(view, seat, rng)
        step = engine.step_name(state)
        money = state["money"][seat]
        if step == "choose":
            return {"action": "choose", "slot": rng.choice(state["pending"])}
        if step in ("open", "sealed", "single"):
            auction = state["auction"]
            limit = min(money, auction["base"] + rng.randint(0, 3))
            if step == "single":
                return {"action": "take"} if auction["base"] <= money else {"action": "pass"}
            if step == "sealed":
                return {"action": "bid", "amount": limit if limit >= auction["base"] else 0}
            low = min_bid(auction)
            return {"action": "bid", "amount": low} if low <= limit else {"action": "pass"}
        if step == "specials":
            for move in legal:
                if move["action"] == "play" and card_type(move["card"]) == "subsidy":
                    return move
            return {"action": "done"}
        return {"action": "prices", "prices": engine.default_prices(state, seat)}

    def casual(
        self, game: Game, view: dict[str, Any], legal: list[Move], rng: random.Random
    ) -> Move:
        """Limits from each card's worth to this seat, prices from the other sellers."""
        seat = view["seat"]
        return casual_move(game.deal(view, seat, rng), seat, rng)

    def candidates(self, state: State, seat: int, legal: list[Move] | None) -> list[Move]:
        """A few moves per step: each slot, pass or the next bid, a spread of sealed bids."""
        step = engine.step_name(state)
        money = state["money"][seat]
        if step == "choose":
            return [{"action": "choose", "slot": s} for s in state["pending"]]
        if step == "open":
            low = min_bid(state["auction"])
            bids = [{"action": "bid", "amount": low}] if low <= money else []
            return [{"action": "pass"}, *bids]
        if step == "single":
            take = [{"action": "take"}] if state["auction"]["base"] <= money else []
            return take + [{"action": "pass"}]
        if step == "sealed":
            base = state["auction"]["base"]
            limit = _lot_limit(state, seat)
            amounts = {0}
            for share in (0.5, 0.8, 1.0, 1.25):
                amounts.add(min(money, math.floor(limit * share)))
            amounts.add(min(money, base))
            return [{"action": "bid", "amount": a} for a in sorted(amounts) if a == 0 or a >= base]
        if step == "specials":
            return [move for _, move in _special_plays(state, seat)[:6]]
        return [casual_move(state, seat, random.Random(0))]

    def policy(self, state: State, seat: int, rng: random.Random) -> Move:
        """The casual move, with limits a little off, as other players are not all alike."""
        return casual_move(state, seat, rng, noise=0.25)

    def evaluate(self, state: State, seat: int) -> float:
        """Final ranks when over, else the standing squashed into 0..1."""
        if state["step"] == "over":
            scores = [entry["score"] for entry in engine.scores(state)]
            best = max(scores)
            if scores[seat] < best:
                return 0.0
            return 1.0 / scores.count(best)
        return 0.5 + 0.5 * math.tanh(standing(worth(state), seat) / MARGIN_SCALE)

    def horizon(self, start: State, state: State) -> bool:
        """Simulations stop when the round's income is paid (or the game is over)."""
        return state["round"] != start["round"] or state["step"] == "over"


BOT = FantasyBusinessBot()
