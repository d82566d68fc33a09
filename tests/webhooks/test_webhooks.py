"""Chat-room webhooks against a real HTTP server on loopback: formats, signatures, what each
webhook may link to, queued with the move and sent by the clock, retries with backoff,
disabling after repeated failure, redirects, timeouts, and which URLs are accepted."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest
from sqlalchemy import func
from sqlmodel import select

from pbem.clock.scheduler import drain_webhooks
from pbem.errors import PlayError
from pbem.models import Game, Player, Seat, Webhook
from pbem.storage.db import read_session, write_session
from pbem.webhooks import deliver as deliver_module
from pbem.webhooks.urls import WebhookError, check_url, detect_kind
from tests.web.helpers import deliver, link_in, sign_in_as
from tests.webhooks.helpers import (
    PLAYERS,
    add_hook,
    body_of,
    deliveries,
    engine_of,
    move,
    seat_to_act,
)


def test_a_players_own_discord_webhook_gets_their_turn_with_their_link(app, hooks, game):
    seat = (seat_to_act(app, game) + 1) % 3  # the next to act
    add_hook(app, game, seat, "mine", hooks.url("/discord"), "discord")
    assert move(app, game) == seat
    assert hooks.requests == []  # queued with the move; nothing is posted by the move itself
    assert len(deliveries(app)) == 1
    assert drain_webhooks(app) == {"sent": 1, "failed": 0, "disabled": 0}
    (request,) = hooks.to("/discord")
    payload = body_of(request)
    assert payload["allowed_mentions"] == {"parse": []}
    name = PLAYERS[seat].name
    assert name in payload["content"] and "http://pbem.test/p/" in payload["content"]
    assert request["headers"]["Content-Type"] == "application/json"
    assert "X-Pbem-Signature" not in request["headers"]  # only generic JSON is signed
    assert drain_webhooks(app)["sent"] == 0  # sent once


def test_a_table_slack_webhook_names_the_player_with_the_watch_link_only(app, hooks, game):
    add_hook(app, game, 0, "table", hooks.url("/slack"), "slack")
    next_seat = move(app, game)
    drain_webhooks(app)
    (request,) = hooks.to("/slack")
    text = body_of(request)["text"]
    assert PLAYERS[next_seat].name in text
    assert "http://pbem.test/w/" in text and "/p/" not in text


def test_only_the_creator_adds_a_table_webhook(app, hooks, game):
    with pytest.raises(PlayError) as info:
        add_hook(app, game, 1, "table", hooks.url("/t"), "generic")
    assert info.value.key == "webhook.error.not_creator"


def test_generic_json_is_signed_with_hmac_and_carries_a_stable_event_id(app, hooks, game):
    seat = (seat_to_act(app, game) + 1) % 3
    hook = add_hook(app, game, seat, "mine", hooks.url("/generic"), "generic")
    hooks.answer("/generic", 503)
    move(app, game)
    drain_webhooks(app)
    app.config["CLOCK"].advance(seconds=30)
    drain_webhooks(app)
    first, second = hooks.to("/generic")
    assert first["body"] == second["body"]  # a retry sends the same event
    assert first["headers"]["X-Pbem-Delivery"] == second["headers"]["X-Pbem-Delivery"]
    expected = "sha256=" + hmac.new(hook.secret.encode(), first["body"], hashlib.sha256).hexdigest()
    assert first["headers"]["X-Pbem-Signature"] == expected
    payload = body_of(first)
    assert payload["id"] == first["headers"]["X-Pbem-Delivery"]
    assert payload["event"] == "your_turn" and payload["player"] == PLAYERS[seat].name
    assert payload["link"].startswith("http://pbem.test/p/")


def test_results_reach_a_table_webhook_once(app, hooks, game):
    add_hook(app, game, 0, "table", hooks.url("/table"), "generic")
    while move(app, game) != -1:
        pass
    drain_webhooks(app)
    over = [body_of(r) for r in hooks.to("/table") if body_of(r)["event"] == "game_over"]
    assert len(over) == 1
    assert "is over" in over[0]["text"] and over[0]["player"] is None
    turns = [body_of(r) for r in hooks.to("/table") if body_of(r)["event"] == "your_turn"]
    assert len(turns) == 29  # every move but the last made someone's turn


def test_retries_follow_the_backoff_and_stop_at_success(app, hooks, game, capsys):
    clock = app.config["CLOCK"]
    start = clock()
    seat = (seat_to_act(app, game) + 1) % 3
    add_hook(app, game, seat, "mine", hooks.url("/flaky"), "generic")
    hooks.answer("/flaky", 500, 500, 500)
    move(app, game)
    attempts = []
    for _ in range(60):  # drain every 5 s of test time, as the clock would
        before = len(hooks.to("/flaky"))
        drain_webhooks(app)
        if len(hooks.to("/flaky")) > before:
            attempts.append(int((clock() - start).total_seconds()))
        clock.advance(seconds=5)
    (row,) = deliveries(app)
    assert attempts == [0, 30, 90, 210]  # 30 s, then doubling
    assert row.sent_at is not None and not row.given_up and row.attempts == 3
    with capsys.disabled():
        print(f"\nwebhook retry test: attempts at {attempts} s; delivered on attempt 4")


def test_a_webhook_that_keeps_failing_is_disabled_and_its_owner_told(
    app, hooks, game, smtpd, capsys
):
    clock = app.config["CLOCK"]
    start = clock()
    seat = (seat_to_act(app, game) + 1) % 3
    hook = add_hook(app, game, seat, "mine", hooks.url("/dead"), "discord")
    hooks.answer("/dead", *([404] * 20))
    move(app, game)
    attempts = []
    for _ in range(200):
        before = len(hooks.to("/dead"))
        result = drain_webhooks(app)
        if len(hooks.to("/dead")) > before:
            attempts.append(int((clock() - start).total_seconds()))
        if result["disabled"]:
            break
        clock.advance(seconds=30)
    assert len(attempts) == deliver_module.MAX_FAILURES
    gaps = [b - a for a, b in zip(attempts, attempts[1:], strict=False)]
    assert gaps == [30, 60, 120, 240, 480, 960, 1920]
    with read_session(engine_of(app)) as session:
        stored = session.get(Webhook, hook.id)
        assert stored is not None and not stored.enabled and stored.disabled_at is not None
    deliver(app)
    (mail,) = [m for m in smtpd.to(PLAYERS[seat].email) if "webhook" in str(m["Subject"])]
    assert "127.0.0.1" in str(mail["Subject"])
    # Nothing more is queued or posted for it.
    move(app, game)
    move(app, game)
    drain_webhooks(app)
    assert len(hooks.to("/dead")) == deliver_module.MAX_FAILURES
    with capsys.disabled():
        print(f"\nwebhook disable test: attempts at {attempts} s, then disabled, owner mailed")


def test_a_success_resets_the_failure_count(app, hooks, game):
    seat = (seat_to_act(app, game) + 1) % 3
    hook = add_hook(app, game, seat, "mine", hooks.url("/sometimes"), "generic")
    hooks.answer("/sometimes", 500, 200)
    move(app, game)
    drain_webhooks(app)
    app.config["CLOCK"].advance(seconds=30)
    drain_webhooks(app)
    with read_session(engine_of(app)) as session:
        assert session.get(Webhook, hook.id).failures == 0


def test_redirects_to_another_host_are_not_followed(app, hooks, game):
    seat = (seat_to_act(app, game) + 1) % 3
    add_hook(app, game, seat, "mine", hooks.url("/moved"), "generic")
    port = hooks.base.rsplit(":", 1)[1]
    hooks.answer("/moved", (302, {"Location": f"http://localhost:{port}/elsewhere"}, 0.0),
                 (307, {"Location": "/here"}, 0.0))  # fmt: skip
    move(app, game)
    assert drain_webhooks(app)["failed"] == 1
    assert hooks.to("/elsewhere") == []
    app.config["CLOCK"].advance(seconds=30)
    assert drain_webhooks(app)["sent"] == 1  # a redirect on the same host is followed
    assert len(hooks.to("/here")) == 1


def test_a_silent_server_times_out_and_is_retried(app, hooks, game):
    seat = (seat_to_act(app, game) + 1) % 3
    add_hook(app, game, seat, "mine", hooks.url("/slow"), "generic")
    hooks.answer("/slow", (200, {}, 1.5))  # longer than WEBHOOK_TIMEOUT (0.5 s)
    move(app, game)
    assert drain_webhooks(app) == {"sent": 0, "failed": 1, "disabled": 0}
    (row,) = deliveries(app)
    assert "timed out" in (row.last_error or "") and row.sent_at is None


def test_names_cannot_ping_a_channel(app, hooks, game):
    with write_session(engine_of(app)) as session:
        seat_no = (seat_to_act(app, game) + 1) % 3
        seat = session.exec(select(Seat).where(Seat.game_id == game, Seat.seat == seat_no)).one()
        seat.name = "<!channel> @everyone"
        session.add(seat)
    add_hook(app, game, 0, "table", hooks.url("/slack"), "slack")
    add_hook(app, game, seat_no, "mine", hooks.url("/discord"), "discord")
    move(app, game)
    drain_webhooks(app)
    slack = body_of(hooks.to("/slack")[0])["text"]
    assert "<!channel>" not in slack and "&lt;!channel&gt;" in slack
    assert body_of(hooks.to("/discord")[0])["allowed_mentions"] == {"parse": []}


def test_the_settings_page_adds_and_removes_webhooks(app, client, hooks, game, smtpd):
    link = link_in(smtpd.to(PLAYERS[0].email)[0])
    page = client.get(f"{link}/settings").get_data(as_text=True)
    assert "Chat rooms" in page and "For the whole table" in page
    response = client.post(f"{link}/webhooks", data={"url": "http://example.org/x", "kind": "auto",
                                                    "scope": "mine"})  # fmt: skip
    assert response.status_code == 400 and "https://" in response.get_data(as_text=True)
    response = client.post(f"{link}/webhooks", data={"url": hooks.url("/mine"), "kind": "generic",
                                                    "scope": "table"})  # fmt: skip
    assert response.status_code == 303
    page = client.get(f"{link}/settings").get_data(as_text=True)
    with read_session(engine_of(app)) as session:
        (hook,) = session.exec(select(Webhook)).all()
    assert hook.game_id == game and hook.secret in page
    assert client.post(f"{link}/webhooks/{hook.id}/remove").status_code == 303
    with read_session(engine_of(app)) as session:
        assert session.exec(select(func.count()).select_from(Webhook)).one() == 0
    # Léo did not create the game: no table choice, and no removing Ana's webhooks.
    leo = link_in(smtpd.to(PLAYERS[1].email)[0])
    assert "For the whole table" not in client.get(f"{leo}/settings").get_data(as_text=True)


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("http://example.org/hook", "webhook.error.https"),
        ("ftp://example.org/hook", "webhook.error.https"),
        ("https://user:pw@example.org/hook", "webhook.error.url"),
        ("https://10.0.0.5/hook", "webhook.error.private"),
        ("https://169.254.169.254/latest", "webhook.error.private"),
        ("https://[::1]/hook", "webhook.error.private"),
        ("https://localhost/hook", "webhook.error.private"),
        ("http://127.0.0.1:8080/hook", "webhook.error.https"),  # loopback only with the flag
        ("https://exa mple.org/", "webhook.error.url"),
        ("https://example.org/café", "webhook.error.url"),
        ("https://example.org?q=é", "webhook.error.url"),
        ("", "webhook.error.url"),
    ],
)
def test_urls_that_are_refused(url, key):
    with pytest.raises(WebhookError) as info:
        check_url(url, allow_loopback=False)
    assert info.value.key == key


def test_kinds_from_the_address():
    assert detect_kind("https://discord.com/api/webhooks/1/abc") == "discord"
    assert detect_kind("https://hooks.slack.com/services/T/B/x") == "slack"
    assert detect_kind("https://chat.example.org/hook") == "generic"
    assert check_url("http://127.0.0.1:8080/hook", allow_loopback=True)


def test_webhook_bodies_are_json_and_say_nothing_of_hands(app, hooks, game):
    seat = (seat_to_act(app, game) + 1) % 3
    add_hook(app, game, seat, "mine", hooks.url("/g"), "generic")
    add_hook(app, game, 0, "table", hooks.url("/t"), "generic")
    for _ in range(6):
        move(app, game)
    drain_webhooks(app)
    from pbem.games.decktet import CARDS
    from pbem.present.text import card_name

    for request in hooks.requests:
        text = json.dumps(body_of(request), ensure_ascii=False)
        for card in CARDS:
            for lang in ("en", "fr"):
                assert card_name(card, lang) not in text


def test_a_player_with_no_turn_mails_still_gets_the_webhook(app, hooks, game, smtpd):
    seat = (seat_to_act(app, game) + 1) % 3
    with write_session(engine_of(app)) as session:
        player = session.exec(select(Player).where(Player.email == PLAYERS[seat].email)).one()
        player.notify = "none"
        session.add(player)
    add_hook(app, game, seat, "mine", hooks.url("/chat"), "discord")
    smtpd.clear()
    move(app, game)
    deliver(app)
    drain_webhooks(app)
    assert not smtpd.to(PLAYERS[seat].email)  # no mail, as chosen
    (request,) = hooks.to("/chat")
    assert PLAYERS[seat].name in body_of(request)["content"]


def test_a_body_is_written_after_the_commit_and_says_what_its_moment_said(app, hooks, game, clock):
    """Issue 15: the event's transaction records facts only; the deliverer writes the body
    in the owner's language, with the time left as it was when the event happened, and
    keeps it for every retry."""
    from pbem.mailout import notify
    from pbem.present.timefmt import deadline_context

    seat_no = (seat_to_act(app, game) + 1) % 3
    add_hook(app, game, seat_no, "mine", hooks.url("/json"), "generic")
    assert move(app, game) == seat_no
    engine, site = engine_of(app), app.extensions["pbem"]["site"]
    clock.advance(hours=20)
    with write_session(engine) as session:
        seat = session.exec(select(Seat).where(Seat.game_id == game, Seat.seat == seat_no)).one()
        player = session.get(Player, seat.player_id)
        tell = notify.telling(session, site, session.get(Game, game), clock())
        notify.queue(tell, seat, "deadline_warning")
        tell.carry_out(session)
        then = deadline_context(seat.deadline, player, clock())
    rows = deliveries(app)
    assert [row.event for row in rows] == ["your_turn", "deadline_warning"]
    assert all(row.body == "" for row in rows)  # nothing rendered in the transaction
    assert all(PLAYERS[seat_no].name == row.facts["name"] for row in rows)
    hooks.answer("/json", 500, 500)  # the first attempts fail: the bodies are kept for the retry
    clock.advance(hours=30)  # delivered a day later: the time left then was another
    assert drain_webhooks(app)["failed"] == 2
    clock.advance(minutes=5)
    drain_webhooks(app)
    sent = [r for r in hooks.to("/json") if body_of(r)["event"] == "deadline_warning"]
    assert len(sent) == 2 and sent[0]["body"] == sent[1]["body"]
    text = body_of(sent[0])["text"]
    later = deadline_context(seat.deadline, player, clock())
    assert then["time_left"] != later["time_left"]
    assert then["time_left"] in text and then["deadline_text"] in text
    assert body_of(sent[0])["player"] == PLAYERS[seat_no].name
    stored = {row.event: row.body for row in deliveries(app)}
    assert stored["deadline_warning"].encode() == sent[0]["body"]


def test_settings_signed_in_add_and_remove_own_webhooks(app, client, hooks, game):
    with read_session(engine_of(app)) as session:
        ana = session.exec(select(Player).where(Player.email == PLAYERS[0].email)).one()
        ana_id = ana.id
    assert client.post("/settings/webhooks", data={"url": hooks.url("/x")}).status_code == 303
    sign_in_as(client, app, ana_id)
    page = client.get("/settings").get_data(as_text=True)
    # Her own webhooks only: a table's belong to its game's settings page.
    assert "Chat rooms" in page and "For the whole table" not in page
    table = client.post("/settings/webhooks", data={"url": hooks.url("/t"), "scope": "table"})
    assert table.status_code == 400
    added = client.post("/settings/webhooks", data={"url": hooks.url("/mine"), "kind": "slack"})
    assert added.status_code == 303 and added.headers["Location"].endswith(
        "/settings?saved=1#webhooks"
    )
    with read_session(engine_of(app)) as session:
        (hook,) = session.exec(select(Webhook)).all()
    assert (hook.player_id, hook.game_id, hook.kind) == (ana_id, None, "slack")
    assert "/settings/webhooks/" in client.get("/settings").get_data(as_text=True)
    assert client.post(f"/settings/webhooks/{hook.id}/remove").status_code == 303
    with read_session(engine_of(app)) as session:
        assert session.exec(select(func.count()).select_from(Webhook)).one() == 0
