"""Helpers for driving pbem through its mails and pages, as a person would."""

from __future__ import annotations

import re
from email.message import EmailMessage
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlsplit

from pbem.clock.scheduler import drain_outbox
from pbem.models import Player
from pbem.storage.db import read_session
from pbem.web.signin import GENERATION, PLAYER

LINK = re.compile(r"http://pbem\.test(/[pw]/[A-Za-z0-9_.\-]+)")


def deliver(app: Any) -> dict[str, int]:
    """Run the outbox sender once, as the clock would."""
    return drain_outbox(app)


def sign_in_as(client: Any, app: Any, player_id: int) -> None:
    """Put the player's session in the client's cookie, as pressing a sign-in link does."""
    with read_session(app.extensions["pbem"]["engine"]) as session:
        player = session.get(Player, player_id)
        assert player is not None
        generation = player.session_generation
    with client.session_transaction() as cookie:
        cookie.permanent = True
        cookie[PLAYER], cookie[GENERATION] = player_id, generation


def forget_session(client: Any) -> None:
    """Empty the client's session cookie, as a device that never signed in."""
    with client.session_transaction() as cookie:
        cookie.clear()


def text_of(msg: EmailMessage) -> str:
    """The plain-text part of a mail."""
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return part.get_content()


def html_of(msg: EmailMessage) -> str:
    """The HTML part of a mail."""
    part = msg.get_body(preferencelist=("html",))
    assert part is not None
    return part.get_content()


def headline(msg: EmailMessage) -> str:
    """The first line of a mail's text, which mail clients show as its preview, lower-cased."""
    return text_of(msg).strip().splitlines()[0].lower()


class _Elements(HTMLParser):
    """Every element and attribute name of an HTML document."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [name for name, _ in attrs]


def injected(html: str) -> list[str]:
    """What markup in a player's name would have added to a mail: scripts, images, handlers.

    No HTML mail of ours holds a script element, an image or an on* attribute."""
    parser = _Elements()
    parser.feed(html)
    parser.close()
    return [t for t in parser.tags if t in ("script", "img")] + [
        a for a in parser.attributes if a.startswith("on")
    ]


def link_in(msg: EmailMessage, kind: str = "p") -> str:
    """The path of the first pbem link of `kind` in a mail's text part."""
    for match in LINK.finditer(text_of(msg)):
        path = match.group(1)
        if path.startswith(f"/{kind}/"):
            return urlsplit(path).path
    raise AssertionError("no link in mail:\n" + text_of(msg))


class Forms(HTMLParser):
    """Collect the forms of a page with their inputs."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, Any]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form":
            self.forms.append({"action": a.get("action"), "inputs": []})
        elif tag in ("input", "select", "button") and self.forms:
            self.forms[-1]["inputs"].append({"tag": tag, **a})


def forms_of(html: str) -> list[dict[str, Any]]:
    """Every form on the page."""
    parser = Forms()
    parser.feed(html)
    return parser.forms


def form_with(html: str, action_end: str) -> dict[str, Any]:
    """The form whose action ends with `action_end`."""
    for form in forms_of(html):
        if (form["action"] or "").endswith(action_end):
            return form
    raise AssertionError(f"no form posting to …{action_end}")


def radio_values(form: dict[str, Any], name: str) -> list[str]:
    """The values offered by a radio group."""
    return [
        i["value"] for i in form["inputs"] if i.get("type") == "radio" and i.get("name") == name
    ]


def hidden(form: dict[str, Any]) -> dict[str, str]:
    """The hidden fields of a form."""
    return {i["name"]: i.get("value", "") for i in form["inputs"] if i.get("type") == "hidden"}


PLAYERS = [("Ana", "ana@example.org"), ("Léo", "leo@example.org"), ("Zoé", "zoe@example.org")]


def start_game(
    client: Any, app: Any, smtpd: Any, courts: bool = False
) -> tuple[dict[str, str], int]:
    """Create a game from the lobby form and have everyone join by their mailed link;
    return each player's link and the index of the first mail sent at the start."""
    form = {"game": "colour-bazaar"}
    if courts:
        form["opt_colour-bazaar_courts"] = "1"
    for row, (name, email) in enumerate(PLAYERS):
        form[f"name_{row}"] = name
        form[f"email_{row}"] = email
    response = client.post("/games", data=form)
    assert response.status_code == 303
    deliver(app)
    links = {}
    for name, email in PLAYERS:
        (mail,) = smtpd.to(email)
        links[email] = link_in(mail)
        if name != "Ana":
            assert "invites you" in headline(mail)
            page = client.get(links[email])
            assert page.status_code == 200 and b"Join the game" in page.data
            assert client.post(f"{links[email]}/join").status_code == 303
    first = len(smtpd.messages)
    deliver(app)
    return links, first


def review_page(client: Any, link: str, data: dict[str, str]) -> Any:
    """Post a turn form for review: the answer is a redirect to the review page (POST,
    redirect, GET), which is fetched and returned."""
    posted = client.post(f"{link}/move", data=data)
    if posted.status_code != 303:
        return posted  # a refusal is answered in place
    location = posted.headers["Location"]
    assert location.endswith("review=1#confirm"), location
    return client.get(location.split("#")[0])


def play_turn(client: Any, link: str) -> None:
    """Open the page, pick the first offered card and chip, review, confirm."""
    page = client.get(link)
    assert page.status_code == 200, page.data
    html = page.get_data(as_text=True)
    form = form_with(html, "/move")
    data = hidden(form)
    data["play"] = radio_values(form, "play")[0]
    data["chip"] = radio_values(form, "chip")[0]
    reviewed = review_page(client, link, data)
    assert reviewed.status_code == 200
    confirm = form_with(reviewed.get_data(as_text=True), "/move")
    data = hidden(confirm)
    assert data["confirm"] == "1"
    sent = client.post(f"{link}/move", data=data)
    assert sent.status_code == 303, sent.data
