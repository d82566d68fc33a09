"""Fantasy Business: properties of random games played through the Game interface."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.games.base import IllegalMove
from pbem.games.fantasy_business import FantasyBusiness, engine
from pbem.games.fantasy_business.cards import (
    ARTICLE_BY_ID,
    base_price,
    build_deck,
    card_type,
    is_special,
)
from pbem.present.text import render, translated

G = FantasyBusiness()
LEDGER_KINDS = {"auction", "subsidy", "antitrust_buy", "antitrust_sale", "income"}
MANY_SPECIALS = {"subsidy": {"copies": 10, "amount": 3}, "theft": 10, "antitrust": 10}
JUNK = [
    None,
    7,
    "pass",
    [],
    {},
    {"action": None},
    {"action": "win"},
    {"action": {"a": 1}},
    {"action": "bid"},
    {"action": "bid", "amount": -1},
    {"action": "bid", "amount": 10**9},
    {"action": "bid", "amount": 2.5},
    {"action": "bid", "amount": True},
    {"action": "bid", "amount": 5, "extra": 1},
    {"action": "choose", "slot": -1},
    {"action": "choose", "slot": 99},
    {"action": "choose", "slot": None},
    {"action": "play"},
    {"action": "play", "card": "nothing-1"},
    {"action": "play", "card": 4},
    {"action": "play", "card": "herbs-1", "target": 0},
    {"action": "prices"},
    {"action": "prices", "prices": None},
    {"action": "prices", "prices": {"herbs": 1000}},
    {"action": "prices", "prices": {1: 2}},
    {"action": "prices", "prices": {"herbs": [2]}},
]


def _reference_income(counts, prices, defaulting, defective):
    """Income worked out again, as plainly as the rule reads (Spec, A round, 5)."""
    off = {tuple(pair) for pair in defective}
    income = [0] * len(counts)
    for article in ARTICLE_BY_ID:
        sellers = [
            (s, held[article], prices[s][article])
            for s, held in enumerate(counts)
            if held.get(article) and (s, article) not in off
        ]
        asked = [p for _, _, p in sellers]
        for seat, cards, price in sellers:
            if seat in defaulting:
                continue
            if price == min(asked):
                income[seat] += price * cards + 2 * cards
            elif price != max(asked):
                income[seat] += price * cards
    return income


def _card_places(state):
    """Every card of the game, wherever it is: each must be in exactly one place."""
    cards = list(state["deck"]) + [state["row"][slot] for slot in state["pending"]]
    for held in state["articles"] + state["specials"]:
        cards.extend(held)
    cards += state["discard"] + state["unseen"]
    auction = state["auction"]
    if state["step"] == "auction":
        cards.append(auction["card"])
        cards.extend(auction.get("queue", []))
    if state["step"] == "antitrust_limits":
        cards.extend(auction["cards"])
    return cards


def _forbidden(state, viewer):
    """Card ids `viewer` must never see: the pile, unseen specials, others' specials."""
    hidden = set(state["deck"]) | set(state["unseen"])
    for seat, held in enumerate(state["specials"]):
        if seat != viewer:
            hidden |= set(held)
    if state["step"] == "auction" and is_special(state["auction"]["card"]):
        hidden.add(state["auction"]["card"])
    for slot in state["pending"]:
        if is_special(state["row"][slot]):
            hidden.add(state["row"][slot])
    return hidden


def _check_hidden(text, state, viewer):
    for card in _forbidden(state, viewer):
        assert f'"{card}"' not in text, (card, viewer)


def _scrambled(state, viewer):
    """The same state but with other seats' secret prices and sealed bids changed."""
    other = json.loads(json.dumps(state))
    for seat, asked in enumerate(other["prices"]):
        if asked and seat != viewer:
            other["prices"][seat] = {a: ARTICLE_BY_ID[a].base * 2 - 1 for a in asked}
    auction = other["auction"]
    if other["step"] == "auction" and auction["mode"] == "sealed":
        for seat, amount in enumerate(auction["bids"]):
            if amount is not None and seat != viewer:
                auction["bids"][seat] = amount + 17
    # Orders mode: other seats' limits and lists of specials are as secret as prices.
    if other["step"] == "limits":
        for seat, given in enumerate(other["limits"]):
            if given is not None and seat != viewer:
                other["limits"][seat] = [amount + 17 for amount in given]
    if other["step"] == "lists":
        for seat, listed in enumerate(other["plays"]):
            if listed is not None and seat != viewer:
                other["plays"][seat] = listed[::-1] if len(listed) > 1 else []
    if other["step"] == "antitrust_limits":
        for seat, amount in enumerate(auction["limits"]):
            if amount is not None and seat != viewer:
                auction["limits"][seat] = amount + 17
    return other


