"""Fantasy Business players: bids, limits and prices from the game's economics.

A card is worth what it adds to its buyer's standing (fb_worth); a seat wins at most one
card a round, so winning this lot forgoes the next ones. Prices answer each other
seller's habits (fb_prices).
"""

from __future__ import annotations

import math
import random
from typing import Any

from pbem.bots import fb_prices, fb_reading
from pbem.bots.fb_limits import (
    WAIT_SHARE,
    answer_limits,
    focused_limits,
    in_range,
    order_limits,
)
from pbem.bots.fb_worth import (
    card_values,
    counts_by_article,
    held_special_worth,
    standing,
    worth,
)
from pbem.games.base import Game, Move, State
from pbem.games.fantasy_business import FantasyBusiness, engine
from pbem.games.fantasy_business.auction import min_bid
from pbem.games.fantasy_business.cards import (
    ARTICLE_BY_ID,
    base_price,
    card_type,
)
from pbem.games.fantasy_business.specials import check_play

# Sealed bids are shaded below the limit, as the winner pays their own bid.
SEALED_SHADE = 0.8
_RULES = FantasyBusiness()
# A margin of this many écus over the best other seat is about a sure win.
MARGIN_SCALE = 12.0


def _lot_limit(state: State, seat: int) -> int:
    """The most `seat` should pay for the card now at auction."""
    auction = state["auction"]
    money = state["money"][seat]
    later = [state["row"][slot] for slot in state["pending"]] if auction["kind"] == "lot" else []
    values = card_values(state, seat, [auction["card"], *later])
    value = values[0]
    if later:
        # A seat wins one card a round: winning this one forgoes the later lots' surplus.
        surpluses = [v - base_price(c) for v, c in zip(values[1:], later, strict=True)]
        rivals = len([s for s in auction["eligible"] if s != seat])
        share = WAIT_SHARE * min(1.0, len(later) / max(rivals, 1))
        value -= share * max(0.0, max(surpluses))
    bid: int = max(0, min(money, math.floor(value)))
    return bid


def _prices(state: State, seat: int) -> dict[str, int]:
    """Spec, A round, 4: per article, twice the base when selling alone, else the price that
    earns most against what each other seller is likely to ask (fb_prices)."""
    held = counts_by_article(state)
    defective = [tuple(p) for p in state["effects"]["defective"]]
    defaulted = seat in state["effects"]["defaulting"]
    weights: dict[int, list[float]] = {}
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
            continue
        likely = []
        for rival in rivals:
            if rival not in weights:
                weights[rival] = fb_prices.habit_weights(state, rival)
            likely.append(fb_prices.likely_prices(state, rival, article, weights[rival]))
        prices[article] = fb_prices.best_price(base, held[seat][article], likely)
    return prices


def _after_play(state: State, seat: int, move: Move) -> tuple[State, list[dict[str, int]]]:
    """The state a special play leaves, as far as `worth` reads it (a light copy)."""
    card = move["card"]
    kind = card_type(card)
    specials = [list(h) for h in state["specials"]]
    specials[seat].remove(card)
    held = counts_by_article(state)
    light = dict(state, specials=specials)
    target: Any = move.get("target")
    article: Any = move.get("article")
    if kind == "subsidy":
        money = list(state["money"])
        money[seat] += state["table"]["subsidy"]["amount"]
        light["money"] = money
    elif kind == "theft":
        held = [dict(c) for c in held]
        held[target][article] -= 1
        if not held[target][article]:
            del held[target][article]
        held[seat][article] = held[seat].get(article, 0) + 1
    elif kind == "defaulting":
        effects = state["effects"]
        light["effects"] = {
            "defaulting": [*effects["defaulting"], target],
            "defective": effects["defective"],
        }
    elif kind == "defective":
        effects = state["effects"]
        light["effects"] = {
            "defaulting": effects["defaulting"],
            "defective": [*effects["defective"], [target, article]],
        }
    elif kind == "antitrust" and target is not None:
        # Spec, antitrust: the monopoly's cards are sold; the owner gets about their base.
        held = [dict(c) for c in held]
        cards = held[target].pop(article)
        money = list(state["money"])
        money[target] += cards * ARTICLE_BY_ID[article].base
        light["money"] = money
    return light, held


