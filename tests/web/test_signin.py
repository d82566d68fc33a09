"""Sign in by mail, with no password: the link, its button, the 90-day session cookie, a link
used twice or too late, the settings link in every game mail, signing out, the rate limits;
an ask that does the same work whoever the address is (the sender makes the mail), and no
link, mail or session for a computer player. Sessions: test_signin_sessions.py."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from email.utils import parsedate_to_datetime
from typing import Any

from sqlalchemy import event
from sqlmodel import col, select

from pbem.models import COMPUTER_DOMAIN, Outbox, Player, SignIn
from pbem.players import signin
from pbem.players.computers import LEVELS
from pbem.site import make_token
from pbem.storage.db import read_session, write_session
from tests.clock.helpers import run_sweep
from tests.web.helpers import (
    ask,
    deliver,
    press,
    sign_in_as,
    signed_in,
    signin_link,
    start_game,
    text_of,
)


def test_a_mailed_link_and_its_button_sign_in_for_90_days(
    client: Any, app: Any, smtpd: Any
) -> None:
    start_game(client, app, smtpd)
    smtpd.clear()
    known, unknown = ask(client, "Leo@Example.org"), ask(client, "nobody@example.org")
    assert known.status_code == unknown.status_code == 200
    strip = lambda r, e: r.get_data(as_text=True).replace(e, "")  # noqa: E731
    assert strip(known, "leo@example.org") == strip(unknown, "nobody@example.org")
    deliver(app)
    (mail,) = smtpd.messages  # nothing goes to an address nobody plays with
    assert "leo@example.org" in str(mail["To"])
    link = signin_link(mail)
    page = client.get(link)
    assert page.status_code == 200 and "Sign in as Léo" in page.get_data(as_text=True)
    assert not signed_in(client)  # opening the link changes nothing
    response = press(client, link)
    assert response.status_code == 303 and response.headers["Location"] == "/me"
    cookie = next(c for c in response.headers.getlist("Set-Cookie") if c.startswith("session="))
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert parsedate_to_datetime(re.search(r"Expires=([^;]+)", cookie).group(1))  # kept
    assert app.permanent_session_lifetime == timedelta(days=90)
    assert signed_in(client)
    out = client.post("/signout")
    assert out.status_code == 303 and not signed_in(client)


def test_a_link_used_twice_or_too_late_says_so(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    start_game(client, app, smtpd)
    smtpd.clear()
    ask(client, "zoe@example.org")
    ask(client, "zoe@example.org")
    deliver(app)
    first, second = (signin_link(m) for m in smtpd.messages)
    assert press(client, first).status_code == 303
    other = app.test_client()
    again = other.post(first)
    assert again.status_code == 410
    assert "already used" in other.get(first).get_data(as_text=True)
    clock.advance(hours=2)
    late = other.get(second)
    assert late.status_code == 410 and "expired" in late.get_data(as_text=True)
    assert not signed_in(other)
    assert other.get(first[:-3] + "xyz").status_code == 404  # tampered


def test_the_settings_link_in_a_game_mail_signs_in_and_opens_the_settings(
    client: Any, app: Any, smtpd: Any
) -> None:
    links, first = start_game(client, app, smtpd)
    mail = smtpd.messages[first]
    settings = next(
        line.split(": ", 1)[1] for line in text_of(mail).splitlines() if "which mails" in line
    )
    assert settings.startswith("http://pbem.test/signin/")
    path = settings.removeprefix("http://pbem.test")
    fresh = app.test_client()
    response = press(fresh, path)
    assert response.status_code == 303
    email = str(mail["To"]).split("<")[1].rstrip(">")
    assert response.headers["Location"] == links[email] + "/settings"
    assert fresh.get(response.headers["Location"]).status_code == 200
    assert signed_in(fresh)
    # Seat links keep working without signing in.
    assert app.test_client().get(links[email]).status_code == 200


def _settings_links(smtpd: Any) -> dict[str, str]:
    """The settings link of the last game mail to each address, as a path."""
    links = {}
    for mail in smtpd.messages:
        for line in text_of(mail).splitlines():
            if "which mails" in line:
                email = str(mail["To"]).split("<")[1].rstrip(">")
                links[email] = line.split(": ", 1)[1].removeprefix("http://pbem.test")
    return links


def _rows(app: Any) -> list[SignIn]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return list(session.exec(select(SignIn)))


def test_a_game_mail_writes_no_sign_in_row_until_its_link_is_used_once(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    """Sending a mail makes no row for its settings link: the first press makes it (to the
    reader's settings), a second press or another mail's reader finds it spent, and a link
    older than its 30 days says it has expired."""
    start_game(client, app, smtpd)
    assert _rows(app) == []  # every game mail sent, not one row written for its link
    links = _settings_links(smtpd)
    leo = links["leo@example.org"]
    assert press(app.test_client(), leo).status_code == 303
    (row,) = _rows(app)
    assert (
        row.used_at is not None
        and row.outbox_id is not None
        and row.next_path.endswith("/settings")
    )
    other = app.test_client()
    assert other.post(leo).status_code == 410
    assert "already used" in other.get(leo).get_data(as_text=True)
    assert not signed_in(other)
    assert len(_rows(app)) == 1
    assert other.get(leo[:-3] + "xyz").status_code == 404  # tampered
    clock.advance(days=31)
    late = other.get(links["zoe@example.org"])
    assert late.status_code == 410 and "expired" in late.get_data(as_text=True)
    assert len(_rows(app)) == 1


def test_a_mailed_link_pressed_twice_at_once_signs_in_once(
    client: Any, app: Any, smtpd: Any
) -> None:
    """Both presses read the link before either wrote its row: the second finds the row
    the first wrote and gives way (the unique outbox_id)."""
    start_game(client, app, smtpd)
    token = _settings_links(smtpd)["leo@example.org"].removeprefix("/signin/")
    engine, site, now = (
        app.extensions["pbem"]["engine"],
        app.extensions["pbem"]["site"],
        app.config["CLOCK"](),
    )
    with read_session(engine) as session:
        first, second = (signin.check(session, site, token, now) for _ in range(2))
    assert first.id is None and second.id is None  # neither press has written yet
    with write_session(engine) as session:
        assert signin.spend(session, first, now)
    with write_session(engine) as session:
        assert not signin.spend(session, second, now)
    assert len(_rows(app)) == 1


def test_sign_in_mails_are_rate_limited(client: Any, app: Any, smtpd: Any) -> None:
    start_game(client, app, smtpd)
    smtpd.clear()
    for _ in range(5):
        assert ask(client, "ana@example.org").status_code == 200
    deliver(app)
    assert len(smtpd.messages) == 3  # at most three an hour to one address
    for _ in range(5):
        ask(client, "nobody@example.org")
    refused = ask(client, "ana@example.org")
    assert refused.status_code == 429  # ten asks an hour from one place
    assert (
        "as many sign-in links as an hour allows (10). Try again after Mon 2 Mar, 10:00 (UTC)."
        in refused.get_data(as_text=True)
    )
    assert ask(client, "not-an-address").status_code in (400, 429)


def test_the_sweep_drops_rows_a_month_past_expiry_and_late_links_still_refuse(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    """A row is made when its link is first used and kept 30 days past the link's expiry (a
    late press says "expired"), then the sweep drops it; a link whose row was dropped stays
    refused, never signs in again. An asked link nobody pressed has no row at all."""
    start_game(client, app, smtpd)
    leo = _settings_links(smtpd)["leo@example.org"]
    assert press(app.test_client(), leo).status_code == 303
    smtpd.clear()
    ask(client, "zoe@example.org")
    ask(client, "zoe@example.org")
    deliver(app)
    used, unused = (signin_link(m) for m in smtpd.messages)
    assert press(app.test_client(), used).status_code == 303
    assert len(_rows(app)) == 2  # none for the link not pressed

    clock.advance(days=29)
    run_sweep(app)
    assert len(_rows(app)) == 2
    late = app.test_client().get(unused)
    assert late.status_code == 410 and "expired" in late.get_data(as_text=True)
    assert "already used" in app.test_client().get(used).get_data(as_text=True)

    clock.advance(days=2)  # the asked links expired over 30 days ago, leo's mail is 31 days old
    run_sweep(app)
    (kept,) = _rows(app)
    assert kept.next_path.endswith("/settings")
    for link in (used, unused):
        other = app.test_client()
        again = other.post(link)
        assert again.status_code == 410 and "expired" in other.get(link).get_data(as_text=True)
        assert not signed_in(other)
    assert len(_rows(app)) == 1

    clock.advance(days=30)  # leo's row expired 30 days and more ago
    run_sweep(app)
    assert _rows(app) == []
    other = app.test_client()
    again = other.post(leo)
    assert again.status_code == 410 and "expired" in other.get(leo).get_data(as_text=True)
    assert not signed_in(other) and _rows(app) == []


@contextmanager
def statements(app: Any) -> Iterator[list[str]]:
    """The SQL the database is sent meanwhile, as text (the values travel apart)."""
    sent: list[str] = []

    def keep(conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
        sent.append(" ".join(statement.split()))

    engine = app.extensions["pbem"]["engine"]
    event.listen(engine, "before_cursor_execute", keep)
    try:
        yield sent
    finally:
        event.remove(engine, "before_cursor_execute", keep)


def _answer(response: Any, email: str) -> tuple[int, list[tuple[str, str]], str]:
    """Status, headers and page of an answer, the asked address and any form token masked."""
    page = response.get_data(as_text=True).replace(email, "ADDRESS")
    page = re.sub(r'name="csrf" value="[^"]*"', 'name="csrf" value="TOKEN"', page)
    return response.status_code, sorted(response.headers.items()), page


def test_asking_for_a_link_does_the_same_work_whoever_the_address_is(
    client: Any, app: Any, smtpd: Any
) -> None:
    """The request for a player's address used to look them up, write a sign-in row and its
    mail and count it, and do none of that for an address nobody plays with: 1.49 times
    slower, which told who plays here. Now it sends the database the same statements for
    both, and the answers are the same bytes (the same-length addresses aside)."""
    start_game(client, app, smtpd)
    smtpd.clear()
    answers, work = {}, {}
    for email in ("leo@example.org", "lea@example.org"):  # a player's, and nobody's
        with statements(app) as sent:
            response = app.test_client().post("/signin", data={"email": email})
        answers[email], work[email] = _answer(response, email), sent
    assert answers["leo@example.org"][0] == 200
    assert answers["leo@example.org"] == answers["lea@example.org"]
    assert work["leo@example.org"] == work["lea@example.org"]
    assert not any("FROM player" in s or "INTO signin" in s for s in work["leo@example.org"])


def test_the_sender_mails_the_link_to_a_player_and_keeps_nothing_of_other_addresses(
    client: Any, app: Any, smtpd: Any
) -> None:
    """The ask is recorded as it comes; the sender makes the mail: a player's address gets
    its link through SMTP, and an ask for an address nobody plays with leaves no row."""
    start_game(client, app, smtpd)
    smtpd.clear()
    ask(client, "nobody@example.org")
    ask(client, "Zoe@Example.org")
    assert smtpd.messages == []  # no request talks to SMTP
    deliver(app)
    (mail,) = smtpd.messages
    assert "zoe@example.org" in str(mail["To"])
    assert "it works once, for the next 60 minutes" in text_of(mail)
    with read_session(app.extensions["pbem"]["engine"]) as session:
        kept = [row.model_dump_json() for row in session.exec(select(Outbox))]
    assert not any("nobody@example.org" in row for row in kept)
    response = press(client, signin_link(mail))
    assert response.status_code == 303 and response.headers["Location"] == "/me"
    assert "Zoé" in client.get("/me").get_data(as_text=True)


def _computers(client: Any, app: Any) -> dict[str, Player]:
    """Games with a computer player of each level (they start at once); their players."""
    for levels in (LEVELS[:2], LEVELS[2:]):
        form = {"game": "colour-bazaar", "name_0": "Ana", "email_0": "ana@example.org"}
        form |= {f"computer_{row}": level for row, level in enumerate(levels, start=1)}
        assert client.post("/games", data=form).status_code == 303
    with read_session(app.extensions["pbem"]["engine"]) as session:
        found = session.exec(select(Player).where(col(Player.email).endswith(COMPUTER_DOMAIN)))
        players = {p.email.split("@")[0]: p for p in found}
    assert set(players) == set(LEVELS)
    return players


def _mail_rows(app: Any, event: str) -> list[Outbox]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return list(session.exec(select(Outbox).where(Outbox.event == event)))


def test_no_sign_in_mail_is_queued_or_sent_to_a_computer_player(
    client: Any, app: Any, smtpd: Any
) -> None:
    """A computer player is a Player row with an address of its own: asking for its link
    used to mail one (to beginner@computer.invalid), and pressing it opened its /me."""
    computers = _computers(client, app)
    deliver(app)
    smtpd.clear()
    nobody = _answer(ask(app.test_client(), "robert@example.org"), "robert@example.org")
    for level in LEVELS:
        address = f"{level}@{COMPUTER_DOMAIN}"
        answer = ask(app.test_client(), address)
        assert _answer(answer, address)[0] == 200
        assert _answer(answer, address)[2] == nobody[2]  # the same page as for any address
    assert [row.extra for row in _mail_rows(app, "signin")] == [{"email": "robert@example.org"}]
    # Mail queued to a computer before this (an ask, and a sign-in mail as it was queued
    # then, to the player): the sender never sends it.
    now = app.config["CLOCK"]()
    mailed = {"extra": {"signin_link": "http://pbem.test/signin/x", "minutes": 60}}
    with write_session(app.extensions["pbem"]["engine"]) as session:
        for n, player in enumerate(computers.values()):
            queued = [({"email": player.email}, None), (mailed, player.id)]
            for kind, (extra, to) in enumerate(queued):
                session.add(
                    Outbox(
                        event="signin",
                        player_id=to,
                        extra=extra,
                        message_id=f"<{n}.{kind}@pbem.test>",
                        created_at=now,
                        next_attempt_at=now,
                    )
                )
    deliver(app)
    assert smtpd.messages == [] and _mail_rows(app, "signin") == []


def test_a_computer_player_cannot_be_signed_in_by_any_link_or_cookie(
    client: Any, app: Any, smtpd: Any
) -> None:
    """A sign-in row for a computer (as an ask made one before), a mail's link forged for
    one, and a cookie naming one: none signs in."""
    beginner = _computers(client, app)["beginner"]
    engine, now = app.extensions["pbem"]["engine"], app.config["CLOCK"]()
    secret = app.extensions["pbem"]["site"].secret
    with write_session(engine) as session:
        hour = now + timedelta(hours=1)
        row = SignIn(player_id=beginner.id, nonce="n" * 22, created_at=now, expires_at=hour)
        mail = Outbox(
            event="signin",
            extra={"email": beginner.email},
            message_id="<a@pbem.test>",
            created_at=now,
            next_attempt_at=now,
        )
        session.add_all([row, mail])
        session.flush()
        tokens = [[row.id, row.nonce], [signin.MAILED, mail.id, beginner.id]]
    for token in tokens:
        link = "/signin/" + make_token(secret, "signin", token)
        device = app.test_client()
        assert device.get(link).status_code == 404
        assert device.post(link).status_code == 404
        assert device.get("/me").status_code == 303 and not signed_in(device)
    assert _rows(app)[0].used_at is None and len(_rows(app)) == 1
    device = app.test_client()
    sign_in_as(device, app, beginner.id)  # as a forged cookie would, with its generation
    assert device.get("/me").status_code == 303 and not signed_in(device)