def _check_sales(before, after):
    """Spec, Playing by mail, 4 and 6: every card sold by limits in this move, checked."""
    if len(after["history"]) != len(before["history"]) and before["history"]:
        record, old = after["history"][len(before["history"]) - 1], before["history"][-1]
    else:
        record, old = after["history"][-1], before["history"][-1] if before["history"] else None
    n, money = before["n"], list(before["money"])
    done = len(old["lots"]) if old else 0
    first = record["first"]
    won = [lot["winner"] for lot in record["lots"][:done] if lot["winner"] is not None]
    sales = [(lot, (first + 0) % n, won) for lot in record["lots"][done:]]
    if sales and sales[0][0]["mode"] != "orders":
        sales = []
    old_played = old["played"] if old else []
    for index, played in enumerate(record["played"]):
        already = len(old_played[index].get("sales", [])) if index < len(old_played) else 0
        for sale in played.get("sales", [])[already:]:
            if sale["mode"] == "limits":
                sales.append((sale, (played["target"] + 1) % n, None))
    for lot, start, winners in sales:
        seats = [s for s, _ in lot["bids"]]
        clockwise = [(start + i) % n for i in range(n)]
        if winners is not None:
            # Eligible: everyone who has not won a card this round, clockwise from the first
            # buyer (the tie-break order).
            assert seats == [s for s in clockwise if s not in winners]
        else:
            assert seats == [s for s in clockwise if s != (start - 1) % n]
        base = base_price(lot["card"])
        capped = {s: min(limit or 0, money[s]) for s, limit in lot["bids"]}
        bidders = [s for s in seats if capped[s] >= base]
        winner, price = lot["winner"], lot["price"]
        if not bidders:
            assert winner is None and price is None
            continue
        top = max(capped[s] for s in bidders)
        # Nobody left eligible had a higher capped limit; a tie goes to the first in order.
        assert capped[winner] == top and winner == next(s for s in seats if capped[s] == top)
        assert base <= price <= capped[winner] <= money[winner]
        others = [capped[s] for s in bidders if s != winner]
        if not others:
            assert price == base
        elif max(others) + 1 <= capped[winner]:
            assert price == max(others) + 1
        else:
            assert price == capped[winner]
        money[winner] -= price
        if winners is not None:
            winners.append(winner)


def _check_state(state, full_deck):
    n = state["n"]
    assert json.loads(json.dumps(state)) == state
    assert Counter(_card_places(state)) == Counter(full_deck)
    # Écus change only by bids, income, subsidies and antitrust proceeds, all in the ledger.
    for seat in range(n):
        entries = [e for record in state["history"] for e in record["ledger"][seat]]
        assert {e["what"] for e in entries} <= LEDGER_KINDS
        assert state["money"][seat] == 10 + sum(e["amount"] for e in entries)
        assert state["money"][seat] >= 0
    assert 1 <= state["round"] <= state["rounds"]
    assert [r["round"] for r in state["history"]] == list(range(1, len(state["history"]) + 1))


def _check_round(record, table):
    """Each ledger line of a finished round matches what happened in it."""
    n = len(record["ledger"])
    expected = [Counter() for _ in range(n)]
    for lot in record["lots"]:
        if lot["winner"] is not None:
            expected[lot["winner"]]["auction"] -= lot["price"]
    for played in record["played"]:
        if played["kind"] == "subsidy":
            expected[played["seat"]]["subsidy"] += table["subsidy"]["amount"]
        for sale in played.get("sales", []):
            if sale["winner"] is not None:
                expected[sale["winner"]]["antitrust_buy"] -= sale["price"]
                expected[played["target"]]["antitrust_sale"] += sale["price"]
    for seat in range(n):
        got = Counter()
        for entry in record["ledger"][seat]:
            if entry["what"] != "income":
                got[entry["what"]] += entry["amount"]
        assert {k: v for k, v in got.items() if v} == {k: v for k, v in expected[seat].items() if v}


