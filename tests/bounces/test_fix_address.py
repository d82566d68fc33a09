"""The player whose mail no longer goes out fixes it (issue 46): asked on their seat page,
/me and their settings (where signing in lands); "Mail me a test" turns their mail back on
and sends a real test mail; a new address is confirmed by a link mailed to it alone, whose
opening changes nothing until its button is pressed. Refusals are clear 4xx pages that say
nobody else's address or name, and both actions are rate-limited."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import pytest
from sqlmodel import select

from pbem.models import MailAddress, Player
from pbem.storage.db import read_session, write_session
from pbem.storage.retention import prune
from tests.bounces.helpers import engine_of
from tests.bounces.table import (
    ANA,
    LEO,
    ZOE,
    mark,
    notices,
    page,
    set_player,
    three_players,
)
from tests.web.helpers import deliver, form_with, hidden, sign_in_as, text_of

NEW = "leo.new@example.net"
PROMPT = {
    "en": (
        "Is your address right?",
        "Mail to you (leo@example.org) has bounced since Monday 2 March: 550 5.1.1 …: "
        "Recipient address rejected: User unknown",
    ),
    "fr": (
        "Votre adresse est-elle juste ?",
        "Les mails qui vous sont envoyés (leo@example.org) reviennent depuis le lundi 2 mars : "
        "550 5.1.1 …: Recipient address rejected: User unknown",
    ),
}


def plain(html: str) -> str:
    """A page's text, tags out, spaces (no-break ones too) made one."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).replace("&#39;", "'").split())


def player_row(app: Any, player_id: int) -> Player:
    with read_session(engine_of(app)) as session:
        found = session.get(Player, player_id)
        assert found is not None
        return found


def player_id(app: Any, email: str) -> int:
    with read_session(engine_of(app)) as session:
        return session.exec(select(Player.id).where(Player.email == email)).one() or 0


def address_row(app: Any, address: str) -> MailAddress | None:
    with read_session(engine_of(app)) as session:
        return session.get(MailAddress, address)


def confirm_link(smtpd: Any, address: str) -> str:
    (mail,) = smtpd.to(address)
    found = re.search(r"http://pbem\.test(/address/[A-Za-z0-9_.\-]+)", text_of(mail))
    assert found, text_of(mail)
    return found.group(1)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_prompt_on_the_seat_page_me_and_after_signing_in(
    client: Any, app: Any, smtpd: Any, lang: str
) -> None:
    links = three_players(client, app, smtpd)
    set_player(app, LEO[1], lang=lang)
    leo = links[LEO[1]]
    assert 'id="mail-prompt"' not in page(client, leo)
    mark(app, LEO[1])
    question, said = PROMPT[lang]
    seat_page = plain(page(client, leo))
    assert question in seat_page and said in seat_page
    settings = plain(page(client, f"{leo}/settings"))
    assert question in settings and said in settings
    # Signing in by a mailed link lands on /me, which asks too.
    smtpd.clear()
    assert client.post("/signin", data={"email": LEO[1]}).status_code == 200
    deliver(app)
    (mail,) = smtpd.to(LEO[1])  # a sign-in link is the owner's own ask: it still goes
    token = re.search(r"/signin/([A-Za-z0-9_.\-]+)", text_of(mail))
    assert token is not None
    landed = client.post(f"/signin/{token.group(1)}")
    assert landed.status_code == 303 and landed.headers["Location"].endswith("/me")
    home = plain(page(client, "/me"))
    assert question in home and said in home
    forms = [form_with(page(client, "/me"), end) for end in ("/me/mail/test", "/me/mail/address")]
    assert all(hidden(form)["csrf"] for form in forms)  # plain forms: no script needed
    # A complaint: the provider reported our mail as spam, and the same two ways back.
    mark(app, LEO[1], state="complained", reason="")
    home = plain(page(client, "/me"))
    spam = {"en": "reported a mail from pbem as spam", "fr": "comme indésirable"}
    assert spam[lang] in home and "/me/mail/test" in page(client, "/me")


def test_mail_me_a_test_turns_mail_back_on_and_sends_one(client: Any, app: Any, smtpd: Any) -> None:
    links = three_players(client, app, smtpd)
    leo = links[LEO[1]]
    mark(app, LEO[1])
    sent = client.post(f"{leo}/mail/test")
    assert sent.status_code == 303
    shown = plain(page(client, sent.headers["Location"]))
    assert "A test mail is on its way to leo@example.org, and your mail is back on." in shown
    row = address_row(app, LEO[1])
    assert row is not None and (row.state, row.score, row.since) == ("ok", 0, None)
    smtpd.clear()
    deliver(app)
    (mail,) = smtpd.to(LEO[1])  # through the real SMTP server
    assert mail["Subject"] == "pbem: the test mail you asked for"
    assert "mail from pbem reaches you again" in text_of(mail)
    # Mail is back on: no prompt for Léo, no notice for Ana.
    assert 'id="mail-prompt"' not in page(client, leo)
    assert notices(page(client, links[ANA[1]])) == []


