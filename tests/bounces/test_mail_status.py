"""`pbem mail-status`: the operator's list of the addresses whose mail bounces or that complained
(with --all, also those with a score), one line each."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from pbem.models import Game, MailAddress
from pbem.storage.db import write_session
from tests.bounces.helpers import engine_of
from tests.clock.helpers import new_game

ANA, LEO, ZOE = ("Ana", "ana@example.org"), ("Léo", "leo@example.org"), ("Zoé", "zoe@example.org")


def mark(app: Any, address: str, state: str, score: int, when: Any, kind: str, why: str) -> None:
    with write_session(engine_of(app)) as session:
        session.add(
            MailAddress(
                address=address,
                state=state,
                score=score,
                since=when if state != "ok" else None,
                last_bounce_at=when,
                last_kind=kind,
                last_reason=why,
                updated_at=when,
            )
        )


def test_it_lists_the_addresses_that_bounce_with_their_seats_in_active_games(
    client: Any, app: Any, smtpd: Any, clock: Any, runner: Any
) -> None:
    new_game(client, app, smtpd, [ANA, LEO])
    new_game(client, app, smtpd, [LEO, ZOE])
    over = new_game(client, app, smtpd, [LEO, ANA])
    assert over
    with write_session(engine_of(app)) as session:
        game = session.get(Game, 3)
        assert game is not None
        game.status = "over"  # a game over holds nobody up
        session.add(game)
    now = clock.now
    mark(app, LEO[1], "bouncing", 4, now, "hard", "5.1.1 unknown user")
    mark(app, ZOE[1], "complained", 0, now - timedelta(days=1), "complaint", "abuse")
    mark(app, ANA[1], "ok", 1, now - timedelta(days=2), "soft", "4.2.2 mailbox full")
    mark(app, "gone@example.org", "ok", 0, now - timedelta(days=40), "soft", "")

    listed = runner.invoke(args=["mail-status"])

    assert listed.exit_code == 0, listed.output
    assert listed.output.splitlines() == [
        "leo@example.org\tbouncing\tscore 4\tsince 2026-03-02 09:00\t"
        "last 2026-03-02 09:00 hard\t2 active seats\t5.1.1 unknown user",
        "zoe@example.org\tcomplained\tscore 0\tsince 2026-03-01 09:00\t"
        "last 2026-03-01 09:00 complaint\t1 active seat\tabuse",
    ]
    everything = runner.invoke(args=["mail-status", "--all"]).output.splitlines()
    assert everything[:2] == listed.output.splitlines()
    assert everything[2:] == [
        "ana@example.org\tok\tscore 1\tsince -\tlast 2026-02-28 09:00 soft\t"
        "1 active seat\t4.2.2 mailbox full"
    ]


def test_it_says_nothing_when_no_address_bounces(app: Any, runner: Any) -> None:
    listed = runner.invoke(args=["mail-status"])
    assert listed.exit_code == 0 and listed.output == ""
