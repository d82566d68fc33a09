"""The Fantasy Business bot's opponent model for the secrets other seats already sent."""

from __future__ import annotations

import random

from pbem.bots.fantasy_business import BOT
from pbem.games import GAMES
from pbem.games.fantasy_business import engine
from pbem.games.fantasy_business.cards import base_price
from tests.bots.positions import random_game

GAME = GAMES["fantasy-business"]


def _limits_positions():
    """Limits steps where another seat has already sent its limits."""
    for seed in range(30):
        for state in random_game("fantasy-business", 4, {"auction": "orders"}, seed):
            if engine.step_name(state) == "limits" and any(x is not None for x in state["limits"]):
                yield state


def test_sent_limits_are_redrawn_from_the_model_and_nothing_else_moves():
    checked = 0
    for state in _limits_positions():
        seat = GAME.to_act(state)[-1]
        dealt = GAME.deal(GAME.view(state, seat), seat, random.Random(checked))
        before = {s: dealt["limits"][s] for s in range(4)}
        modelled = BOT.model_secrets(dealt, seat, random.Random(checked))
        for s in range(4):
            if s == seat or before[s] is None:
                assert modelled["limits"][s] == before[s]
                continue
            money = modelled["money"][s]
            for card, limit in zip(modelled["row"], modelled["limits"][s], strict=True):
                assert limit == 0 or base_price(card) <= limit <= money
        GAME.apply(modelled, seat, BOT.policy(modelled, seat, random.Random(0)))
        checked += 1
        if checked == 12:
            break
    assert checked == 12


def test_the_model_does_not_send_limits_at_random():
    # The deal draws a sent limit uniformly; the model asks about a card's worth, so the
    # same seat's modelled limits agree with each other far more than random draws do.
    state = next(_limits_positions())
    seat = GAME.to_act(state)[-1]
    other = next(s for s in range(4) if s != seat and state["limits"][s] is not None)
    view = GAME.view(state, seat)
    dealt = [GAME.deal(view, seat, random.Random(k)) for k in range(40)]
    drawn = {tuple(d["limits"][other]) for d in dealt}
    modelled = {
        tuple(BOT.model_secrets(d, seat, random.Random(k))["limits"][other])
        for k, d in enumerate(dealt)
    }
    assert len(modelled) < len(drawn)
