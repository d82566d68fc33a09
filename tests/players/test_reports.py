"""Reporting a player (issue 48): the report buttons on a player's page and in table talk
mail the operator the name, the reason and a signed link to the context; `pbem reports`
lists them; `pbem bar` keeps an account from open tables, leagues and ratings, and tells
its player. Without an operator address there is no button and no route."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import select

from pbem.errors import PlayError
from pbem.models import PlayerSeek, RatingChange, Report
from pbem.play import Invitee
from pbem.storage.db import read_session
from tests.app import make_test_app
from tests.leagues.helpers import make_league
from tests.opentables.helpers import players, post, seek
from tests.ratings.helpers import make_game, play_out, player_id
from tests.web.helpers import (
    PLAYERS,
    deliver,
    form_with,
    forms_of,
    headline,
    hidden,
    sign_in_as,
    start_game,
    text_of,
)

OPS = "ops@pbem.test"
ANA, LEO, ZOE = (email for _, email in PLAYERS)


@pytest.fixture
def app(database_url: str, clock: Any, smtpd: Any, tmp_path: Any) -> Any:
    """The app with an operator address: reports are taken."""
    app = make_test_app(database_url, clock, smtpd, tmp_path, OPERATOR_EMAIL=OPS)
    yield app
    app.extensions["pbem"]["engine"].dispose()


def engine_of(app: Any) -> Any:
    return app.extensions["pbem"]["engine"]


def report_rows(app: Any) -> list[Report]:
    with read_session(engine_of(app)) as session:
        return list(session.exec(select(Report).order_by(Report.id)))


def send_report(client: Any, page_url: str, action_end: str, reason: str) -> Any:
    """Fill in the page's report form whose action ends so, and send it."""
    form = form_with(client.get(page_url).get_data(as_text=True), action_end)
    return client.post(form["action"], data={**hidden(form), "reason": reason})


def test_a_report_from_a_player_page_reaches_the_operator_with_a_signed_link(
    client: Any, app: Any, smtpd: Any
) -> None:
    links, _ = start_game(client, app, smtpd)
    ana, leo = player_id(app, ANA), player_id(app, LEO)
    # Signed out: no button; one's own page: none either.
    assert "/report" not in client.get(f"/players/{ana}").get_data(as_text=True)
    sign_in_as(client, app, leo)
    assert "/report" not in client.get(f"/players/{leo}").get_data(as_text=True)
    answer = send_report(client, f"/players/{ana}", f"/players/{ana}/report", "Rude <b>names</b>.")
    assert answer.status_code == 200
    assert "the operator of this server has your report" in answer.get_data(as_text=True)
    smtpd.clear()
    deliver(app)
    (mail,) = smtpd.to(OPS)
    body = text_of(mail)
    assert f"Léo (player {leo}) reports Ana (player {ana})" in body
    assert "Rude <b>names</b>." in body and f"pbem bar {ana}" in body
    assert "Ana" in headline(mail) or "Ana" in str(mail["Subject"])
    assert ANA not in body and LEO not in body  # names and ids, never an address
    link = next(line for line in body.splitlines() if "/reports/" in line).split()[-1]
    page = client.get(link.removeprefix("http://pbem.test"))
    assert page.status_code == 200
    shown = page.get_data(as_text=True)
    assert "Rude &lt;b&gt;names&lt;/b&gt;." in shown and "<b>names" not in shown
    # A link the server did not sign, or one for another purpose, shows nothing.
    assert client.get(link.removeprefix("http://pbem.test") + "x").status_code == 404
    assert client.get(links[ANA].replace("/p/", "/reports/")).status_code == 404


