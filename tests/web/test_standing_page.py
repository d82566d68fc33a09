"""The "Standing orders" part of a Fantasy Business page, with plain forms: keep the ticked
orders (what they decide now is played at once), cancel them; shown to their seat alone;
a wrong amount says why."""

from __future__ import annotations

from typing import Any

from pbem.games.fantasy_business import engine
from pbem.plans import seat_orders
from pbem.storage.db import read_session
from pbem.storage.store import seat_of
from tests.plans.orders_game import RULES, logged, move, started, state_of
from tests.web.helpers import links


def orders(app: Any, game_id: int, seat: int) -> dict[str, Any]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return seat_orders.orders_of(seat_of(session, game_id, seat))


def test_standing_orders_on_the_page(client: Any, app: Any, clock: Any) -> None:
    game_id = started(app, clock, {"auction": "open"})
    state = state_of(app, game_id)
    while engine.step_name(state) != "open":
        seat = engine.to_act(state)[0]
        move(app, clock, game_id, seat, RULES.legal_moves(state, seat)[0])
        state = state_of(app, game_id)
    seat = engine.to_act(state)[0]
    other = (seat + 1) % 3
    pages = [path.replace("/api/v1/seat/", "/p/") for path in links(app, game_id)]
    mine, theirs = pages[seat], pages[other]

    page = client.get(mine, query_string={"lang": "en"}).get_data(as_text=True)
    assert "Standing orders" in page and "Pass on every lot above" in page
    assert "Cancel my standing orders" not in page  # none set yet

    wrong = client.post(f"{mine}/standing", data={"pass_on": "1", "pass_above": "lots"})
    assert wrong.status_code == 303 and "standing_error=amount" in wrong.headers["Location"]
    assert orders(app, game_id, seat) == {}

    kept = client.post(
        f"{mine}/standing", data={"pass_on": "1", "pass_above": "0", "base_prices": "1"}
    )
    assert kept.status_code == 303
    assert orders(app, game_id, seat) == {"pass_above": 0, "base_prices": True}
    # The page after the POST says what was kept (issue 47), in the orders' status line.
    after = client.get(kept.headers["Location"].split("#")[0] + "&lang=en")
    said = after.get_data(as_text=True)
    assert '<p class="standing-answer" role="status">Kept: pass on every lot above 0 écus; ' in said
    assert logged(app, game_id)[-1].source == "standing"  # the pass it decided, at once
    shown = client.get(mine, query_string={"lang": "en"}).get_data(as_text=True)
    assert "Cancel my standing orders" in shown
    # The other seat's page shows its own (none), never these.
    assert "Cancel my standing orders" not in client.get(theirs).get_data(as_text=True)

    cancelled = client.post(f"{mine}/standing/cancel")
    assert cancelled.status_code == 303
    assert orders(app, game_id, seat) == {}
    said = client.get(cancelled.headers["Location"]).get_data(as_text=True)
    assert "Your standing orders are cancelled" in said
