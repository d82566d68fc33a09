"""Retention (issues 33, 45): a webhook event posted (or given up) more than PBEM_KEEP_DAYS
ago is deleted, whatever its game, as nothing reads it; an event still being retried is
kept whole and posted as it was written."""

from __future__ import annotations

from pbem.clock.scheduler import drain_webhooks, prune_old
from tests.webhooks.helpers import add_hook, deliveries, move, seat_to_act


def test_posted_events_go_and_retried_ones_stay_whole(app, hooks, game):
    clock = app.config["CLOCK"]
    seat = seat_to_act(app, game)
    ok = add_hook(app, game, seat, "table", hooks.url("/ok"), "generic")
    down = add_hook(app, game, seat, "table", hooks.url("/down"), "generic")
    hooks.answer("/down", 500)
    move(app, game)
    drain_webhooks(app)
    rows = deliveries(app)
    posted = [r for r in rows if r.webhook_id == ok.id]
    waiting = [r for r in rows if r.webhook_id == down.id]
    assert posted and all(r.sent_at is not None and r.body for r in posted)
    assert waiting and all(r.sent_at is None for r in waiting)
    (tried,) = [r for r in waiting if r.attempts]
    assert [r["body"] for r in hooks.to("/down")] == [tried.body.encode()]

    clock.advance(days=31)
    assert prune_old(app)["webhooks"] == len(posted)  # the game is still played
    after = {r.id: r for r in deliveries(app)}
    assert set(after) == {r.id for r in waiting}
    for row in waiting:
        assert (after[row.id].body, after[row.id].facts) == (row.body, row.facts)
    assert prune_old(app)["webhooks"] == 0  # run again: nothing left

    # The chat server is back: the retried event is posted as it was first written.
    drain_webhooks(app)
    bodies = [r["body"] for r in hooks.to("/down")]
    assert bodies[:2] == [tried.body.encode()] * 2
    assert all(r.sent_at is not None for r in deliveries(app))