def test_reports_are_refused_with_the_reason(client: Any, app: Any, smtpd: Any, clock: Any) -> None:
    start_game(client, app, smtpd)
    ana, leo = player_id(app, ANA), player_id(app, LEO)
    path = f"/players/{ana}/report"
    # Signed out: to the sign-in page; no form token: refused unread.
    assert client.post(path, data={"reason": "x"}).status_code == 303
    sign_in_as(client, app, leo)
    assert client.post(path, data={"reason": "x"}, raw=True).status_code == 400
    blank = client.post(path, data={"reason": "   "})
    assert blank.status_code == 400 and "Say why you report" in blank.get_data(as_text=True)
    long = client.post(path, data={"reason": "x" * 1001})
    assert long.status_code == 400 and "at most 1000 characters" in long.get_data(as_text=True)
    assert client.post(f"/players/{leo}/report", data={"reason": "me"}).status_code == 400
    assert client.post("/players/99999/report", data={"reason": "who?"}).status_code == 404
    for count in range(5):
        assert client.post(path, data={"reason": f"report {count}"}).status_code == 200
    sixth = client.post(path, data={"reason": "one more"})
    assert sixth.status_code == 429
    # The first of the five, sent at 09:00, leaves the 24 hours at 09:00 the next day.
    assert (
        "You have sent 5 reports in the last 24 hours, the most allowed. Try again after "
        "Tue 3 Mar, 09:00 (UTC)." in sixth.get_data(as_text=True)
    )
    assert len(report_rows(app)) == 5
    clock.advance(hours=24, minutes=1)  # a sliding day, not the calendar's
    assert client.post(path, data={"reason": "next day"}).status_code == 200
    # In French, as the reader reads.
    french = client.post(path, data={"reason": " "}, headers={"Accept-Language": "fr"})
    assert "Dites pourquoi" in french.get_data(as_text=True)


