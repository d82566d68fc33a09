"""Sessions: a signed-in device's cookie holds the player's session generation, so signing
out ends the session even for a copy of the cookie; "sign out everywhere" in the settings
ends every device's; a cookie from before generations counts as signed out."""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from pbem.models import Player
from pbem.storage.db import read_session
from tests.web.helpers import (
    ask,
    deliver,
    form_with,
    hidden,
    press,
    signed_in,
    signin_link,
    start_game,
)


def _signed_in_as(app: Any, smtpd: Any, email: str) -> Any:
    """A new device (test client) signed in by a link asked for `email`."""
    device = app.test_client()
    seen = len(smtpd.to(email))
    ask(device, email)
    deliver(app)
    assert press(device, signin_link(smtpd.to(email)[seen])).status_code == 303
    assert device.get("/me").status_code == 200
    return device


def _issued_sessions(response: Any) -> list[str]:
    """The session cookies an answer sets (a cookie deleted on the device is not one)."""
    cookies = response.headers.getlist("Set-Cookie")
    return [c for c in cookies if c.startswith("session=") and not c.startswith("session=;")]


def test_signing_out_ends_the_session_a_copied_cookie_opens_nothing(
    client: Any, app: Any, smtpd: Any
) -> None:
    """The cookie of a device that signed out, replayed (copied before, from a backup or by
    someone who had the device), used to open /me and be issued again for 90 days."""
    start_game(client, app, smtpd)
    device = _signed_in_as(app, smtpd, "leo@example.org")
    cookie = device.get_cookie("session")
    assert cookie is not None and cookie.value
    assert device.post("/signout").status_code == 303 and not signed_in(device)
    thief = app.test_client()
    thief.set_cookie("session", cookie.value)
    mine = thief.get("/me")
    assert mine.status_code == 303 and mine.headers["Location"].endswith("/signin")
    assert _issued_sessions(mine) == []
    thief.set_cookie("session", cookie.value)
    page = thief.get("/signin")
    assert "Sign out" not in page.get_data(as_text=True) and _issued_sessions(page) == []


def test_signing_out_everywhere_from_the_settings_ends_every_device(
    client: Any, app: Any, smtpd: Any
) -> None:
    """A lost phone: from the settings (reached by any seat link), one press signs out
    every device signed in as the player; signing in again afterwards works."""
    links, _ = start_game(client, app, smtpd)
    phone = _signed_in_as(app, smtpd, "leo@example.org")
    laptop = _signed_in_as(app, smtpd, "leo@example.org")
    zoe = _signed_in_as(app, smtpd, "zoe@example.org")
    settings = laptop.get(links["leo@example.org"] + "/settings").get_data(as_text=True)
    form = form_with(settings, "/signout/everywhere")
    assert "Sign out everywhere" in settings
    done = laptop.post(form["action"], data=hidden(form))
    assert done.status_code == 303
    assert "every device" in laptop.get(done.headers["Location"]).get_data(as_text=True)
    for device in (phone, laptop):
        assert device.get("/me").status_code == 303 and not signed_in(device)
    assert zoe.get("/me").status_code == 200  # another player's sessions stay
    again = _signed_in_as(app, smtpd, "leo@example.org")
    assert signed_in(again)


def test_a_cookie_from_before_session_generations_counts_as_signed_out(
    client: Any, app: Any, smtpd: Any
) -> None:
    """A cookie made before sessions carried their generation: signed out, never a 500."""
    start_game(client, app, smtpd)
    with read_session(app.extensions["pbem"]["engine"]) as session:
        leo = session.exec(select(Player).where(Player.email == "leo@example.org")).one()
    with client.session_transaction() as cookie:
        cookie.permanent = True
        cookie["player"] = leo.id
    mine = client.get("/me")
    assert mine.status_code == 303 and mine.headers["Location"].endswith("/signin")
    assert _issued_sessions(mine) == []
    assert not signed_in(client)
