"""Game reviews worked out by the computer workers (pbem.clock.reviews): each review claimed
by one worker and worked out once, its mail queued once; a worker that died leaves it to
another once its lease is past, and a late result from it lands nowhere; never a review
of a game that is not over. Each worker is an app with its own engine."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import select

from pbem.clock import reviews as clock_reviews
from pbem.clock.scheduler import computer_moves
from pbem.models import Game, GameReview, Outbox
from pbem.storage import reviews
from pbem.storage.db import read_session, write_session
from tests.app import make_test_app
from tests.clock.helpers import race_computer_jobs
from tests.web.helpers import ANA, LEO, ZOE, deliver, new_game, play_out, state_of

FEW = 8  # simulations per decision: the plumbing is tested here, not the play


@pytest.fixture
def app(database_url: str, clock: Any, smtpd: Any, tmp_path: Any) -> Any:
    """A worker (and the web pages): its reviews worked out with few simulations."""
    app = make_test_app(database_url, clock, smtpd, tmp_path, REVIEW_SIMULATIONS=FEW)
    yield app
    app.extensions["pbem"]["engine"].dispose()


@pytest.fixture
def second(database_url: str, clock: Any, smtpd: Any, tmp_path: Any) -> Any:
    """A second worker: another app with its own engine on the same database."""
    worker = make_test_app(database_url, clock, smtpd, tmp_path / "second", REVIEW_SIMULATIONS=FEW)
    yield worker
    worker.extensions["pbem"]["engine"].dispose()


@pytest.fixture
def worked(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[int, int]]:
    """Every review worked out, by (players, seat)."""
    made: Counter[tuple[int, int]] = Counter()
    lock = threading.Lock()
    review_seat = clock_reviews.review_seat

    def counted(rules: Any, setup: Any, log: Any, seat: int, simulations: Any) -> Any:
        with lock:
            made[(setup.seed, seat)] += 1
        return review_seat(rules, setup, log, seat, simulations)

    monkeypatch.setattr(clock_reviews, "review_seat", counted)
    return made


def _finished_and_asked(client: Any, app: Any, smtpd: Any) -> list[str]:
    """A three-player game played out, each seat asking for its review by mail."""
    links = new_game(client, app, smtpd, [ANA, LEO, ZOE])
    play_out(app)
    assert state_of(app).status == "over"
    deliver(app)
    for link in links.values():
        assert client.post(f"{link}/review", data={"mail": "1"}).status_code == 303
    return list(links.values())


def review_mails(smtpd: Any) -> list[Any]:
    return [m for m in smtpd.messages if "review" in str(m["Subject"]).lower()]


def test_two_workers_work_each_review_out_once_and_mail_it_once(
    client: Any, app: Any, second: Any, smtpd: Any, worked: Counter[Any]
) -> None:
    _finished_and_asked(client, app, smtpd)
    for _ in range(4):
        race_computer_jobs([app, second])  # one review a run each: three reviews, two workers
    assert race_computer_jobs([app, second]) == [0, 0]
    assert len(worked) == 3 and set(worked.values()) == {1}
    deliver(app)
    mails = review_mails(smtpd)
    assert sorted(str(m["To"]).split("<")[1][:-1] for m in mails) == sorted(
        e for _, e in (ANA, LEO, ZOE)
    )
    assert len({str(m["Message-ID"]) for m in mails}) == 3
    with read_session(app.extensions["pbem"]["engine"]) as session:
        rows = session.exec(select(GameReview)).all()
        assert all(r.done_at and r.mailed_at and r.claimed_until is None for r in rows)
        assert len(session.exec(select(Outbox).where(Outbox.event == "review")).all()) == 3


def test_a_dead_workers_review_is_taken_once_its_lease_is_past(
    client: Any, app: Any, second: Any, clock: Any, smtpd: Any, worked: Counter[Any]
) -> None:
    _finished_and_asked(client, app, smtpd)
    engine = app.extensions["pbem"]["engine"]
    lease = timedelta(minutes=10)
    # A worker claims every review, then stalls (or dies) before writing any.
    claimed = reviews.claim(engine, clock(), 3, lease)
    assert len(claimed) == 3
    assert reviews.claim(engine, clock(), 3, lease) == []  # held: claiming again takes none
    assert computer_moves(second) == 0
    clock.advance(seconds=lease.total_seconds() + 1)
    for _ in range(3):
        assert computer_moves(second) == 2  # a review and its mail
    assert computer_moves(second) == 0
    assert set(worked.values()) == {1} and len(worked) == 3
    # The stalled worker's late results land nowhere, and mail nothing.
    with write_session(engine) as session:
        assert not [c for c in claimed if reviews.write_result(session, c, {"late": 1}, clock())]
    deliver(app)
    assert len(review_mails(smtpd)) == 3
    with read_session(engine) as session:
        assert all("late" not in (r.result or {}) for r in session.exec(select(GameReview)))


def test_a_sweep_run_twice_changes_nothing_the_second_time(
    client: Any, app: Any, smtpd: Any, worked: Counter[Any]
) -> None:
    _finished_and_asked(client, app, smtpd)
    ext = app.extensions["pbem"]
    sweep = clock_reviews.sweep_reviews
    made = [sweep(ext["engine"], ext["site"], app.config["CLOCK"](), FEW) for _ in range(5)]
    assert made == [2, 2, 2, 0, 0]
    assert set(worked.values()) == {1}


def test_no_review_is_worked_out_before_the_game_ends(
    client: Any, app: Any, smtpd: Any, clock: Any, worked: Counter[Any]
) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO])
    play_out(app, stop_before=4)
    engine = app.extensions["pbem"]["engine"]
    # Asking is refused; and a row put there all the same is left alone by the workers.
    with write_session(engine) as session:
        assert reviews.ask(session, 1, 0, True, clock()) == reviews.NOT_OVER
        session.add(GameReview(game_id=1, seat=0, asked_at=clock(), mail=True))
    assert computer_moves(app) == 0
    assert not worked
    with read_session(engine) as session:
        (row,) = session.exec(select(GameReview)).all()
        assert row.result is None and row.done_at is None and row.mailed_at is None
        assert session.get(Game, 1).status == "active"
    assert links
