"""/metrics: an unknown page unless asked with the token; then the counters say what was done.

The counters are the process's (every test app of a run shares them), so each test reads
them before and after what it does.
"""

from __future__ import annotations

from typing import Any

import pytest

from pbem import create_app
from pbem.clock.scheduler import computer_moves
from pbem.config import ConfigError, settings_of
from pbem.counters import metrics
from pbem.mailin.receive import Arrival, receive
from pbem.storage.db import read_session, write_session
from tests.app import make_test_app
from tests.clock.helpers import moves, new_game, run_sweep
from tests.settings import app_settings
from tests.watch.helpers import BEARER, TOKEN, scrape
from tests.web.helpers import api, deliver, play_turn, post_move

ANA, LEO = ("Ana", "ana@example.org"), ("Léo", "leo@example.org")


def unknown_page(client: Any, answer: Any, method: str = "get") -> bool:
    """Whether `answer` to /metrics is what any unknown page gets: a 404, the same page (but
    for the address in its language links)."""
    other = getattr(client, method)("/no-such-page", **({"raw": True} if method == "post" else {}))
    same = answer.data.replace(b"/metrics", b"/no-such-page") == other.data
    return answer.status_code == other.status_code == 404 and same


def test_without_the_setting_metrics_is_an_unknown_page(
    database_url: str, clock: Any, smtpd: Any, tmp_path: Any
) -> None:
    app = make_test_app(database_url, clock, smtpd, tmp_path)  # PBEM_METRICS_TOKEN unset
    client = app.test_client()
    assert unknown_page(client, client.get("/metrics"))
    assert unknown_page(client, client.get("/metrics", headers=BEARER))
    assert unknown_page(client, client.post("/metrics", raw=True), "post")
    app.extensions["pbem"]["engine"].dispose()


@pytest.mark.parametrize(
    "authorization",
    [None, "", f"Bearer {TOKEN}x", f"Bearer {TOKEN[:-1]}", f"bearer {TOKEN}", TOKEN, "Bearer "],
)
def test_a_wrong_token_gets_an_unknown_page(
    client: Any, app: Any, authorization: str | None
) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    assert unknown_page(client, client.get("/metrics", headers=headers))
    # Any other method, even with the token, is an unknown page too: there is no route.
    assert unknown_page(client, client.post("/metrics", headers=BEARER, raw=True), "post")
    for method in ("put", "delete", "options"):
        assert getattr(client, method)("/metrics", headers=BEARER).status_code == 404, method


def test_the_right_token_gets_the_prometheus_text(client: Any, app: Any, smtpd: Any) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO])
    answer = client.get("/metrics", headers=BEARER)
    assert answer.status_code == 200
    assert answer.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    assert answer.headers["Cache-Control"] == "no-store"
    text = answer.get_data(as_text=True)
    series = scrape(client)
    assert series.value("pbem_games_active", game="colour-bazaar") == 1
    assert series.value("pbem_database_up") == 1
    # No address, link token or game id in any label.
    for secret in (ANA[1], LEO[1], *(link.rsplit("/", 1)[1] for link in links.values())):
        assert secret not in text
    labels = {key for name, have, _ in series.samples for key in have}
    assert labels <= {"process", "host", "source", "outcome", "verdict", "reason", "game",
                      "level", "job", "kind", "le"}  # fmt: skip


def test_the_counters_say_what_was_done(client: Any, app: Any, smtpd: Any, clock: Any) -> None:
    """A timeout, a move on the page, a computer's move, a move through the API, mail sent."""
    before, mailed = scrape(client), len(smtpd.messages)
    links = new_game(
        client,
        app,
        smtpd,
        [ANA, LEO],
        **{"opt_colour-bazaar_first": "0", "absent_after": "1", "takeover": "casual"},
    )
    leo = links[LEO[1]]
    clock.advance(days=3, seconds=1)
    assert run_sweep(app)["timeouts"] == 1  # Ana is marked absent: a computer takes her seat
    play_turn(client, leo)
    clock.advance(seconds=4)
    assert computer_moves(app) == 1
    view = client.get(api(leo)).get_json()
    move = {"turn": view["turn"], "move": view["legal_moves"][0]}
    assert post_move(client, leo, move).status_code == 200
    assert post_move(client, leo, move).status_code == 409  # a twin: stale, written nowhere
    deliver(app)
    after = scrape(client)
    assert [m.source for m in moves(app)] == ["timeout", "web", "computer", "web"]

    def more(name: str, **labels: str) -> float:
        return after.value(name, **labels) - before.value(name, **labels)

    for source, count in {"timeout": 1, "page": 1, "computer": 1, "api": 1, "mail": 0}.items():
        assert more("pbem_moves_total", source=source) == count, source
    assert more("pbem_mails_sent_total") == len(smtpd.messages) - mailed > 0
    assert more("pbem_mails_retried_total") == more("pbem_mails_failed_total") == 0
    assert more("pbem_mails_bounced_total") == 0
    decided = {"game": "colour-bazaar", "level": "casual"}
    assert more("pbem_computer_decision_seconds_count", **decided) == 1
    assert more("pbem_computer_decision_seconds_bucket", le="+Inf", **decided) == 1
    assert after.labels_of("pbem_moves_total")[0]["process"] == "web"


