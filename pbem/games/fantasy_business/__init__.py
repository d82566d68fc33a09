"""Fantasy Business: an auction and pricing card game for 3 to 8 players.

Rule references in comments ("Spec, ...") point at the sections of
shared/rules/fantasy-business-spec.md, which settles what the French source leaves open.

Moves are dicts with an "action":
    {"action": "choose", "slot": 2}           first buyer: auction revealed card 2 (0-based)
    {"action": "bid", "amount": 5}            open bid, or sealed bid (0 = no bid)
    {"action": "pass"}                        open auction pass; declines the last card
    {"action": "take"}                        the last card's single eligible player buys it
    {"action": "play", "card": "theft-2", "target": 1, "article": "herbs"}
    {"action": "done"}                        no more specials this round
    {"action": "prices", "prices": {"herbs": 3, "swords": 6}}
In orders mode (the default; Spec, Playing by mail):
    {"action": "order", "order": [2, 0, 1]}   first buyer: the order of sale, by slot
    {"action": "limits", "limits": [5, 0, 3]} the most one would pay, per slot (0 = none)
    {"action": "specials", "plays": [{"card": "theft-2", "target": 1, "article": "herbs"}]}
    {"action": "limit", "amount": 6}          one limit per card in an Antitrust sale
`legal_moves` lists every move of the step but only a few amounts for bids and prices;
`apply` accepts any bid or price in range.
"""

from __future__ import annotations

from typing import Any

from pbem.games.base import BadOptions, Game, IllegalMove, Move, Option, Outcome, State
from pbem.games.base import shared_ranks as _shared_ranks
from pbem.games.fantasy_business import engine, history
from pbem.games.fantasy_business.auction import min_bid
from pbem.games.fantasy_business.cards import (
    ARTICLE_BY_ID,
    PRESETS,
    base_price,
    card_type,
    specials_table,
)
from pbem.games.fantasy_business.deal import deal_state
from pbem.games.fantasy_business.log import describe_events
from pbem.games.fantasy_business.moves import apply_move, refuse
from pbem.games.fantasy_business.specials import others_monopolies
from pbem.games.fantasy_business.tally import counts
from pbem.games.fantasy_business.view import build_view, round_view
from pbem.games.message import Message

# The few amounts over the minimum that `legal_moves` offers; any other is accepted too.
_BID_STEPS = (0, 1, 2, 5)


