"""The mails a group gets, as delivered over SMTP: one subject for the whole game (one thread
in every client), what is new in the first line (the preview), and an invitation that says
what the game is."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

from tests.clock.helpers import run_sweep
from tests.web.helpers import PLAYERS, deliver, headline, html_of, play_turn, start_game, text_of

SUBJECTS = {
    "ana@example.org": "Colour Bazaar #1 with Léo and Zoé",
    "leo@example.org": "Colour Bazaar #1 with Ana and Zoé",
    "zoe@example.org": "Colour Bazaar #1 with Ana and Léo",
}


class FirstText(HTMLParser):
    """The first paragraph's text of an HTML part."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.done = False
        self.text = ""

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag == "p" and not self.done:
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "p" and self.depth:
            self.depth, self.done = 0, True

    def handle_data(self, data: str) -> None:
        if self.depth and not self.done:
            self.text += data


def first_text(html: str) -> str:
    parser = FirstText()
    parser.feed(html)
    return re.sub(r"\s+", " ", parser.text).strip()


def recipient(mail: Any) -> str:
    return str(mail["To"]).split("<")[1].rstrip(">")


def test_every_mail_of_a_game_keeps_one_subject(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    links, first = start_game(client, app, smtpd)
    for _ in range(3):
        mover = next(m for m in smtpd.messages[first:] if headline(m).startswith("your move"))
        first = len(smtpd.messages)
        play_turn(client, links[recipient(mover)])
        deliver(app)
    clock.advance(hours=25)  # the reminder 24 h after the turn began
    run_sweep(app)
    deliver(app)
    lines = [headline(m) for m in smtpd.messages]
    for kind in ("your game is set up", "invites you", "everyone has joined", "your move, "):
        assert any(kind in line for line in lines), (kind, lines)
    assert lines[-1].startswith("still your move, ")  # the reminder
    for email, subject in SUBJECTS.items():
        mails = smtpd.to(email)
        assert len(mails) >= 3
        assert {str(m["Subject"]) for m in mails} == {subject}


def test_the_first_line_says_whose_move_and_until_when(client: Any, app: Any, smtpd: Any) -> None:
    links, first = start_game(client, app, smtpd)
    (turn,) = [m for m in smtpd.messages[first:] if headline(m).startswith("your move")]
    name = dict((email, name) for name, email in PLAYERS)[recipient(turn)]
    # The clock starts on Monday 2 March 2026 at 09:00 UTC; three days per move.
    expected = f"Your move, {name}: 3 days left (until Thu 5 Mar, 09:00)"
    assert text_of(turn).splitlines()[0] == expected
    assert first_text(html_of(turn)) == expected
    # The full deadline, with its zone, and the one link right under it.
    lines = text_of(turn).splitlines()
    assert lines[2] == "Play by Thursday 5 March 2026, 09:00 (UTC) (3 days left)."
    here = lines.index("Play here:")
    assert here <= 4 and lines[here + 1].startswith("http://pbem.test/p/")


def test_the_invitation_says_what_the_game_is(client: Any, app: Any, smtpd: Any) -> None:
    form = {"game": "colour-bazaar", "opt_colour-bazaar_courts": "1", "days_per_move": "5"}
    for row, (name, email) in enumerate(PLAYERS):
        form[f"name_{row}"], form[f"email_{row}"] = name, email
    assert client.post("/games", data=form).status_code == 303
    deliver(app)
    (invitation,) = smtpd.to("zoe@example.org")
    text, html = text_of(invitation), html_of(invitation)
    assert text.splitlines()[0] == ("Zoé, Ana invites you to a game of Colour Bazaar, with Léo.")
    for part in (text, html):
        assert "a Decktet card game of fashion and investment" in part
        assert "Players: Ana, Léo and Zoé." in part
        assert "Time: 5 days per move." in part
        assert "Add the four Courts (extended deck, royal edicts): yes" in part
        assert "Who plays first: Chosen at random" in part
        assert "http://pbem.test/rules/colour-bazaar" in part
    assert str(invitation["Subject"]) == SUBJECTS["zoe@example.org"]


def test_french_mail_keeps_its_subject_and_says_the_move_first(
    client: Any, app: Any, smtpd: Any
) -> None:
    form = {"game": "colour-bazaar", "opt_colour-bazaar_first": "1"}
    for row, (name, email) in enumerate(PLAYERS[:2]):
        form[f"name_{row}"], form[f"email_{row}"] = name, email
    assert client.post("/games?lang=fr", data=form).status_code == 303
    deliver(app)
    (invitation,) = smtpd.to("leo@example.org")
    assert str(invitation["Subject"]) == "Colour Bazaar #1 avec Ana"
    link = re.search(r"http://pbem\.test(/p/\S+)", text_of(invitation)).group(1)
    assert client.post(f"{link}/join").status_code == 303
    deliver(app)
    turn = smtpd.to("leo@example.org")[-1]
    assert str(turn["Subject"]) == "Colour Bazaar #1 avec Ana"
    assert text_of(turn).splitlines()[0] == (
        "À vous de jouer, Léo\u00a0: il reste 3\u00a0jours (jusqu'au jeu. 5 mars à 09:00)"
    )
