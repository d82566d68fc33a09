"""A player's review of a finished game on the web (pbem.web.review): asked by a plain form
from the seat's page or its replay, worked out by the computer workers, shown under the
seat's own link only; refused before the end, and every bad request answered with a 4xx."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from sqlmodel import select

from pbem.clock.scheduler import computer_moves
from pbem.models import GameReview, Outbox
from pbem.storage.db import read_session
from tests.app import make_test_app
from tests.web.helpers import (
    ANA,
    LEO,
    deliver,
    form_with,
    hidden,
    html_of,
    link_in,
    new_game,
    play_out,
    state_of,
    text_of,
)

FEW = 8  # simulations per decision (PBEM_REVIEW_SIMULATIONS): the tests check the plumbing


@pytest.fixture
def app(database_url: str, clock: Any, smtpd: Any, tmp_path: Any) -> Any:
    """The test app, its reviews worked out with few simulations."""
    app = make_test_app(database_url, clock, smtpd, tmp_path, REVIEW_SIMULATIONS=FEW)
    yield app
    app.extensions["pbem"]["engine"].dispose()


def finished(client: Any, app: Any, smtpd: Any) -> tuple[str, str]:
    """A two-player Colour Bazaar game played to its end: Ana's and Léo's links."""
    links = new_game(client, app, smtpd, [ANA, LEO])
    play_out(app)
    assert state_of(app).status == "over"
    deliver(app)
    return links[ANA[1]], links[LEO[1]]


def rows(app: Any) -> list[GameReview]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return list(session.exec(select(GameReview)).all())


def test_the_review_is_refused_before_the_game_ends(client: Any, app: Any, smtpd: Any) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO])
    play_out(app, stop_before=6)
    ana = links[ANA[1]]
    assert "Review my game" not in client.get(ana).get_data(as_text=True)
    asked = client.post(f"{ana}/review", data={"mail": "1"})
    assert asked.status_code == 409
    assert "once it is over" in asked.get_data(as_text=True)
    page = client.get(f"{ana}/review")
    assert page.status_code == 409 and "once it is over" in page.get_data(as_text=True)
    assert rows(app) == []  # nothing asked, nothing to work out
    assert computer_moves(app) == 0


def test_ask_from_the_game_page_then_see_the_three_moments_with_their_links(
    client: Any, app: Any, smtpd: Any
) -> None:
    ana, _ = finished(client, app, smtpd)
    page = client.get(ana).get_data(as_text=True)
    form = form_with(page, "/review")  # on the game-over page: one tap away
    asked = client.post(f"{ana}/review", data=hidden(form))
    assert asked.status_code == 303 and asked.headers["Location"].endswith("/review")
    waiting = client.get(f"{ana}/review")
    assert waiting.status_code == 200 and waiting.headers["Refresh"]
    assert waiting.mimetype == "text/html"
    assert "being worked out" in waiting.get_data(as_text=True)
    # The seat's page now links to the review instead of asking again.
    assert "See my review" in client.get(ana).get_data(as_text=True)
    assert computer_moves(app) == 1
    done = client.get(f"{ana}/review")
    assert done.status_code == 200 and "Refresh" not in done.headers
    html = unescape(done.get_data(as_text=True))
    (row,) = rows(app)
    result = row.result
    assert result is not None and row.done_at is not None and row.seat == 0
    assert result["simulations"] == FEW and result["decisions"]
    worst = result["costliest"]
    assert 1 <= len(worst) <= 3
    moments = html.split('class="moments"', 1)[1].split("</ol>", 1)[0]
    for ply in worst:
        # Each moment: its move number, and the board as Ana saw it then, a tap away.
        assert f"Move {ply + 1}</strong>" in moments
        assert f"/replay?ply={ply}" in moments
    assert "The strong level advises:" in moments and "chance to win" in moments
    listed = html.split('class="decisions"', 1)[1].split("</ol>", 1)[0]
    assert listed.count("<li ") == len(result["decisions"])
    # The replay at a moment shows Ana's table then, with the way back to the review.
    replay = client.get(f"{ana}/replay?ply={worst[0]}")
    assert replay.status_code == 200 and "See my review" in replay.get_data(as_text=True)
    assert "Your hand" in replay.get_data(as_text=True)
    # Worked out once: the workers have nothing more to do, and no mail was asked.
    assert computer_moves(app) == 0
    deliver(app)
    assert not [m for m in smtpd.to(ANA[1]) if "review" in str(m["Subject"]).lower()]


def test_ask_from_the_replay_and_by_mail_once(client: Any, app: Any, smtpd: Any) -> None:
    _, leo = finished(client, app, smtpd)
    replay = client.get(f"{leo}/replay").get_data(as_text=True)
    form = form_with(replay, "/review")
    assert client.post(f"{leo}/review", data={**hidden(form), "mail": "1"}).status_code == 303
    computer_moves(app)
    computer_moves(app)
    deliver(app)
    mails = [m for m in smtpd.to(LEO[1]) if "review" in str(m["Subject"]).lower()]
    assert len(mails) == 1
    (mail,) = mails
    text, html = text_of(mail), html_of(mail)
    assert "Your review of" in str(mail["Subject"])
    (row,) = rows(app)
    assert row.result is not None
    for ply in row.result["costliest"]:
        assert f"/replay?ply={ply}" in text and f"/replay?ply={ply}" in html
    assert f"{link_in(mail)}" == leo  # its links are Léo's own
    assert f"{leo}/review" in text
    # Asking again shows it, says so, and mails nothing more.
    again = client.post(f"{leo}/review", data={"mail": "1"})
    assert again.status_code == 409 and "asked for this review already" in again.get_data(
        as_text=True
    )
    computer_moves(app)
    deliver(app)
    assert len([m for m in smtpd.to(LEO[1]) if "review" in str(m["Subject"]).lower()]) == 1


def test_a_mail_asked_after_the_review_is_done_goes_once(client: Any, app: Any, smtpd: Any) -> None:
    ana, _ = finished(client, app, smtpd)
    assert client.post(f"{ana}/review").status_code == 303
    computer_moves(app)
    added = client.post(f"{ana}/review", data={"mail": "1"})
    assert added.status_code == 303  # the mail is the new part of this ask
    assert computer_moves(app) == 1 and computer_moves(app) == 0
    deliver(app)
    assert len([m for m in smtpd.to(ANA[1]) if "review" in str(m["Subject"]).lower()]) == 1


def test_only_the_seat_sees_its_review(client: Any, app: Any, smtpd: Any) -> None:
    ana, leo = finished(client, app, smtpd)
    client.post(f"{ana}/review")
    computer_moves(app)
    mine = client.get(f"{ana}/review").get_data(as_text=True)
    assert "All your decisions" in mine
    # Léo's link shows Léo's own (not asked), never Ana's; a spectator link has no review.
    theirs = client.get(f"{leo}/review")
    assert theirs.status_code == 200 and "All your decisions" not in theirs.get_data(as_text=True)
    assert "Review my game" in theirs.get_data(as_text=True)
    watch = re.search(r"http://pbem\.test(/w/[^\"<\s]+)", client.get(ana).get_data(as_text=True))
    assert watch is not None
    assert client.get(f"{watch.group(1)}/review").status_code == 404
    assert client.post(f"{watch.group(1)}/review").status_code in (403, 404)


@pytest.mark.parametrize(
    ("method", "path", "codes"),
    [
        ("get", "/p/not-a-token/review", (404,)),
        ("post", "/p/not-a-token/review", (400, 403, 404)),
        ("put", "{ana}/review", (405,)),
        ("delete", "{ana}/review", (405,)),
    ],
)
def test_bad_requests_get_a_clear_4xx(
    client: Any, app: Any, smtpd: Any, method: str, path: str, codes: tuple[int, ...]
) -> None:
    ana, _ = finished(client, app, smtpd)
    answer = getattr(client, method)(path.format(ana=ana))
    assert answer.status_code in codes
    assert "<h1>" in answer.get_data(as_text=True)


def test_a_form_without_its_token_is_refused(client: Any, app: Any, smtpd: Any) -> None:
    ana, _ = finished(client, app, smtpd)
    assert client.post(f"{ana}/review", data={}, raw=True).status_code == 400
    assert rows(app) == []


def test_the_review_page_in_french(client: Any, app: Any, smtpd: Any) -> None:
    ana, _ = finished(client, app, smtpd)
    client.post(f"{ana}/review")
    computer_moves(app)
    page = unescape(client.get(f"{ana}/review?lang=fr").get_data(as_text=True))
    assert "Toutes vos décisions" in page and "chances de gagner" in page
    with read_session(app.extensions["pbem"]["engine"]) as session:
        assert session.exec(select(Outbox).where(Outbox.event == "review")).all() == []