def test_mail_me_a_test_signed_in_and_its_rate_limit(client: Any, app: Any, smtpd: Any) -> None:
    three_players(client, app, smtpd)
    sign_in_as(client, app, player_id(app, LEO[1]))
    for _ in range(3):
        mark(app, LEO[1])
        answer = client.post("/me/mail/test")
        assert answer.status_code == 303 and answer.headers["Location"].endswith("done=test")
    mark(app, LEO[1])
    refused = client.post("/me/mail/test")
    assert refused.status_code == 429
    # These limits count in days of UTC: the next begins at midnight UTC.
    assert (
        "You have asked for this as often as a day allows. Try again after Tue 3 Mar, 00:00 "
        "(UTC)." in plain(refused.get_data(as_text=True))
    )
    assert address_row(app, LEO[1]).state == "bouncing"  # type: ignore[union-attr]
    smtpd.clear()
    deliver(app)
    assert len(smtpd.to(LEO[1])) == 3
    # Signed out, /me/mail sends to the sign-in page.
    client.post("/signout")
    assert client.get("/me/mail").status_code == 303


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_new_address_changes_once_its_link_is_pressed(
    client: Any, app: Any, smtpd: Any, lang: str
) -> None:
    links = three_players(client, app, smtpd)
    set_player(app, LEO[1], lang=lang)
    leo, leo_id = links[LEO[1]], player_id(app, LEO[1])
    mark(app, LEO[1])
    asked = client.post(f"{leo}/mail/address", data={"email": "  Leo.New@Example.NET "})
    assert asked.status_code == 303 and asked.headers["Location"].endswith("done=address")
    smtpd.clear()
    deliver(app)
    assert smtpd.to(LEO[1]) == []  # the link goes to the new address only
    link = confirm_link(smtpd, NEW)
    subject = {"en": "pbem: confirm your new address", "fr": "confirmez votre nouvelle adresse"}
    assert subject[lang] in str(smtpd.to(NEW)[0]["Subject"])
    # Opening it (as a mail scanner does) changes nothing: it shows a button.
    shown = client.get(link)
    assert shown.status_code == 200 and player_row(app, leo_id).email == LEO[1]
    words = {"en": "Yes, use this address", "fr": "Oui, utiliser cette adresse"}
    assert words[lang] in plain(shown.get_data(as_text=True))
    form = form_with(shown.get_data(as_text=True), urlsplit(link).path)
    done = client.post(link, data=hidden(form))
    assert done.status_code == 200
    said = {"en": f"your game mail goes to {NEW} from now on", "fr": f"vont désormais à {NEW}"}
    assert said[lang] in plain(done.get_data(as_text=True))
    assert player_row(app, leo_id).email == NEW
    # The old address keeps its row; the new one has none: it is "ok".
    assert address_row(app, LEO[1]).state == "bouncing"  # type: ignore[union-attr]
    assert address_row(app, NEW) is None
    assert 'id="mail-prompt"' not in page(client, leo)
    assert notices(page(client, links[ANA[1]])) == []
    # Pressed again: said done, nothing else.
    again = client.post(link, data=hidden(form))
    assert again.status_code == 200 and player_row(app, leo_id).email == NEW


def test_refusals_are_clear_and_name_nobody(client: Any, app: Any, smtpd: Any) -> None:
    links = three_players(client, app, smtpd)
    leo = links[LEO[1]]
    mark(app, LEO[1])
    cases = [
        ("not an address", 400, "That does not look like an email address."),
        ("bot@computer.invalid", 400, "That does not look like an email address."),
        (LEO[1].upper(), 400, "That is the address we mail now."),
        (ZOE[1], 409, "Another player on pbem has that address already"),
    ]
    for typed, status, said in cases:
        answer = client.post(f"{leo}/mail/address", data={"email": typed})
        text = plain(answer.get_data(as_text=True))
        assert answer.status_code == status and said in text, (typed, text)
        assert "Zoé" not in text  # whose address it is, never said
    smtpd.clear()
    deliver(app)
    assert smtpd.messages == []