def _check_moves(state):
    """Every listed move and every timeout move is accepted; junk raises IllegalMove."""
    before = json.dumps(state, sort_keys=True)
    for seat in range(state["n"]):
        moves = G.legal_moves(state, seat)
        assert bool(moves) == G.may_act(state, seat)
        for move in moves:
            G.apply(state, seat, move)
        if seat in G.to_act(state):
            G.apply(state, seat, G.timeout_move(state, seat))
        for move in JUNK:
            try:
                G.apply(state, seat, move)
            except IllegalMove as err:
                assert render(err.msg, "en") != err.msg.key
                assert render(err.msg, "fr") != err.msg.key
            else:
                raise AssertionError(f"junk accepted: {move!r}")
    for seat in (None, -1, state["n"], "1", 1.0):
        try:
            G.apply(state, seat, {"action": "pass"})
            raise AssertionError("a bad seat was accepted")
        except IllegalMove:
            pass
    assert json.dumps(state, sort_keys=True) == before


def _pick(state, rng):
    """A random seat and move: mostly a listed move, sometimes any amount in range."""
    waiting = G.to_act(state)
    movers = [s for s in range(state["n"]) if G.may_act(state, s)]
    seat = rng.choice(waiting if rng.random() < 0.8 else movers)
    roll = rng.random()
    if roll < 0.1:
        return seat, G.timeout_move(state, seat)
    step = engine.step_name(state)
    if step == "pricing" and roll < 0.6:
        selling = engine.on_sale(state, seat)
        prices = {a: rng.randint(ARTICLE_BY_ID[a].base, 2 * ARTICLE_BY_ID[a].base) for a in selling}
        return seat, {"action": "prices", "prices": prices}
    if step == "limits" and roll < 0.5:
        ranges = G.view(state, seat)["me"]["limit_ranges"]
        given = [rng.choice([0, rng.randint(*r)]) if r else 0 for r in ranges]
        return seat, {"action": "limits", "limits": given}
    if step == "lists" and roll < 0.5:
        # One listed play per card, in a random order: later ones may lose their target.
        by_card = {}
        for move in G.legal_moves(state, seat)[1:]:
            by_card.setdefault(move["plays"][0]["card"], []).append(move["plays"][0])
        listed = [rng.choice(options) for options in by_card.values() if rng.random() < 0.7]
        rng.shuffle(listed)
        return seat, {"action": "specials", "plays": listed}
    if step == "open" and roll < 0.3:
        low, high = G.view(state, seat)["me"]["bid_range"] or (0, -1)
        if low <= high:
            return seat, {"action": "bid", "amount": rng.randint(low, high)}
    moves = G.legal_moves(state, seat)
    passes = [m for m in moves if m["action"] in ("pass", "done")]
    if passes and rng.random() < 0.4:
        return seat, passes[0]
    return seat, rng.choice(moves)