def _play_options(state: State, seat: int) -> list[Move]:
    """Every single special play open to `seat`, as {"action": "play", ...}, in any mode."""
    plays = []
    for move in _RULES.legal_moves(state, seat):
        if move["action"] == "play":
            plays.append(move)
        elif move["action"] == "specials" and move["plays"]:
            plays.append({"action": "play", **move["plays"][0]})
    return plays


def _rough_gain(state: State, move: Move) -> float:
    """A quick guess at a play's worth, to look closely at the likeliest plays only."""
    target, article = move.get("target"), move.get("article")
    if target is None:
        return 1.0
    cards = state["articles"][target]
    if article is None:
        return float(len(cards))
    return float(sum(1 for c in cards if c.startswith(article + "-")) * ARTICLE_BY_ID[article].base)


def _special_plays(state: State, seat: int, width: int = 0) -> list[tuple[float, Move]]:
    """Plays open to `seat` with what each gains over keeping the card, best first; with a
    `width`, only that many plays per card, picked by a rough guess, are looked at."""
    before = standing(worth(state), seat)
    keep = _specials_live_later(state)
    scored: list[tuple[float, Move]] = [(0.0, {"action": "done"})]
    plays = _play_options(state, seat)
    if width:
        by_card: dict[str, list[Move]] = {}
        for move in plays:
            by_card.setdefault(move["card"], []).append(move)
        plays = []
        for options in by_card.values():
            options.sort(key=lambda m: -_rough_gain(state, m))
            plays.extend(options[:width])
    for order, move in enumerate(plays):
        after, held = _after_play(state, seat, move)
        gain = standing(worth(after, held), seat) - before
        if keep:
            # The card kept could be played in a later round instead.
            gain += 0.7 * held_special_worth(state, seat, move["card"])
        else:
            gain += held_special_worth(state, seat, move["card"])
        scored.append((gain - 1e-6 * order, move))
    scored.sort(key=lambda pair: -pair[0])
    return scored


def _specials_live_later(state: State) -> bool:
    left: bool = state["round"] < state["rounds"]
    return left


def _sale_order(state: State, seat: int) -> list[int]:
    """Spec, Playing by mail, 2: sell first what this seat wants least."""
    values = card_values(state, seat, state["row"])
    return sorted(range(len(values)), key=lambda slot: (values[slot], slot))


def _plays_list(state: State, seat: int, width: int = 0) -> list[dict[str, Any]]:
    """Spec, Playing by mail, 5: each special whose best play gains something, best first."""
    chosen: list[dict[str, Any]] = []
    used: set[str] = set()
    for gain, move in _special_plays(state, seat, width):
        if move["action"] == "play" and gain > 0 and move["card"] not in used:
            used.add(move["card"])
            chosen.append({k: v for k, v in move.items() if k != "action"})
    return chosen


def _antitrust_limit(state: State, seat: int, scale: float = 1.0) -> int:
    """Spec, Playing by mail, 6: one limit per card, the worth of one such card."""
    auction = state["auction"]
    value = card_values(state, seat, auction["cards"][:1])[0]
    return in_range(value * scale, auction["base"], state["money"][seat])


def casual_move(state: State, seat: int, rng: random.Random, noise: float = 0.0) -> Move:
    """The heuristic move of `seat`, reading only what the seat may see of `state`."""
    step = engine.step_name(state)
    money = state["money"][seat]
    if step == "choose":
        # Sell first what this seat wants least; the best card comes when rivals are out.
        slots = state["pending"]
        values = card_values(state, seat, [state["row"][s] for s in slots])
        return {"action": "choose", "slot": min(zip(values, slots, strict=True))[1]}
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
        best_gain, best = _special_plays(state, seat, 2 if noise else 0)[0]
        return best if best_gain > 0 else {"action": "done"}
    scale = 1 + rng.uniform(-noise, noise) if noise else 1.0
    if step == "order":
        return {"action": "order", "order": _sale_order(state, seat)}
    if step == "limits":
        if noise:
            return {"action": "limits", "limits": order_limits(state, seat, scale)}
        return {"action": "limits", "limits": answer_limits(state, seat, rng)}
    if step == "lists":
        return {"action": "specials", "plays": _plays_list(state, seat, 2 if noise else 0)}
    if step == "antitrust_limits":
        return {"action": "limit", "amount": _antitrust_limit(state, seat, scale)}
    return {"action": "prices", "prices": _prices(state, seat)}