def test_a_forged_stale_or_late_link_is_refused(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    links = three_players(client, app, smtpd)
    leo, leo_id = links[LEO[1]], player_id(app, LEO[1])
    for bad in ("/address/nonsense", "/address/" + leo.rsplit("/", 1)[1]):  # a seat's token
        assert client.get(bad).status_code == 404
    smtpd.clear()
    assert client.post(f"{leo}/mail/address", data={"email": NEW}).status_code == 303
    assert client.post(f"{leo}/mail/address", data={"email": "leo@example.com"}).status_code == 303
    deliver(app)
    first, second = confirm_link(smtpd, NEW), confirm_link(smtpd, "leo@example.com")
    shown = client.get(second)
    pressed = client.post(second, data=hidden(form_with(shown.get_data(as_text=True), second)))
    assert pressed.status_code == 200
    assert player_row(app, leo_id).email == "leo@example.com"
    # The first link was for the address he had then: it no longer applies.
    stale = client.get(first)
    assert stale.status_code == 410
    assert "Your address has changed since this link was mailed" in plain(
        stale.get_data(as_text=True)
    )
    # A link past its three days.
    smtpd.clear()
    assert client.post(f"{leo}/mail/address", data={"email": NEW}).status_code == 303
    deliver(app)
    late = confirm_link(smtpd, NEW)
    form = hidden(form_with(client.get(late).get_data(as_text=True), late))
    clock.advance(days=3)
    refused = client.post(late, data=form)
    assert refused.status_code == 410 and "This link has expired" in plain(
        refused.get_data(as_text=True)
    )
    # Another player took the address meanwhile: refused, without saying who.
    clock.advance(days=-3)
    set_player(app, ZOE[1], email=NEW)
    taken = client.post(late, data=form)
    assert taken.status_code == 409 and "Zoé" not in taken.get_data(as_text=True)
    assert player_row(app, leo_id).email == "leo@example.com"
    # Without the form's token, the button does nothing.
    set_player(app, NEW, email=ZOE[1])
    assert client.post(late, data={}).status_code == 400
    assert player_row(app, leo_id).email == "leo@example.com"


def test_asking_for_new_addresses_is_rate_limited(client: Any, app: Any, smtpd: Any) -> None:
    links = three_players(client, app, smtpd)
    leo = links[LEO[1]]
    smtpd.clear()
    for _ in range(3):
        assert client.post(f"{leo}/mail/address", data={"email": NEW}).status_code == 303
    # At most three confirmation mails to one address a day, whoever asks.
    assert client.post(f"{leo}/mail/address", data={"email": NEW}).status_code == 429
    # At most five asks from one player a day.
    assert client.post(f"{leo}/mail/address", data={"email": "x@example.net"}).status_code == 303
    refused = client.post(f"{leo}/mail/address", data={"email": "y@example.net"})
    assert refused.status_code == 429
    deliver(app)
    assert len(smtpd.to(NEW)) == 3 and len(smtpd.to("x@example.net")) == 1
    assert smtpd.to("y@example.net") == []


def test_the_mail_page_in_french_and_with_mail_going_out(client: Any, app: Any, smtpd: Any) -> None:
    links = three_players(client, app, smtpd)
    set_player(app, LEO[1], lang="fr")
    shown = plain(page(client, f"{links[LEO[1]]}/mail"))
    assert "Nous vous écrivons à leo@example.org" in shown
    refused = client.post(f"{links[LEO[1]]}/mail/address", data={"email": "nope"})
    assert refused.status_code == 400
    assert "Cela ne ressemble pas à une adresse e-mail." in plain(refused.get_data(as_text=True))
    with write_session(engine_of(app)) as session:
        assert session.get(MailAddress, LEO[1]) is None


def test_retention_keeps_the_new_address_its_link_reads(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    """A site that keeps mail text a day still confirms a new address on day two: the
    confirmation's row keeps the address its link reads (pbem.storage.retention)."""
    links = three_players(client, app, smtpd)
    leo, leo_id = links[LEO[1]], player_id(app, LEO[1])
    mark(app, LEO[1])
    assert client.post(f"{leo}/mail/address", data={"email": NEW}).status_code == 303
    deliver(app)
    link = confirm_link(smtpd, NEW)
    clock.advance(days=2)
    prune(engine_of(app), clock.now, keep_days=1)
    shown = client.get(link)
    assert shown.status_code == 200
    form = form_with(shown.get_data(as_text=True), urlsplit(link).path)
    assert client.post(link, data=hidden(form)).status_code == 200
    assert player_row(app, leo_id).email == NEW
