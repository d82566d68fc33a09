"""The webhook sender against slow servers on loopback (issue 30): each request has one
deadline for all of it, a slow webhook holds up only its own events, and an event is
claimed only when its turn comes, so that no two drains post it."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

from pbem.clock.scheduler import drain_webhooks
from pbem.config import settings_of
from pbem.models import Webhook
from pbem.storage.db import write_session
from tests.web.helpers import link_in
from tests.webhooks.helpers import PLAYERS, Drip, add_hook, deliveries, engine_of, move, seat_to_act

IDLE = {"sent": 0, "failed": 0, "disabled": 0}


def test_an_answer_dripped_a_byte_at_a_time_is_cut_at_the_deadline(app, hooks, game):
    """The timeout used to be per socket read: a server sending a byte every 0.1 s held a
    delivery as long as it liked (here 6 s, and it counted as sent). Now the whole request
    must be done within WEBHOOK_TIMEOUT (0.5 s here): the event counts as failed, waits out
    its backoff, and was posted once."""
    clock = app.config["CLOCK"]
    add_hook(app, game, seat_to_act(app, game), "table", hooks.url("/slow"), "generic")
    move(app, game)
    drip = hooks.drip("/slow", Drip(every=0.1))  # the whole answer would take 6 s
    assert drain_webhooks(app) == {"sent": 0, "failed": 1, "disabled": 0}
    assert drip.ended.wait(30) and drip.cut  # the sender hung up mid-answer
    (row,) = deliveries(app)
    assert row.sent_at is None and row.attempts == 1 and row.claimed_until is None
    assert "timed out" in (row.last_error or "")
    assert row.next_attempt_at == clock() + timedelta(seconds=30)  # the first backoff
    assert drain_webhooks(app) == IDLE
    assert [r["headers"]["X-Pbem-Delivery"] for r in hooks.to("/slow")] == [row.event_id]


def test_an_event_is_claimed_when_its_turn_comes_and_no_other_drain_posts_it(app, hooks, game):
    """A drain used to claim its whole batch at its start, for five minutes from then: past
    them (one slow server was enough) the next drain posted the batch's later events again.
    Now each event is claimed just before it is posted, for longer than its deadline, and
    while a webhook's event is held no other drain posts it or that webhook's next one."""
    clock = app.config["CLOCK"]
    settings_of(app).webhook_timeout = 60.0  # the slow server is let go by the test, not cut
    add_hook(app, game, seat_to_act(app, game), "table", hooks.url("/slow"), "generic")
    move(app, game)
    move(app, game)
    go = threading.Event()
    drip = hooks.drip("/slow", Drip(every=0.5, release=go))  # held until go (or 30 s)
    results: dict[str, Any] = {}
    sender = threading.Thread(target=lambda: results.update(drain_webhooks(app)))
    sender.start()
    try:
        assert hooks.arrived("/slow").wait(30)
        held, waiting = deliveries(app)
        assert held.claimed_until is not None and waiting.claimed_until is None
        assert held.claimed_until >= clock() + timedelta(seconds=60)  # outlasts the deadline
        assert drain_webhooks(app) == IDLE  # another clock's drain, meanwhile
    finally:
        go.set()
        sender.join(60)
    assert drip.released
    assert results == {"sent": 2, "failed": 0, "disabled": 0}
    posted = [r["headers"]["X-Pbem-Delivery"] for r in hooks.to("/slow")]
    assert posted == [held.event_id, waiting.event_id]  # each once, in order


def test_a_slow_webhook_holds_up_only_its_own_events(app, hooks, game):
    """Deliveries used to go one after another, so one endpoint dripping its answer delayed
    every other player's (1.7 s became 59.7 s). Now each webhook's events go on a worker of
    their own: another webhook's event is delivered while the slow one is still being held,
    and the slow webhook's next event goes only after its first (its events stay in order)."""
    settings_of(app).webhook_timeout = 60.0  # no deadline frees the other here
    table = add_hook(app, game, seat_to_act(app, game), "table", hooks.url("/slow"), "generic")
    seat = (move(app, game) + 1) % 3
    add_hook(app, game, seat, "mine", hooks.url("/quick"), "discord")
    assert move(app, game) == seat
    # The slow server sends its answer a byte every 0.25 s (15 s in all), the rest at once
    # when the quick webhook's request has come.
    drip = hooks.drip("/slow", Drip(every=0.25, release=hooks.arrived("/quick")))
    assert drain_webhooks(app) == {"sent": 3, "failed": 0, "disabled": 0}
    assert drip.released  # the quick one came while the slow one was held
    slow = [f"/slow {r.event_id}" for r in deliveries(app) if r.webhook_id == table.id]
    (quick,) = [f"/quick {r.event_id}" for r in deliveries(app) if r.webhook_id != table.id]
    timeline = hooks.timeline
    assert sorted(timeline) == sorted([*slow, quick, "/slow end"])
    assert timeline.index(slow[0]) < timeline.index("/slow end") < timeline.index(slow[1])
    assert timeline.index(quick) < timeline.index("/slow end")


def test_a_huge_retry_after_waits_the_longest_backoff_and_stops_no_drain(app, hooks, game):
    """A Retry-After of 10^29 seconds overflowed timedelta: the drain ended with an exception
    at that event, at every drain, and no webhook after it was posted."""
    add_hook(app, game, seat_to_act(app, game), "table", hooks.url("/huge"), "generic")
    hooks.answer("/huge", (503, {"Retry-After": "9" * 30}, 0.0))
    move(app, game)
    assert drain_webhooks(app) == {"sent": 0, "failed": 1, "disabled": 0}
    (row,) = deliveries(app)
    assert row.next_attempt_at == app.config["CLOCK"]() + timedelta(hours=2)


def test_a_url_with_a_path_that_is_not_ascii_is_refused_and_stops_no_drain(
    app, client, hooks, game, smtpd
):
    """http.client cannot send such a path: it raised, and the drain ended there each time."""
    link = link_in(smtpd.to(PLAYERS[0].email)[0])
    response = client.post(f"{link}/webhooks", data={"url": hooks.url("/café"), "kind": "auto",
                                                    "scope": "mine"})  # fmt: skip
    assert response.status_code == 400
    assert "That is not a web address a webhook can use." in response.get_data(as_text=True)
    # One stored before this check: it fails alone, and the other webhook is posted to.
    fine = add_hook(app, game, 0, "mine", hooks.url("/x"), "generic")
    with write_session(engine_of(app)) as session:
        stored = session.get(Webhook, fine.id)
        stored.url, stored.game_id = hooks.url("/café"), game
    add_hook(app, game, seat_to_act(app, game), "table", hooks.url("/fine"), "generic")
    move(app, game)
    assert drain_webhooks(app) == {"sent": 1, "failed": 1, "disabled": 0}
    assert len(hooks.to("/fine")) == 1