def play_random_game(n, mode, specials, seed, policy, thorough=0.1):
    """Play one random game, checking the properties as it goes; return the final state."""
    options = {"auction": mode, "specials": specials}
    state = G.setup(n, options, seed)
    full_deck = build_deck(state["table"])
    rng = random.Random(policy)
    log = []
    for _ply in range(20000):
        if not G.to_act(state):
            break
        _check_state(state, full_deck)
        if rng.random() < thorough:
            _check_moves(state)
            for viewer in [None, *range(n)]:
                view = G.view(state, viewer)
                text = json.dumps(view)
                _check_hidden(text, state, viewer)
                assert view == G.view(_scrambled(state, viewer), viewer)
        seat, move = _pick(state, rng)
        after = G.apply(state, seat, move)
        if mode == "orders":
            _check_sales(state, after)
            if move["action"] in ("limits", "specials", "limit"):
                # Until the last one is in, the others read only that this seat has acted.
                if G.turn_token(after, seat) == G.turn_token(state, seat):
                    for viewer in [None, *range(n)]:
                        if viewer != seat:
                            (line,) = G.describe(state, seat, move, viewer)
                            assert line.params == {"seat": seat}
        for viewer in (None, seat, (seat + 1) % n):
            lines = G.describe(state, seat, move, viewer)
            text = json.dumps([m.to_json() for m in lines])
            _check_hidden(text, after, viewer)
            for line in lines:
                assert translated(line.key, "en") and translated(line.key, "fr"), line.key
                render(line, "fr")
                render(line, "en")
        if len(after["history"]) > len(state["history"]) or not G.to_act(after):
            _check_round(after["history"][len(state["history"]) - 1], state["table"])
            record = after["history"][len(state["history"]) - 1]
            # No card changes hands without a decision, so the articles after this move are
            # those the round's income was paid on.
            held = [dict(Counter(card_type(c) for c in arts)) for arts in after["articles"]]
            reference = _reference_income(
                held,
                record["prices"],
                record["effects"]["defaulting"],
                record["effects"]["defective"],
            )
            got = [sum(e["amount"] for e in per.values()) for per in record["income"]]
            assert got == reference
        log.append((seat, move))
        state = after
    else:
        raise AssertionError("the game did not end")
    _check_state(state, full_deck)
    assert len(state["history"]) == state["rounds"] == (8 if n >= 7 else 10)
    assert G.legal_moves(state, 0) == [] and G.outcome(state) is not None
    outcome = G.outcome(state)
    for seat in range(n):
        goods = sum(ARTICLE_BY_ID[card_type(c)].base for c in state["articles"][seat])
        assert outcome.scores[seat] == state["money"][seat] + goods
    for viewer in [None, *range(n)]:
        _check_hidden(json.dumps(G.view(state, viewer)), state, viewer)
    _check_hidden(json.dumps(outcome.breakdown), state, None)
    # Replaying the moves from the seed rebuilds the very same state.
    replay = G.setup(n, options, seed)
    for seat, move in log:
        replay = G.apply(replay, seat, move)
    assert replay == state
    return state


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(3, 8),
    mode=st.sampled_from(["orders", "orders", "open", "sealed"]),
    specials=st.sampled_from(["standard", "none", MANY_SPECIALS]),
    seed=st.integers(0, 2**32),
    policy=st.integers(0, 2**32),
)
def test_random_games(n, mode, specials, seed, policy):
    play_random_game(n, mode, specials, seed, policy)


def test_every_size_and_mode_once():
    for n in range(3, 9):
        for mode in ("orders", "open", "sealed"):
            play_random_game(n, mode, MANY_SPECIALS, seed=n, policy=n * 7, thorough=0.02)


def _sample_states():
    """States at each kind of step, from two random games."""
    found = {}
    for mode in ("orders", "open", "sealed"):
        state = G.setup(4, {"auction": mode, "specials": MANY_SPECIALS}, 11)
        rng = random.Random(3)
        while G.to_act(state):
            key = engine.step_name(state)
            if state["step"] == "auction":
                key += "-" + state["auction"]["kind"]
            found.setdefault(key, state)
            seat, move = _pick(state, rng)
            state = G.apply(state, seat, move)
        found["over"] = state
    return list(found.values())


SAMPLES = _sample_states()
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=6,
)
FIELD = st.sampled_from(
    ["action", "slot", "amount", "card", "target", "article", "prices", "order", "limits", "plays"]
)
ACTION = st.sampled_from(
    ["choose", "bid", "pass", "take", "play", "done", "prices", "order", "limits", "specials"]
    + ["limit", "x"]
)


@settings(max_examples=300, deadline=None)
@given(
    index=st.integers(0, len(SAMPLES) - 1),
    seat=st.integers(-1, 4) | JSON,
    move=JSON
    | st.dictionaries(FIELD, JSON | ACTION)
    | st.fixed_dictionaries(
        {"action": ACTION},
        optional={
            "slot": JSON,
            "amount": JSON,
            "card": JSON,
            "target": JSON,
            "article": JSON,
            "prices": JSON,
            "order": JSON,
            "limits": JSON,
            "plays": JSON,
        },
    ),
)
def test_junk_never_raises_anything_but_illegal_move(index, seat, move):
    state = SAMPLES[index]
    before = json.dumps(state, sort_keys=True)
    try:
        G.apply(state, seat, move)
    except IllegalMove as err:
        assert translated(err.msg.key, "en")
    assert json.dumps(state, sort_keys=True) == before


def test_samples_cover_the_steps():
    steps = {engine.step_name(s) for s in SAMPLES}
    assert {"choose", "open", "sealed", "single", "specials", "pricing", "over"} <= steps
    assert {"order", "limits", "lists", "antitrust_limits"} <= steps
    assert any(s["step"] == "auction" and s["auction"]["kind"] == "antitrust" for s in SAMPLES)
