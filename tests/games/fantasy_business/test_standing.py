"""Standing orders in Fantasy Business (pbem.games.fantasy_business.standing): the move they
decide is always one the rules take, passes only on lots above N, prices at base; they
decide nothing when they do not fix the whole of a seat's input."""

from __future__ import annotations

import random

import pytest

from pbem.games import GAMES, IllegalMove
from pbem.games.fantasy_business import engine
from pbem.games.fantasy_business.cards import article_base, base_price
from pbem.games.fantasy_business.standing import check_orders, standing_move

G = GAMES["fantasy-business"]


def walk(mode: str, orders: dict, seed: int) -> tuple[int, int, list[dict]]:
    """A seeded game: seat 0 under standing orders wherever they decide, the rest random.
    (waits on seat 0, its moves decided by orders, those moves)."""
    rng = random.Random(seed)
    state = G.setup(4, {"auction": mode}, seed)
    asked = decided = 0
    made = []
    while engine.to_act(state):
        seat = engine.to_act(state)[0]
        move = standing_move(state, seat, orders) if seat == 0 else None
        if seat == 0:
            asked += move is None
            decided += move is not None
        if move is not None:
            made.append({"step": engine.step_name(state), "move": move, "state": state})
        else:
            move = rng.choice(G.legal_moves(state, seat))
        state = G.apply(state, seat, move)  # a decided move the rules refuse fails here
    return asked, decided, made


@pytest.mark.parametrize("mode", ["orders", "open", "sealed"])
def test_the_orders_decide_legal_moves_and_pass_only_above_n(mode: str) -> None:
    orders = {"pass_above": 4, "base_prices": True}
    for seed in range(6):
        _, decided, made = walk(mode, orders, seed)
        assert decided > 0
        for entry in made:
            move, state = entry["move"], entry["state"]
            auction = state["auction"] or {}
            if move["action"] == "prices":
                assert move["prices"] == {a: article_base(a) for a in move["prices"]}
                assert set(move["prices"]) == set(engine.on_sale(state, 0))
            elif move["action"] == "limits":
                assert all(base_price(c) > 4 for c in state["row"])
                assert set(move["limits"]) == {0}
            elif entry["step"] == "open":
                assert move == {"action": "pass"}
                low = auction["base"] if auction["bid"] is None else auction["bid"] + 1
                assert low > 4
            else:
                assert auction["base"] > 4


@pytest.mark.parametrize("mode", ["orders", "open", "sealed"])
def test_no_orders_decide_nothing(mode: str) -> None:
    assert all(walk(mode, {}, seed)[1] == 0 for seed in range(3))


def test_limits_are_decided_only_when_every_card_is_above_n() -> None:
    state = G.setup(4, {"auction": "orders"}, 3)
    while engine.step_name(state) != "limits":
        seat = engine.to_act(state)[0]
        state = G.apply(state, seat, G.legal_moves(state, seat)[0])
    seat = engine.to_act(state)[0]
    bases = [base_price(c) for c in state["row"]]
    assert standing_move(state, seat, {"pass_above": max(bases)}) is None
    decided = standing_move(state, seat, {"pass_above": min(bases) - 1})
    assert decided == {"action": "limits", "limits": [0] * len(bases)}
    G.apply(state, seat, decided)


@pytest.mark.parametrize(
    ("orders", "kept"),
    [
        ({}, {}),
        ({"pass_above": 5}, {"pass_above": 5}),
        ({"base_prices": True, "pass_above": None}, {"base_prices": True}),
        ({"base_prices": False}, {}),
    ],
)
def test_orders_are_checked_when_set(orders: dict, kept: dict) -> None:
    assert check_orders(orders) == kept


@pytest.mark.parametrize(
    "orders", [[], {"pass_above": -1}, {"pass_above": "5"}, {"pass_above": True}, {"x": 1}]
)
def test_wrong_orders_are_refused(orders: object) -> None:
    with pytest.raises(IllegalMove):
        check_orders(orders)
