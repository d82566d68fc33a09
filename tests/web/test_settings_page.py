"""/settings: a signed-in player's settings, the same page and forms as a seat's settings page,
linked from the header and /me; signed out it asks to sign in. EN/FR switches both pages,
and a refused form's switch leads back to the settings, not to the game."""

from __future__ import annotations

import re
from typing import Any

from sqlmodel import select

from pbem.models import Player, Vacation
from pbem.storage.db import read_session
from tests.web.helpers import ANA, LEO, forms_of, new_game, sign_in

SETTINGS = {"lang": "en", "tz": "Europe/Paris", "notify": "every"}


def player(app: Any, email: str) -> Player:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        found = session.exec(select(Player).where(Player.email == email)).one()
        session.expunge(found)
        return found


def fields(html: str) -> list[tuple[str, list[str]]]:
    """Each form's fields, by name (its action left out: it names the way in)."""
    return [
        (
            form["action"].rsplit("/", 1)[-1],
            sorted({i.get("name") or "" for i in form["inputs"] if i.get("name") != "csrf"}),
        )
        for form in forms_of(html)
        if "/signout" != form["action"]  # the header's sign-out form
    ]


def lang_links(html: str) -> list[str]:
    return re.findall(r'<a href="([^"]+)" hreflang="\w+">', html)


def test_signed_out_settings_ask_to_sign_in(client: Any) -> None:
    for path in ("/settings", "/settings/vacation", "/settings/webhooks", "/settings/unblock"):
        answer = (
            client.get(path) if path == "/settings" else client.post(path, data={"player": "1"})
        )
        assert answer.status_code == 303, path
        assert answer.headers["Location"].endswith("/signin"), path


def test_the_same_settings_signed_in_as_from_a_seat(client: Any, app: Any, smtpd: Any) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO])
    seat_page = client.get(f"{links[ANA[1]]}/settings").get_data(as_text=True)
    sign_in(client, app, smtpd, ANA[1])
    home = client.get("/me").get_data(as_text=True)
    assert 'href="/settings"' in home  # from /me, and from the header of every page
    header = re.search(r'<nav class="me".*?</nav>', home, re.S)
    assert header is not None and 'href="/settings"' in header.group(0)
    mine = client.get("/settings")
    assert mine.status_code == 200
    html = mine.get_data(as_text=True)
    assert "Your settings" in html and "Back to the game" not in html
    # Every form of the seat's page, with the same fields, but the table's webhooks: the
    # creator's choice "for the whole table" belongs to a game.
    seat_forms = [(a, [n for n in names if n != "scope"]) for a, names in fields(seat_page)]
    my_forms = [(a, [n for n in names if n != "scope"]) for a, names in fields(html)]
    assert my_forms == seat_forms
    assert "For the whole table" in seat_page and "For the whole table" not in html
    actions = [f["action"] for f in forms_of(html) if f["action"] != "/signout"]
    assert all(a.startswith(("/settings", "/me/mail")) for a in actions), actions

    saved = client.post("/settings", data={**SETTINGS, "notify": "digest", "auto_vacation": "1"})
    assert saved.status_code == 303 and saved.headers["Location"].endswith("/settings?saved=1")
    ana = player(app, ANA[1])
    assert (ana.tz, ana.notify, ana.auto_vacation) == ("Europe/Paris", "digest", True)
    assert "Saved." in client.get("/settings?saved=1").get_data(as_text=True)
    # The seat's page shows what was saved at /settings: one player, one set of settings.
    assert 'value="digest" checked' in client.get(f"{links[ANA[1]]}/settings").get_data(
        as_text=True
    )

    assert client.post("/settings/vacation", data={"days": "3"}).status_code == 303
    with read_session(app.extensions["pbem"]["engine"]) as session:
        assert len(session.exec(select(Vacation)).all()) == 1
    assert "You are away from" in client.get("/settings").get_data(as_text=True)
    assert client.post("/settings/vacation/end").status_code == 303
    assert "Start the vacation" in client.get("/settings").get_data(as_text=True)

    bad = client.post("/settings", data={**SETTINGS, "tz": "Mars/Olympus"})
    assert bad.status_code == 400 and 'role="alert"' in bad.get_data(as_text=True)


def test_en_fr_switches_both_settings_pages(client: Any, app: Any, smtpd: Any) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO])
    seat = f"{links[ANA[1]]}/settings"
    page = client.get(seat + "?lang=fr").get_data(as_text=True)
    assert "Vos réglages" in page and '<html lang="fr">' in page
    assert f"{seat}?lang=en" in lang_links(page)
    # The switch on a player's own page sets their language, as the seat page's does; the
    # language list shows it chosen.
    assert player(app, ANA[1]).lang == "fr"
    assert '<option value="fr" selected>' in page
    page = client.get(seat + "?lang=en").get_data(as_text=True)
    assert "Your settings" in page and player(app, ANA[1]).lang == "en"

    sign_in(client, app, smtpd, ANA[1])
    page = client.get("/settings?lang=fr").get_data(as_text=True)
    assert "Vos réglages" in page and "/settings?lang=en" in lang_links(page)
    assert player(app, ANA[1]).lang == "fr"
    # A refused form answers in place: its EN/FR switch leads to the settings page.
    refused = client.post("/settings?lang=fr", data={**SETTINGS, "lang": "fr", "tz": "Nowhere"})
    assert refused.status_code == 400
    assert "/settings?lang=en" in lang_links(refused.get_data(as_text=True))
    refused = client.post(f"{links[ANA[1]]}/vacation?lang=en", data={"days": "999"})
    assert refused.status_code == 400
    assert f"{seat}?lang=fr" in lang_links(refused.get_data(as_text=True))


def test_signing_out_everywhere_from_settings(client: Any, app: Any, smtpd: Any) -> None:
    new_game(client, app, smtpd, [ANA, LEO])
    sign_in(client, app, smtpd, ANA[1])
    out = client.post("/settings/signout/everywhere")
    assert out.status_code == 303 and "/signin?out=1" in out.headers["Location"]
    assert client.get("/settings").status_code == 303  # signed out here too
