"""A plan ahead through the JSON API: read, kept (checked as it is made), refused with a
reason, dropped; played ahead when the other moves; another seat's plan is never shown."""

from __future__ import annotations

from typing import Any

from pbem.web.apimodels import Plan
from tests.plans.ahead_game import RULES, a_play, game_of, logged, started
from tests.web.helpers import links


def test_a_plan_over_the_api(client: Any, app: Any, clock: Any) -> None:
    game_id = started(app, clock)
    state = game_of(app, game_id).state
    assert state is not None
    them = state["turn"]
    me = 1 - them
    paths = links(app, game_id)
    mine_path, their_path = paths[me] + "/plan", paths[them] + "/plan"

    first = client.get(mine_path).get_json()
    Plan.model_validate(first)
    assert first["may_plan"] and first["plan"] == [] and first["note"] is None
    theirs = a_play(state, them)
    assert theirs in first["their_moves"]
    # Nothing of my hand is among their moves: the list is made from my view only.
    assert not {m.get("card") for m in first["their_moves"]} & set(state["hands"][me])
    assert client.get(their_path).get_json()["may_plan"] is False

    mine = a_play(RULES.apply(state, them, theirs), me)
    bad = {"plan": [{"if": theirs, "then": {"chip": "moons"}}]}
    wrong = client.put(mine_path + "?lang=en", json=bad)
    assert wrong.status_code == 400 and wrong.get_json()["error"] == "illegal"
    assert "not a move you could make" in wrong.get_json()["message"]
    refused = client.put(their_path, json={"plan": [{"if": mine, "then": theirs}]})
    assert refused.status_code == 409

    kept = client.put(mine_path, json={"plan": [{"if": theirs, "then": mine}]})
    assert kept.status_code == 200
    assert kept.get_json()["plan"] == [{"if": theirs, "then": mine}]
    # The other seat's view, API and plan answers never carry my plan.
    for path in (paths[them], their_path):
        assert "plan" not in client.get(path).get_json() or not client.get(path).get_json()["plan"]
    assert str(mine["card"]) not in client.get(their_path).get_data(as_text=True)

    dropped = client.delete(mine_path)
    assert dropped.status_code == 200 and dropped.get_json()["plan"] == []
    client.put(mine_path, json={"plan": [{"if": theirs, "then": mine}]})

    view = client.get(paths[them]).get_json()
    played = client.post(
        paths[them] + "/move?lang=en", json={"turn": view["turn"], "move": theirs}, raw=True
    )
    assert played.status_code == 200
    assert [r.source for r in logged(app, game_id)] == ["web", "ahead"]
    after = client.get(mine_path).get_json()
    assert after["plan"] == [] and after["note"] == "used"
    texts = [line["text"] for line in played.get_json()["log"]]
    assert any("played this ahead" in " ".join(t) for t in texts)
