"""Private notes: a seat keeps notes on its game, sees them on its page, in its export and
through its API link, and no one else ever does (the whole-game check of that is in
test_hidden_information.py); too long is refused with the text kept."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from typing import Any

from pbem.present.forms import NOTE_MAX
from tests.web.fantasy_business import EMAILS, Table
from tests.web.helpers import PLAYERS, start_game

ANA, LEO, ZOE = (email for _, email in PLAYERS)


def api(link: str) -> str:
    return "/api/v1/seat/" + link.rsplit("/", 1)[1] + "/notes"


def test_notes_are_kept_for_their_seat_alone(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    saved = client.post(f"{links[ANA]}/notes", data={"text": "Léo hoards <b>Moons</b>\r\n"})
    assert saved.status_code == 303 and saved.headers["Location"].endswith("#notes")
    page = client.get(saved.headers["Location"].split("#")[0]).get_data(as_text=True)
    # Kept as typed (markup as text), and said saved.
    assert "Léo hoards &lt;b&gt;Moons&lt;/b&gt;</textarea>" in page and "Notes saved." in page
    for other in (links[LEO], links[ZOE]):
        assert "hoards" not in client.get(other).get_data(as_text=True)
        assert "hoards" not in client.get(f"{other}/export.json").get_data(as_text=True)
        assert client.get(api(other)).get_json()["text"] == ""
    watch = page.split('href="http://pbem.test/w/')[1].split('"')[0]
    assert "hoards" not in client.get(f"/w/{watch}").get_data(as_text=True)
    assert "hoards" not in client.get(f"/w/{watch}/export.txt").get_data(as_text=True)
    exported = json.loads(client.get(f"{links[ANA]}/export.json").get_data(as_text=True))
    assert exported["notes"] == "Léo hoards <b>Moons</b>"
    text = client.get(f"{links[ANA]}/export.txt").get_data(as_text=True)
    assert text.endswith("My notes\n\nLéo hoards <b>Moons</b>\n")
    assert not any("hoards" in m.as_string() for m in smtpd.messages)


def test_the_page_script_saves_without_a_reload(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    answer = client.post(
        f"{links[LEO]}/notes", data={"text": "Moons first"}, headers={"X-Requested-With": "fetch"}
    )
    assert answer.status_code == 204 and answer.data == b""
    assert "Moons first</textarea>" in client.get(links[LEO]).get_data(as_text=True)
    # Cleared by saving nothing.
    client.post(f"{links[LEO]}/notes", data={"text": "  "}, headers={"X-Requested-With": "fetch"})
    assert client.get(api(links[LEO])).get_json()["text"] == ""


def test_notes_past_the_limit_are_refused_and_kept_in_the_box(
    client: Any, app: Any, smtpd: Any
) -> None:
    links, _ = start_game(client, app, smtpd)
    client.post(f"{links[ANA]}/notes", data={"text": "the old notes"})
    long = "x" * (NOTE_MAX + 1)
    refused = client.post(f"{links[ANA]}/notes", data={"text": long})
    assert refused.status_code == 400
    html = refused.get_data(as_text=True)
    assert f"Notes hold at most {NOTE_MAX} characters." in html
    assert "x" * NOTE_MAX + "</textarea>" in html  # what was typed, cut to the box's size
    assert client.get(api(links[ANA])).get_json()["text"] == "the old notes"
    fetched = client.post(
        f"{links[ANA]}/notes", data={"text": long}, headers={"X-Requested-With": "fetch"}
    )
    assert fetched.status_code == 400


def test_notes_through_the_api(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    path = api(links[ZOE])
    assert client.get(path).get_json() == {"text": "", "updated_at": None, "limit": NOTE_MAX}
    kept = client.put(path, json={"text": "Ana will take the Bard"})
    assert kept.status_code == 200 and kept.get_json()["text"] == "Ana will take the Bard"
    assert client.get(path).get_json()["updated_at"] is not None
    assert "take the Bard</textarea>" in client.get(links[ZOE]).get_data(as_text=True)
    too_long = client.put(path, json={"text": "y" * (NOTE_MAX + 1)})
    assert too_long.status_code == 400 and too_long.get_json()["error"] == "bad_request"
    french = client.put(f"{path}?lang=fr", json={"text": 3})
    assert french.status_code == 400 and "« text »" in french.get_json()["message"]
    assert client.get(path).get_json()["text"] == "Ana will take the Bard"


def test_my_notes_at_the_top_leads_to_the_notes_after_the_log(
    client: Any, app: Any, smtpd: Any
) -> None:
    links, _ = start_game(client, app, smtpd)
    page = client.get(links[ANA]).get_data(as_text=True)
    # One tap at the top of the page, on the line of the rules: no height added above the
    # table; the notes themselves come after the log, closed while empty.
    top = page[page.index("<h1>") : page.index('<p class="status">')]
    assert '<a href="?log=all&amp;notes=open#notes" class="to-notes">My notes</a>' in top
    assert page.index('id="log"') < page.index('id="notes"')
    assert '<details class="notes">' in page
    opened = client.get(f"{links[ANA]}?log=all&notes=open").get_data(as_text=True)
    assert '<details class="notes" open>' in opened
    assert "Mes notes" in client.get(f"{links[ANA]}?lang=fr").get_data(as_text=True)
    # Onlookers and replays have no notes, nor the link.
    watch = page.split('href="http://pbem.test/w/')[1].split('"')[0]
    for other in (f"/w/{watch}", f"{links[ANA]}/replay"):
        html = client.get(other).get_data(as_text=True)
        assert 'id="notes"' not in html and "to-notes" not in html


def test_fantasy_business_notes_open_from_the_top_without_javascript(
    client: Any, app: Any, smtpd: Any
) -> None:
    table = Table(client, app, smtpd)
    table.start()
    link = table.links[EMAILS[0]]
    page = client.get(link).get_data(as_text=True)
    assert 'class="to-notes"' in page
    # The link's page: the part holding talk, log and notes open, the notes open in it.
    opened = client.get(f"{link}?log=all&notes=open").get_data(as_text=True)
    assert details_around(opened, "note-text") == [True, True]
    assert details_around(page, "note-text") == [False, False]  # two taps deep without it


class _Around(HTMLParser):
    """The <details> elements around the element of an id, outermost first: open or not."""

    VOID = {"input", "br", "img", "meta", "link", "hr", "source", "use", "path", "circle"}

    def __init__(self, wanted: str) -> None:
        super().__init__()
        self.wanted, self.stack, self.found = wanted, [], None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id") == self.wanted and self.found is None:
            self.found = [open_ for name, open_ in self.stack if name == "details"]
        if tag not in self.VOID:
            self.stack.append((tag, "open" in found))

    def handle_endtag(self, tag: str) -> None:
        while self.stack and self.stack.pop()[0] != tag:
            pass


def details_around(html: str, element_id: str) -> list[bool]:
    parser = _Around(element_id)
    parser.feed(html)
    assert parser.found is not None, element_id
    return parser.found