class FantasyBusiness(Game):
    """The rules of Fantasy Business."""

    slug = "fantasy-business"
    title = "Fantasy Business"
    min_players = 3
    max_players = 8
    options = (
        # Spec, Playing by mail: "orders" is the default; "open" is bid by bid.
        Option("auction", "choice", "orders", ("orders", "open", "sealed")),
        # A preset name, or a table {kind: copies or {"copies": n, "amount": n}}.
        Option("specials", "choice", "standard", tuple(PRESETS)),
    )

    def check_options(self, n_players: int, options: dict[str, Any] | None) -> dict[str, Any]:
        """Validate options; `specials` is a preset name or a table of special cards."""
        if options is not None and not isinstance(options, dict):
            raise BadOptions("fb.options_not_object")
        given = dict(options or {})
        specials = given.pop("specials", "standard")
        result = super().check_options(n_players, given)
        table = specials_table(specials)
        result["specials"] = specials if isinstance(specials, str) else table
        return result

    def setup(self, n_players: int, options: dict[str, Any] | None, seed: int) -> State:
        """Shuffle the pile, give 10 écus each, draw the first buyer, reveal round 1."""
        return engine.new_state(n_players, self.check_options(n_players, options), seed)

    def to_act(self, state: State) -> list[int]:
        """The seats the game waits on (several in sealed bids and pricing)."""
        return engine.to_act(state)

    def turn_token(self, state: State, seat: int) -> str:
        """The turn a form was made for. In the simultaneous steps (sealed bids, pricing)
        other seats' moves do not make a seat's form stale; elsewhere every move does."""
        step = engine.step_name(state)
        if step == "pricing":
            return f"r{state['round']}-pricing"
        if step == "sealed":
            return f"r{state['round']}-sealed-{state['auction']['slot']}"
        if step in ("limits", "lists"):
            return f"r{state['round']}-{step}"
        if step == "antitrust_limits":
            return f"r{state['round']}-antitrust-{len(state['history'][-1]['played'])}"
        return str(state["ply"])

    def may_act(self, state: State, seat: int) -> bool:
        """Whether `seat` may move; a seat that set prices may revise them while others set."""
        return engine.may_act(state, seat)

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """The moves of `seat` now; bids and prices are a sample, any in range is accepted."""
        if not engine.may_act(state, seat):
            return []
        step = engine.step_name(state)
        money = state["money"][seat]
        auction = state["auction"]
        if step == "choose":
            return [{"action": "choose", "slot": slot} for slot in state["pending"]]
        if step == "open":
            low = min_bid(auction)
            amounts = sorted({low + k for k in _BID_STEPS} | {money})
            return [{"action": "pass"}] + [
                {"action": "bid", "amount": a} for a in amounts if low <= a <= money
            ]
        if step == "sealed":
            low = auction["base"]
            amounts = sorted({low + k for k in _BID_STEPS} | {money})
            return [{"action": "bid", "amount": 0}] + [
                {"action": "bid", "amount": a} for a in amounts if low <= a <= money
            ]
        if step == "single":
            take = [{"action": "take"}] if money >= auction["base"] else []
            return take + [{"action": "pass"}]
        if step == "specials":
            return [{"action": "done"}] + _plays(state, seat)
        if step == "order":
            return _order_moves(state)
        if step == "limits":
            return _limit_moves(state, seat)
        if step == "lists":
            plays = [{k: v for k, v in p.items() if k != "action"} for p in _plays(state, seat)]
            return [{"action": "specials", "plays": []}] + [
                {"action": "specials", "plays": [play]} for play in plays
            ]
        if step == "antitrust_limits":
            low = auction["base"]
            amounts = sorted({low + k for k in _BID_STEPS} | {money})
            return [{"action": "limit", "amount": 0}] + [
                {"action": "limit", "amount": a} for a in amounts if low <= a <= money
            ]
        return _price_moves(state, seat)

    def apply(self, state: State, seat: int, move: Move) -> State:
        """The state after `seat` makes `move`; IllegalMove if the rules forbid it."""
        return apply_move(state, seat, move)

    def view(self, state: State, seat: int | None, rounds: int | None = None) -> dict[str, Any]:
        """What `seat` may see; None is a spectator (the current round and `rounds` before it)."""
        return build_view(state, seat, self.slug, rounds)

    def release_history(self, state: State) -> tuple[State, list[dict[str, Any]]]:
        """The state without the rounds before the last finished one, and their records."""
        return history.release(state)

    def released(self, state: State, rounds: int | None = None) -> list[int]:
        """The released rounds a view of the current round and `rounds` before it needs."""
        return history.released(state, rounds)

    def restore_history(self, state: State, records: list[dict[str, Any]]) -> State:
        """The state with released round records put back."""
        return history.restore(state, records)

    def deal(self, view: dict[str, Any], seat: int, rng: Any) -> State:
        """A state giving `seat` this view, the hidden cards, bids and prices drawn at random."""
        return deal_state(view, seat, rng)

    def outcome(self, state: State) -> Outcome | None:
        """Scores (écus + base prices of articles), shared ranks, and a per-round breakdown
        (of the rounds the state holds: restore_history puts the released ones back)."""
        if state["step"] != "over":
            return None
        final = engine.scores(state)
        totals = [entry["score"] for entry in final]
        held = counts(state)
        players = [
            {
                **final[seat],
                "articles": {
                    a: {
                        "cards": k,
                        "base": ARTICLE_BY_ID[a].base,
                        "value": k * ARTICLE_BY_ID[a].base,
                    }
                    for a, k in held[seat].items()
                },
                "specials_unplayed": len(state["specials"][seat]),
            }
            for seat in range(state["n"])
        ]
        rounds = [_round_breakdown(record) for record in state["history"]]
        return Outcome(
            scores=totals,
            ranks=_shared_ranks(totals),
            breakdown={"players": players, "rounds": rounds},
        )

    def timeout_move(self, state: State, seat: int) -> Move:
        """Spec, Timeouts: pass, bid 0, done, or last round's prices (base for new articles)."""
        if not engine.may_act(state, seat):
            raise refuse(state, seat)
        step = engine.step_name(state)
        if step == "choose":
            # Not in the spec: the first buyer's choice falls on the first card left in the row.
            return {"action": "choose", "slot": state["pending"][0]}
        if step in ("open", "single"):
            return {"action": "pass"}
        if step == "sealed":
            return {"action": "bid", "amount": 0}
        if step == "specials":
            return {"action": "done"}
        # Spec, Playing by mail: the row's order, 0 for every card, no specials, limit 0.
        if step == "order":
            return {"action": "order", "order": list(range(len(state["row"])))}
        if step == "limits":
            return {"action": "limits", "limits": [0] * len(state["row"])}
        if step == "lists":
            return {"action": "specials", "plays": []}
        if step == "antitrust_limits":
            return {"action": "limit", "amount": 0}
        prices = state["prices"][seat] or engine.default_prices(state, seat)
        return {"action": "prices", "prices": dict(prices)}

    def describe(self, state: State, seat: int, move: Move, viewer: int | None) -> list[Message]:
        """Log lines for `move`, with hidden cards, bids and prices kept from other viewers."""
        after = apply_move(state, seat, move)
        return describe_events(after["events"], viewer)

    def review(self, state: State, seat: int, move: Move) -> list[Message]:
        """The move as its player may see it before sending: their own action only."""
        after = apply_move(state, seat, move)
        # The first event of a move is the mover's own action; what follows is what it
        # causes (sealed bids opened, prices revealed, cards drawn), shown once it is sent.
        own = after["events"][:1]
        # Spec, What each player sees: a face-down special is seen by whoever wins it, once
        # won; a review of "take" that named it would let the player look and then pass.
        viewer = None if own and own[0]["e"] == "won" else seat
        return describe_events(own, viewer)