def _distinct(items: list[Any]) -> list[Any]:
    """The items without repeats, in their order."""
    result: list[Any] = []
    for item in items:
        if item not in result:
            result.append(item)
    return result


def _modelled_limits(state: State, seat: int, rng: random.Random) -> list[int]:
    """Limits another seat may have sent, drawn from the habits its past limits showed
    (fb_reading), as players are not all alike."""
    return fb_reading.draw_limits(state, seat, rng)[0]


class FantasyBusinessBot:
    """The three levels for Fantasy Business."""

    # The search keeps the casual reckoning (the first candidate) unless another move's
    # mean value beats it by this much (search.search): with about 25 simulations a move
    # the means differ by more than this by chance alone.
    anchor: float | None = 0.05

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
        if step == "order":
            return {"action": "order", "order": list(range(len(state["row"])))}
        if step == "limits":
            limits = [
                in_range(base_price(c) + rng.randint(0, 3), base_price(c), money)
                for c in state["row"]
            ]
            return {"action": "limits", "limits": limits}
        if step == "lists":
            subsidies = [c for c in state["specials"][seat] if card_type(c) == "subsidy"]
            return {"action": "specials", "plays": [{"card": c} for c in subsidies]}
        if step == "antitrust_limits":
            return {"action": "limit", "amount": 0}
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
        if step == "order":
            mine = _sale_order(state, seat)
            orders = [mine, mine[::-1], list(range(len(mine)))]
            return [{"action": "order", "order": o} for o in _distinct(orders)]
        if step == "limits":
            sets = [order_limits(state, seat, scale) for scale in (1.0, 0.6, 0.8, 1.25)]
            sets += focused_limits(state, seat)
            if legal is not None:
                # At the root, first, the strong answer to the rivals' read limits.
                answer = answer_limits(state, seat, random.Random(state["ply"]), strong=True)
                sets.insert(0, answer)
            return [{"action": "limits", "limits": limits} for limits in _distinct(sets)]
        if step == "lists":
            best = _plays_list(state, seat)
            lists = [best, [], *([p] for p in best[:3])]
            return [{"action": "specials", "plays": plays} for plays in _distinct(lists)]
        if step == "antitrust_limits":
            limits = [_antitrust_limit(state, seat, scale) for scale in (1.0, 0.0, 0.7, 1.3)]
            return [{"action": "limit", "amount": a} for a in _distinct(limits)]
        return [casual_move(state, seat, random.Random(0))]

    def model_secrets(self, state: State, seat: int, rng: random.Random) -> State:
        """The others' limits, sealed bids and lists already sent, as the policy would send
        them: the deal draws them uniformly, and a seat acting last would otherwise search
        against random limits."""
        step = engine.step_name(state)
        for other in range(state["n"]):
            if other == seat:
                continue
            if step == "limits" and state["limits"][other] is not None:
                state["limits"][other] = _modelled_limits(state, other, rng)
            elif step == "lists" and state["plays"][other] is not None:
                plays = self.policy(state, other, rng)["plays"]
                state["plays"][other] = [
                    check_play(state, other, p["card"], p.get("target"), p.get("article"))
                    for p in plays
                ]
            elif step == "antitrust_limits" and state["auction"]["limits"][other] is not None:
                state["auction"]["limits"][other] = self.policy(state, other, rng)["amount"]
            elif step == "sealed" and state["auction"]["bids"][other] is not None:
                state["auction"]["bids"][other] = self.policy(state, other, rng)["amount"]
        return state

    def policy(self, state: State, seat: int, rng: random.Random) -> Move:
        """The casual move, a little off; limits from the opponent model, as other players
        are not all alike."""
        if engine.step_name(state) == "limits":
            return {"action": "limits", "limits": _modelled_limits(state, seat, rng)}
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
        ended: bool = state["round"] != start["round"] or state["step"] == "over"
        return ended


BOT = FantasyBusinessBot()
