"""Fantasy Business standing orders through the JSON API: read, kept (a move they decide now
is played at once), refused with a reason, cancelled; another seat's orders are never shown."""

from __future__ import annotations

from typing import Any

from pbem.games.fantasy_business import engine
from pbem.web.apimodels import Standing
from tests.plans.orders_game import RULES, logged, move, started, state_of
from tests.web.helpers import links


def test_standing_orders_over_the_api(client: Any, app: Any, clock: Any) -> None:
    game_id = started(app, clock, {"auction": "open"})
    state = state_of(app, game_id)
    while engine.step_name(state) != "open":
        seat = engine.to_act(state)[0]
        move(app, clock, game_id, seat, RULES.legal_moves(state, seat)[0])
        state = state_of(app, game_id)
    seat = engine.to_act(state)[0]
    other = (seat + 1) % 3
    paths = [path + "/standing" for path in links(app, game_id)]

    first = client.get(paths[seat]).get_json()
    Standing.model_validate(first)
    assert first == {"may_order": True, "pass_above": None, "base_prices": False}

    refused = client.put(paths[seat], json={"pass_above": -2})
    assert refused.status_code == 400 and refused.get_json()["error"] == "bad_request"

    kept = client.put(paths[seat], json={"pass_above": 0, "base_prices": True})
    assert kept.status_code == 200
    assert kept.get_json() == {"may_order": True, "pass_above": 0, "base_prices": True}
    # Waited on when they were set: the pass they decide is played at once.
    assert logged(app, game_id)[-1].source == "standing"
    assert logged(app, game_id)[-1].move == {"action": "pass"}
    # Secret to the seat: another seat reads its own orders only.
    assert client.get(paths[other]).get_json()["pass_above"] is None

    dropped = client.delete(paths[seat])
    assert dropped.status_code == 200
    assert dropped.get_json() == {"may_order": True, "pass_above": None, "base_prices": False}