def _plays(state: State, seat: int) -> list[Move]:
    """Every special card play open to `seat`."""
    moves: list[Move] = []
    others = [s for s in range(state["n"]) if s != seat]
    owned = [sorted({card_type(c) for c in state["articles"][s]}) for s in range(state["n"])]
    # Spec, Rulings: Antitrust names another player who alone owns an article.
    held_monopolies = others_monopolies(state, seat)
    for card in state["specials"][seat]:
        kind = card_type(card)
        play = {"action": "play", "card": card}
        if kind == "subsidy":
            moves.append(play)
        elif kind == "defaulting":
            moves.extend({**play, "target": t} for t in others)
        elif kind in ("theft", "defective"):
            moves.extend({**play, "target": t, "article": a} for t in others for a in owned[t])
        elif not held_monopolies:
            moves.append(play)
        else:
            moves.extend(
                {**play, "target": t, "article": a}
                for t, articles in sorted(held_monopolies.items())
                for a in articles
            )
    return moves


def _order_moves(state: State) -> list[Move]:
    """A few orders of sale: the row's, reversed, and each card first."""
    slots = list(range(len(state["row"])))
    sets = [slots, slots[::-1]] + [[s] + [o for o in slots if o != s] for s in slots[1:]]
    return [{"action": "order", "order": order} for order in sets]


def _limit_moves(state: State, seat: int) -> list[Move]:
    """A few sets of limits: none, all at base, a little or all one holds, one card only."""
    money = state["money"][seat]
    bases = [base_price(card) for card in state["row"]]
    # A limit is 0 or from the base price to the écus held: each wish is brought in range.
    sets = [tuple(0 for _ in bases)]
    for extra in (0, 1, 3, money):
        sets.append(tuple(min(b + extra, money) if b <= money else 0 for b in bases))
    for slot, base in enumerate(bases):
        if base <= money:
            sets.append(tuple(min(2 * base, money) if s == slot else 0 for s in range(len(bases))))
    return [{"action": "limits", "limits": list(limits)} for limits in dict.fromkeys(sets)]


def _price_moves(state: State, seat: int) -> list[Move]:
    """A few price sets: all at base, all at the middle, all at double, and the defaults."""
    selling = engine.on_sale(state, seat)
    sets = [engine.default_prices(state, seat)]
    for share in (0, 1, 2):
        sets.append({a: ARTICLE_BY_ID[a].base * (2 + share) // 2 for a in selling})
    moves: list[Move] = []
    for prices in sets:
        move = {"action": "prices", "prices": prices}
        if move not in moves:
            moves.append(move)
    return moves


def _round_breakdown(record: dict[str, Any]) -> dict[str, Any]:
    """Who earned or paid what in one round, and why."""
    public = round_view(record, None)
    players = []
    for seat, entries in enumerate(public["ledger"]):
        sums: dict[str, int] = {}
        for entry in entries:
            sums[entry["what"]] = sums.get(entry["what"], 0) + entry["amount"]
        income = public["income"][seat] if public["income"] is not None else {}
        players.append(
            {
                "paid_at_auction": -sums.get("auction", 0) - sums.get("antitrust_buy", 0),
                "subsidies": sums.get("subsidy", 0),
                "antitrust_proceeds": sums.get("antitrust_sale", 0),
                # Per article: cards, price, position, reason, owners and amount.
                "income": income,
                "net": sum(sums.values()),
                "ledger": entries,
            }
        )
    return {
        "round": public["round"],
        "first": public["first"],
        "prices": public["prices"],
        "lots": public["lots"],
        "played": public["played"],
        "players": players,
    }


__all__ = ["FantasyBusiness", "IllegalMove"]
