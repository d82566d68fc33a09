"""The clock's sweep scores each report once against its address: soft 1, hard or refused 2, at
most once a UTC day, back to 0 after 30 quiet days; at PBEM_BOUNCE_THRESHOLD the address turns
bouncing, at a complaint complained, and the table is told once."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest

from pbem.config import ConfigError, load_settings
from pbem.mailfix import tell
from pbem.mailfix.score import sweep_bounces
from pbem.models import MailAddress
from pbem.storage.db import make_engine
from tests.bounces.helpers import add_report, address_row, reports, score_all
from tests.clock.helpers import run_sweep

BEA = "bea@example.org"


@pytest.fixture
def told(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Each time the table is told an address turned (its address and new state)."""
    calls: list[tuple[str, str]] = []
    real = tell.told_bouncing

    def spy(session: Any, site: Any, row: MailAddress, now: Any) -> None:
        calls.append((row.address, row.state))
        real(session, site, row, now)

    monkeypatch.setattr(tell, "told_bouncing", spy)
    return calls


def state(app: Any, address: str = BEA) -> tuple[str, int]:
    row = address_row(app, address)
    assert row is not None
    return row.state, row.score


def test_a_flood_of_bounces_on_one_day_scores_once(app: Any, clock: Any, told: list[Any]) -> None:
    for minute in range(30):
        add_report(app, BEA, "hard", clock.now + timedelta(minutes=minute), "5.1.1", "no such")
    clock.advance(hours=1)
    assert score_all(app) == 30
    assert state(app) == ("ok", 2)
    assert all(report.scored_at == clock.now for report in reports(app))
    assert score_all(app) == 0  # scored once each
    assert told == []


def test_a_hard_bounce_after_a_soft_one_the_same_day_counts_as_hard(
    app: Any, clock: Any, told: list[Any]
) -> None:
    add_report(app, BEA, "soft", clock.now, "4.2.2", "full")
    score_all(app)
    assert state(app) == ("ok", 1)
    add_report(app, BEA, "hard", clock.now + timedelta(hours=1), "5.1.1", "no such user")
    add_report(app, BEA, "soft", clock.now + timedelta(hours=2), "4.2.2", "full")
    score_all(app)
    assert state(app) == ("ok", 2)  # the day's worst: 2, not 1 + 2 + 1


def test_soft_soft_hard_over_days_turns_an_address_bouncing(
    app: Any, clock: Any, told: list[Any]
) -> None:
    start = clock.now
    for day, kind in enumerate(["soft", "soft", "hard"]):
        clock.now = start + timedelta(days=day)
        add_report(app, BEA, kind, clock.now, "5.2.2" if kind == "hard" else "4.2.2", "full")
        score_all(app)
    row = address_row(app, BEA)
    assert row is not None
    assert (row.state, row.score, row.since) == ("bouncing", 4, clock.now)
    assert (row.last_kind, row.last_reason, row.last_bounce_at) == ("hard", "5.2.2 full", clock.now)
    assert told == [(BEA, "bouncing")]
    clock.advance(days=1)
    add_report(app, BEA, "hard", clock.now)
    score_all(app)
    assert state(app) == ("bouncing", 6) and told == [(BEA, "bouncing")]  # told once


def test_a_refusal_counts_as_a_hard_bounce_and_the_threshold_is_a_setting(
    app: Any, clock: Any, told: list[Any]
) -> None:
    add_report(app, BEA, "refused", clock.now, "5.1.1", "550 5.1.1 User unknown")
    assert score_all(app, threshold=2) == 1
    assert state(app) == ("bouncing", 2) and told == [(BEA, "bouncing")]


def test_thirty_quiet_days_start_the_score_again(app: Any, clock: Any, told: list[Any]) -> None:
    add_report(app, BEA, "hard", clock.now)
    score_all(app)
    clock.advance(days=29)  # within 30 days of the last: it adds up
    add_report(app, BEA, "soft", clock.now)
    score_all(app)
    assert state(app) == ("ok", 3)
    clock.advance(days=30, seconds=1)  # 30 days without a report: from 0 again
    add_report(app, BEA, "soft", clock.now)
    score_all(app)
    assert state(app) == ("ok", 1) and told == []


def test_a_complaint_turns_an_address_complained_at_once(
    app: Any, clock: Any, told: list[Any]
) -> None:
    add_report(app, BEA, "complaint", clock.now, "", "abuse")
    add_report(app, BEA, "hard", clock.now)
    run_sweep(app)  # the clock's sweep scores them
    row = address_row(app, BEA)
    assert row is not None and (row.state, row.since) == ("complained", clock.now)
    assert told == [(BEA, "complained")]
    assert row.score == 2  # still scored: a complaint stays a complaint


def test_each_address_is_scored_on_its_own(app: Any, clock: Any, told: list[Any]) -> None:
    add_report(app, BEA, "hard", clock.now)
    add_report(app, "Zoe@Example.org ", "soft", clock.now)  # kept as written lower-cased
    assert run_sweep(app)["bounces"] == 2
    assert state(app) == ("ok", 2) and state(app, "zoe@example.org") == ("ok", 1)


def test_two_sweeps_at_once_score_each_report_once(
    app: Any, clock: Any, database_url: str, told: list[Any]
) -> None:
    """Two clocks (two engines, two threads) at the same reports: on PostgreSQL each takes the
    reports the other has not locked; together they score every one once."""
    addresses = [f"player{n}@example.org" for n in range(8)]
    start = clock.now
    for day in range(3):
        for address in addresses:
            for copy in range(2):  # two reports a day: the second adds nothing
                kind = "hard" if copy == 0 else "soft"
                add_report(app, address, kind, start + timedelta(days=day, minutes=copy))
    clock.advance(days=3)
    site, now = app.extensions["pbem"]["site"], clock.now
    engines = [make_engine(database_url) for _ in range(2)]
    scored: list[int] = []
    barrier = threading.Barrier(2)

    def run(engine: Any) -> None:
        barrier.wait()
        scored.append(sweep_bounces(engine, site, now, 4, 5000))

    threads = [threading.Thread(target=run, args=(engine,)) for engine in engines]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    finally:
        for engine in engines:
            engine.dispose()
    assert sum(scored) == len(addresses) * 6 and len(scored) == 2
    assert all(report.scored_at == now for report in reports(app))
    for address in addresses:
        assert state(app, address) == ("bouncing", 6)  # 2 a day, for 3 days
    assert sorted(told) == sorted((address, "bouncing") for address in addresses)


@pytest.mark.parametrize("value", [0, -1, 2.5, "four"])
def test_the_threshold_must_be_a_whole_number_of_at_least_one(value: Any) -> None:
    with pytest.raises(ConfigError, match="PBEM_BOUNCE_THRESHOLD"):
        load_settings({"DEBUG": True, "BOUNCE_THRESHOLD": value})


def test_the_threshold_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PBEM_BOUNCE_THRESHOLD", "2")
    assert load_settings({"DEBUG": True}).bounce_threshold == 2
