"""A seat's standing orders stay its own: walking a Fantasy Business game in which seat 0
keeps orders with a marker amount (pass on every lot above 983 écus, prices at base), the
other seats' pages, polls, API answers, exports, the onlooker's page and export, every mail
and every log record never show them; seat 0's own page and API do."""

from __future__ import annotations

import logging
import random
import re
from typing import Any

from sqlmodel import select

from pbem.games.fantasy_business import engine
from pbem.models import Outbox
from pbem.storage.db import read_session
from tests.plans.orders_game import RULES, move, started, state_of
from tests.web.helpers import deliver, links, text_of

MARKER = re.compile(r"(?<![0-9A-Za-z_-])983(?![0-9A-Za-z_-])")


def outputs(client: Any, app: Any, game_id: int, seat: int, watch: str) -> dict[str, str]:
    """What `seat` and an onlooker can read now."""
    api = links(app, game_id)[seat]
    page = api.replace("/api/v1/seat/", "/p/")
    get = client.get
    return {
        "table": get(page, query_string={"lang": "en"}).get_data(as_text=True),
        "poll": get(f"{page}/ply").get_data(as_text=True),
        "API view": get(api).get_data(as_text=True),
        "API orders": get(f"{api}/standing").get_data(as_text=True),
        "export json": get(f"{page}/export.json").get_data(as_text=True),
        "export txt": get(f"{page}/export.txt").get_data(as_text=True),
        "spectator": get(f"/w/{watch}").get_data(as_text=True),
        "spectator export": get(f"/w/{watch}/export.json").get_data(as_text=True),
    }


def test_standing_orders_never_reach_another_seat(
    client: Any, app: Any, clock: Any, smtpd: Any, caplog: Any
) -> None:
    caplog.set_level(logging.DEBUG, logger="pbem")
    rng = random.Random(7)
    game_id = started(app, clock, {"auction": "open"})
    api = links(app, game_id)[0]
    kept = client.put(f"{api}/standing", json={"pass_above": 983, "base_prices": True})
    assert kept.status_code == 200
    page = api.replace("/api/v1/seat/", "/p/")
    own = client.get(page, query_string={"lang": "en"}).get_data(as_text=True)
    assert MARKER.search(own) and "Cancel my standing orders" in own
    watch = own.split('href="http://pbem.test/w/')[1].split('"')[0]
    for ply in range(40):
        state = state_of(app, game_id)
        acting = engine.to_act(state)
        if not acting:
            break
        seat = acting[0]
        move(app, clock, game_id, seat, rng.choice(RULES.legal_moves(state, seat)))
        if ply % 8 == 0:
            deliver(app)
            for other in (1, 2):
                for name, text in outputs(client, app, game_id, other, watch).items():
                    assert not MARKER.search(text), (name, other)
                    assert "Cancel my standing orders" not in text, (name, other)
    deliver(app)
    for mail in smtpd.messages:
        assert not MARKER.search(text_of(mail))
    with read_session(app.extensions["pbem"]["engine"]) as session:
        for row in session.exec(select(Outbox)).all():
            assert '"standing"' not in row.model_dump_json()
    for record in caplog.records:
        if record.name.startswith("pbem"):
            assert not MARKER.search(record.getMessage()), record.getMessage()