def test_a_down_smtp_server_counts_retries(client: Any, app: Any, smtpd: Any, clock: Any) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO], **{"opt_colour-bazaar_first": "0"})
    before = scrape(client)
    port, settings_of(app).smtp_port = settings_of(app).smtp_port, 1  # nothing listens on port 1
    play_turn(client, links[ANA[1]])
    deliver(app)
    down = scrape(client)
    assert down.value("pbem_mails_retried_total") == before.value("pbem_mails_retried_total") + 1
    assert down.value("pbem_mails_sent_total") == before.value("pbem_mails_sent_total")
    assert down.value("pbem_outbox_due_mails") == 0  # waiting out its retry: not due
    settings_of(app).smtp_port = port
    clock.advance(seconds=31)
    assert scrape(client).value("pbem_outbox_due_mails") == 1
    deliver(app)
    back = scrape(client)
    assert back.value("pbem_mails_sent_total") == before.value("pbem_mails_sent_total") + 1
    assert back.value("pbem_mails_failed_total") == before.value("pbem_mails_failed_total")


def test_an_inbound_verdict_is_counted(
    database_url: str, clock: Any, smtpd: Any, tmp_path: Any
) -> None:
    app = make_test_app(
        database_url, clock, smtpd, tmp_path, METRICS_TOKEN=TOKEN, REPLY_DOMAIN="in.pbem.test"
    )
    client = app.test_client()
    before = scrape(client)
    ext = app.extensions["pbem"]
    mail = Arrival("nobody@in.pbem.test", b"Subject: hi\r\n\r\nhello\r\n", clock(), 65536,
                   envelope_from="x@example.org")  # fmt: skip
    verdict = receive(ext["engine"], ext["site"], mail)
    assert verdict.status == "rejected" and verdict.reason == "not_reply_address"
    after = scrape(client)
    labels = {"verdict": "rejected", "reason": "not_reply_address"}
    assert after.value("pbem_inbound_mails_total", **labels) == (
        before.value("pbem_inbound_mails_total", **labels) + 1
    )
    ext["engine"].dispose()


def test_a_move_counts_once_its_transaction_commits(app: Any) -> None:
    """Counted at the commit of the outermost transaction: never for one rolled back, nor
    for a savepoint rolled back inside one that commits."""
    engine = app.extensions["pbem"]["engine"]
    counted = metrics.MOVES.labels("api")
    start = counted._value.get()
    with pytest.raises(RuntimeError), write_session(engine) as session:
        metrics.moves_written(session, ["web"], "api")
        assert counted._value.get() == start  # not before the commit
        raise RuntimeError("rolled back")
    assert counted._value.get() == start
    with write_session(engine) as session:
        with pytest.raises(RuntimeError), session.begin_nested():
            metrics.moves_written(session, ["web"], "api")
            raise RuntimeError("savepoint rolled back")
        with session.begin_nested():
            metrics.moves_written(session, ["web", "ahead"], "api")
        assert counted._value.get() == start  # a savepoint released is not a commit
    assert counted._value.get() == start + 1
    with read_session(engine) as session:
        session.commit()  # a session with nothing noted counts nothing
    assert counted._value.get() == start + 1


@pytest.mark.parametrize(
    "setting, message",
    [
        ({"METRICS_TOKEN": "short"}, "PBEM_METRICS_TOKEN must be at least 16 characters"),
        ({"READY_MAIL_AGE": 0.0}, "PBEM_READY_MAIL_AGE must be a number of seconds above 0"),
    ],
)
def test_bad_settings_stop_the_start(tmp_path: Any, setting: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        create_app(app_settings("sqlite://", tmp_path, **setting))
