"""Heartbeats: each long-running process writes its own row, carrying its counters; another
process's /metrics adds them, labelled with the process, and never counts a series twice."""

from __future__ import annotations

import threading
import time
from typing import Any

from sqlmodel import col, select

from pbem.clock.workers import run_computers
from pbem.models import Heartbeat
from pbem.storage.db import read_session, write_session
from pbem.watch import beats
from tests.app import make_test_app
from tests.watch.helpers import TOKEN, clock_beat, new_game, scrape
from tests.web.helpers import counts, deliver


def rows(app: Any) -> list[Heartbeat]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return list(session.exec(select(Heartbeat).order_by(col(Heartbeat.started_at))))


def other_app(database_url: str, clock: Any, smtpd: Any, tmp_path: Any) -> Any:
    """A second process on the same database (here, a second app in this one)."""
    return make_test_app(database_url, clock, smtpd, tmp_path / "other", METRICS_TOKEN=TOKEN)


def test_a_clocks_series_show_in_a_web_process_metrics(
    client: Any, app: Any, smtpd: Any, clock: Any, database_url: str, tmp_path: Any
) -> None:
    clock_app = other_app(database_url, clock, smtpd, tmp_path)
    new_game(client)
    deliver(clock_app)  # the clock sends the invitations...
    assert clock_beat(clock_app)  # ...and publishes its counters with its beat
    (row,) = rows(app)
    assert row.kind == "clock" and row.host == beats.HOST and row.samples
    sent = {s[0]: s[2] for s in row.samples["pbem_mails_sent"]["samples"]}["pbem_mails_sent_total"]
    # The web process shows the clock's series beside its own, each labelled with its process.
    web = scrape(client)
    assert web.value("pbem_mails_sent_total", process="clock", host=beats.HOST) == sent >= 3
    assert {labels["process"] for labels in web.labels_of("pbem_mails_sent_total")} == {
        "web",
        "clock",
    }
    assert web.value("pbem_processes_beating", process="clock") == 1
    assert web.value("pbem_clock_beat_age_seconds") == 0
    # The clock's own /metrics counts its series once: from memory, not again from its row.
    own = scrape(clock_app.test_client())
    assert own.labels_of("pbem_mails_sent_total") == [{"process": "clock", "host": beats.HOST}]
    clock_app.extensions["pbem"]["engine"].dispose()


def test_each_process_writes_its_own_row_and_the_clock_drops_silent_ones(
    app: Any, clock: Any, smtpd: Any, database_url: str, tmp_path: Any
) -> None:
    engine = app.extensions["pbem"]["engine"]
    worker = beats.Beats(engine, "computers", clock, 30.0)
    listener = beats.Beats(engine, "inbound", clock, 30.0)
    assert worker.beat() and listener.beat() and worker.id != listener.id
    clock.advance(hours=23)
    assert listener.beat()  # the worker falls silent
    assert clock_beat(app)
    assert sorted(row.kind for row in rows(app)) == ["clock", "computers", "inbound"]
    clock.advance(hours=1, seconds=1)
    assert clock_beat(app)  # the worker has been silent for a day: its row goes
    assert sorted(row.kind for row in rows(app)) == ["clock", "inbound"]
    # A process silent so long that its row went writes it again when it is back.
    assert worker.beat() and len(rows(app)) == 3
    # Beating again updates a row, never adds one.
    assert worker.beat() and listener.beat() and clock_beat(app) and len(rows(app)) == 3


def test_a_restarted_process_is_not_added_to_its_predecessor(
    client: Any, app: Any, clock: Any
) -> None:
    engine = app.extensions["pbem"]["engine"]
    first = beats.Beats(engine, "inbound", clock, 30.0)
    assert first.beat()
    clock.advance(seconds=10)
    second = beats.Beats(engine, "inbound", clock, 30.0)  # the same host, after a restart
    assert second.beat()
    with write_session(engine) as session:  # the two as if each had counted its own mail
        for beat, sent in ((first, 5.0), (second, 2.0)):
            row = session.get(Heartbeat, beat.id)
            assert row is not None
            row.samples = {
                "pbem_mails_sent": {
                    "type": "counter",
                    "help": "Mails the SMTP server accepted.",
                    "samples": [["pbem_mails_sent_total", {}, sent]],
                }
            }
            session.add(row)
    series = scrape(client)
    assert series.value("pbem_mails_sent_total", process="inbound") == 2
    assert series.value("pbem_processes_beating", process="inbound") == 1
    # Two listeners running side by side on one host are added up.
    clock.advance(seconds=10)
    assert first.beat()
    assert scrape(client).value("pbem_processes_beating", process="inbound") == 2
    # A row that has not beaten for ten intervals is left out.
    clock.advance(seconds=301)
    assert scrape(client).value("pbem_processes_beating", process="inbound") == 0


def test_a_computer_worker_beats_from_its_loop(app: Any, clock: Any) -> None:
    stop = threading.Event()
    worker = threading.Thread(target=run_computers, args=(app, stop))
    worker.start()
    try:
        for _ in range(200):
            if rows(app):
                break
            time.sleep(0.05)
    finally:
        stop.set()
        worker.join(10)
    (row,) = rows(app)
    assert row.kind == "computers" and row.samples and "pbem_moves" in row.samples


def test_the_inbound_listener_beats_while_it_listens(app: Any, clock: Any) -> None:
    with beats.beating(app, "inbound") as beat:
        for _ in range(200):
            if rows(app):
                break
            time.sleep(0.05)
    (row,) = rows(app)
    assert row.kind == "inbound" and row.id == beat.id and row.pid == beat.pid
    assert row.beat_at == clock() and row.started_at == clock()
    assert counts(app) == (0, 0)  # a beat writes nothing else


def test_a_process_counting_into_the_web_folder_publishes_nothing(
    app: Any, clock: Any, monkeypatch: Any, tmp_path: Any, caplog: Any
) -> None:
    """PROMETHEUS_MULTIPROC_DIR set for a clock too: the web workers of its host read its
    files already, so its row carries no series (they would count twice), and it says so."""
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path / "prometheus"))
    heart = beats.Beats(app.extensions["pbem"]["engine"], "clock", clock, 30.0)
    assert heart.beat() and heart.beat()
    (row,) = rows(app)
    assert row.samples is None
    warned = [r for r in caplog.records if "PROMETHEUS_MULTIPROC_DIR is set" in r.getMessage()]
    assert len(warned) == 1  # once, not at every beat