def test_a_talk_message_is_reported_with_its_text(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    ana = player_id(app, ANA)
    for text, to in (("You all play like snails.", "all"), ("Zoe, only you.", "2")):
        assert client.post(f"{links[ANA]}/talk", data={"text": text, "to": to}).status_code == 303
    leo_page = client.get(links[LEO]).get_data(as_text=True)
    reports_of = [f["action"] for f in forms_of(leo_page) if f["action"].endswith("/report")]
    assert len(reports_of) == 1  # Ana's message to everyone: Leo cannot read the private one
    answer = send_report(client, links[LEO], reports_of[0], "Insults at the table.")
    assert answer.status_code == 200
    (row,) = report_rows(app)
    assert (row.reported_id, row.game_id, row.reason) == (ana, 1, "Insults at the table.")
    # The private message to Zoe, and Ana's own message from her seat, are not Leo's or
    # Ana's to report.
    private_id, public_id = (row.talk_id or 0) + 1, row.talk_id
    assert (
        client.post(f"{links[LEO]}/talk/{private_id}/report", data={"reason": "x"}).status_code
        == 400
    )
    assert (
        client.post(f"{links[ANA]}/talk/{public_id}/report", data={"reason": "x"}).status_code
        == 400
    )
    assert (
        client.post(f"{links[ZOE]}/talk/{private_id}/report", data={"reason": "x"}).status_code
        == 200
    )
    smtpd.clear()
    deliver(app)
    first, _ = smtpd.to(OPS)
    assert "The message reported, in game 1:\r\nYou all play like snails." in text_of(first)


def test_without_an_operator_there_is_no_report_button_nor_route(
    database_url: str, clock: Any, smtpd: Any, tmp_path: Any
) -> None:
    app = make_test_app(database_url, clock, smtpd, tmp_path)
    client = app.test_client()
    links, _ = start_game(client, app, smtpd)
    ana, leo = player_id(app, ANA), player_id(app, LEO)
    assert client.post(f"{links[ANA]}/talk", data={"text": "Hi.", "to": "all"}).status_code == 303
    sign_in_as(client, app, leo)
    assert "/report" not in client.get(f"/players/{ana}").get_data(as_text=True)
    assert "/report" not in client.get(links[LEO]).get_data(as_text=True)
    assert client.post(f"/players/{ana}/report", data={"reason": "x"}).status_code == 404
    assert client.post(f"{links[LEO]}/talk/1/report", data={"reason": "x"}).status_code == 404
    assert report_rows(app) == []
    app.extensions["pbem"]["engine"].dispose()


def test_a_barred_account_is_kept_from_open_tables_leagues_and_ratings(
    client: Any, app: Any, smtpd: Any, runner: Any
) -> None:
    ana, leo, zoe = players(app, "Ana", "Leo", "Zoe")
    seek(app, leo)
    assert runner.invoke(args=["bar", str(leo), "--reason", "abuse"]).output.startswith(
        f"Leo ({leo}) is barred"
    )
    assert "was barred" in runner.invoke(args=["bar", "leo@example.org"]).output
    assert "No player nobody" in runner.invoke(args=["bar", "nobody"]).output
    with read_session(engine_of(app)) as session:
        assert list(session.exec(select(PlayerSeek))) == []  # their seek went with the bar
    smtpd.clear()
    deliver(app)
    (told,) = smtpd.to("leo@example.org")
    assert "barred your account from open tables, leagues and ratings" in text_of(told)

    # Open tables: posting, joining and seeking are refused, with the reason, on the page.
    with pytest.raises(PlayError) as caught:
        post(app, leo)
    assert caught.value.key == "report.error.barred"
    table = post(app, ana)
    sign_in_as(client, app, leo)
    joined = client.post(f"/games/open/{table}/join")
    assert joined.status_code == 403
    assert "barred your account" in joined.get_data(as_text=True)
    with pytest.raises(PlayError):
        seek(app, leo)
    # Leagues: neither made nor joined.
    with pytest.raises(PlayError) as caught:
        make_league(app, [leo, zoe])
    assert caught.value.key == "report.error.barred"
    with pytest.raises(PlayError) as caught:
        make_league(app, [zoe, leo])
    assert caught.value.key == "report.error.barred"

    # Ratings: a rated game with the barred player moves nobody's rating.
    game_id = make_game(
        engine_of(app),
        "colour-bazaar",
        [Invitee("Zoe", "zoe@example.org"), Invitee("Leo", "leo@example.org")],
    )
    play_out(engine_of(app), game_id)
    with read_session(engine_of(app)) as session:
        assert list(session.exec(select(RatingChange))) == []

    assert "no longer barred" in runner.invoke(args=["unbar", str(leo)]).output
    assert "was not barred" in runner.invoke(args=["unbar", str(leo)]).output
    smtpd.clear()
    deliver(app)
    assert [m for m in smtpd.to("leo@example.org") if "lifted the bar" in text_of(m)]
    assert client.post(f"/games/open/{table}/join").status_code == 303
    # Unbarred, the same game moves both ratings again.
    again = make_game(
        engine_of(app),
        "colour-bazaar",
        [Invitee("Zoe", "zoe@example.org"), Invitee("Leo", "leo@example.org")],
    )
    play_out(engine_of(app), again)
    with read_session(engine_of(app)) as session:
        changed = {c.player_id for c in session.exec(select(RatingChange))}
    assert changed == {leo, zoe}


def test_pbem_reports_lists_them_newest_first(client: Any, app: Any, runner: Any) -> None:
    ana, leo, zoe = players(app, "Ana", "Leo", "Zoe")
    assert runner.invoke(args=["reports"]).output == "No reports.\n"
    sign_in_as(client, app, leo)
    assert (
        client.post(f"/players/{ana}/report", data={"reason": "Cheats\nby mail"}).status_code == 200
    )
    sign_in_as(client, app, zoe)
    assert client.post(f"/players/{ana}/report", data={"reason": "Rude"}).status_code == 200
    runner.invoke(args=["bar", str(ana)])
    lines = runner.invoke(args=["reports"]).output.splitlines()
    assert len(lines) == 2
    assert (
        lines[0].startswith("#2\t")
        and f"Zoe ({zoe}) -> Ana ({ana})\tbarred\tpage\tRude" in lines[0]
    )
    assert "Cheats by mail" in lines[1] and "http://pbem.test/reports/" in lines[1]
