"""Webhook drains in two clock processes at once (issue 33: with two clocks 6 of 10 events
were posted twice, a drain's later events being claimed with a lease that began with its
first): each event is posted once."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pbem.webhooks import deliver
from tests.clock.several import at_once, many_games
from tests.webhooks.helpers import add_hook, deliveries, move, seat_to_act

GAMES_COUNT = 4
MOVES = 3  # in each game: 12 events in all


def test_two_webhook_drains_at_once_post_each_event_once(
    app: Any, smtpd: Any, hooks: Any, clock: Any, database_url: str
) -> None:
    for n, game in enumerate(many_games(app, GAMES_COUNT, 2, clock)):
        path = f"/table{n}"
        add_hook(app, game, seat_to_act(app, game), "table", hooks.url(path), "generic")
        hooks.answer(path, *[(200, {}, 0.05)] * MOVES)  # a little slow, so the drains overlap
        for _ in range(MOVES):
            move(app, game)
    events = [row.event_id for row in deliveries(app)]
    assert len(events) >= 10
    ext, now = app.extensions["pbem"], clock()
    site, settings = ext["site"], ext["settings"]

    def drain(engine: Any) -> dict[str, int]:
        return deliver.drain(engine, site, settings, now)

    results = at_once(database_url, [drain, drain])
    assert sum(r["sent"] for r in results) == len(events)
    assert all(r["failed"] == 0 for r in results)
    posted = Counter(r["headers"]["X-Pbem-Delivery"] for r in hooks.requests)
    assert posted == Counter(events)  # each once
    assert all(row.sent_at is not None and not row.given_up for row in deliveries(app))
