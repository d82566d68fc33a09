"""The mails a group gets, as delivered over SMTP: one subject for the whole game (one thread
in every client), what is new in the first line (the preview), an invitation that says
what the game is, and one thread id per game on every host and after the setting changes."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import text

from pbem import create_app, play
from pbem.config import ConfigError
from pbem.play import Invitee
from pbem.storage.db import MIGRATIONS, migrate, write_session
from tests.app import make_test_app
from tests.clock.helpers import run_sweep
from tests.settings import app_settings
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


def references(mails: list[Any]) -> set[str]:
    """The thread ids the mails refer to (In-Reply-To and References name the same one)."""
    assert all(str(m["In-Reply-To"]) == str(m["References"]) for m in mails)
    return {str(m["References"]) for m in mails}


def test_hosts_set_otherwise_keep_a_game_in_one_thread(
    database_url: str, clock: Any, smtpd: Any, tmp_path: Any
) -> None:
    """Two hosts on one database, with different senders and base URLs, mail one game: every
    mail refers to the thread the game was given when it was made (issue 45: a game's mails
    came as `<game-1@localhost>` and `<game-1@pbem.test>`, two threads in a mail client)."""
    made_here = make_test_app(
        database_url, clock, smtpd, tmp_path / "a", MAIL_FROM="pbem@localhost"
    )
    other = make_test_app(
        database_url,
        clock,
        smtpd,
        tmp_path / "b",
        MAIL_FROM="games@mail.example.org",
        BASE_URL="https://play.example.org",
    )
    try:
        links, first = start_game(made_here.test_client(), made_here, smtpd)
        for host in (other, made_here, other):
            mover = next(m for m in smtpd.messages[first:] if headline(m).startswith("your move"))
            first = len(smtpd.messages)
            play_turn(host.test_client(), links[recipient(mover)])
            deliver(host)
        sent_by_other = smtpd.messages[first:]
        assert sent_by_other and references(sent_by_other) == {"<game-1@pbem.test>"}
        assert references(smtpd.messages) == {"<game-1@pbem.test>"}
        # Each mail's own Message-ID takes the domain of its host's base URL, not the sender's.
        assert all(str(m["Message-ID"]).endswith("@play.example.org>") for m in sent_by_other)
    finally:
        for host in (made_here, other):
            host.extensions["pbem"]["engine"].dispose()


def test_the_thread_domain_setting_names_new_games_threads(
    database_url: str, clock: Any, smtpd: Any, tmp_path: Any
) -> None:
    """PBEM_THREAD_DOMAIN, when set, is the domain of threads and Message-IDs on every host."""
    app = make_test_app(database_url, clock, smtpd, tmp_path, THREAD_DOMAIN="Play.Example.org")
    try:
        start_game(app.test_client(), app, smtpd)
        assert references(smtpd.messages) == {"<game-1@play.example.org>"}
        assert all(str(m["Message-ID"]).endswith("@play.example.org>") for m in smtpd.messages)
    finally:
        app.extensions["pbem"]["engine"].dispose()


@pytest.mark.parametrize("bad", ["pbem example.org", "<x>", "a@b.org", "-x.org", "x..org"])
def test_a_thread_domain_that_is_no_domain_stops_the_start(bad: str, tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'never.sqlite3'}"
    with pytest.raises(ConfigError, match="PBEM_THREAD_DOMAIN"):
        create_app(app_settings(url, tmp_path, THREAD_DOMAIN=bad))


def step_to(database_url: str, revision: str) -> None:
    """Take the database down to `revision` (the migrations' downgrades)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    command.downgrade(cfg, revision)


def test_a_game_made_before_games_kept_threads_keeps_the_one_its_players_see(
    database_url: str, clock: Any, smtpd: Any, tmp_path: Any
) -> None:
    """A database at 0025 (before games kept their thread) holds a game whose first mails
    went out as <game-1@localhost> and whose later ones, from a host set otherwise, as
    <game-1@pbem.test>, and a game that never mailed. The upgrade gives the first game the
    thread of its first mail, which it keeps after the setting has changed; the second the
    domain in force."""
    before = make_test_app(database_url, clock, smtpd, tmp_path / "before")
    engine = before.extensions["pbem"]["engine"]
    try:
        links, first = start_game(before.test_client(), before, smtpd)
        site, now = before.extensions["pbem"]["site"], clock()
        with write_session(engine) as session:
            pair = [Invitee("Bo", "bo@example.org"), Invitee("Cy", "cy@example.org")]
            quiet = play.create_game(session, site, "colour-bazaar", pair, {}, now, invite=False)
            assert quiet.id == 2
        step_to(database_url, "0025")
        with engine.begin() as conn:
            # The mails as hosts set otherwise wrote them: the first ones at localhost.
            conn.execute(text("UPDATE outbox SET thread_id = '<game-1@localhost>' WHERE id <= 3"))
            assert conn.execute(text("SELECT count(*) FROM outbox WHERE game_id = 2")).scalar() == 0
        migrate(database_url, thread_domain="pbem.example.org")
        with engine.connect() as conn:
            threads = dict(conn.execute(text("SELECT id, thread FROM game ORDER BY id")).all())
        assert threads == {1: "<game-1@localhost>", 2: "<game-2@pbem.example.org>"}
        after = make_test_app(
            database_url, clock, smtpd, tmp_path / "after", THREAD_DOMAIN="pbem.example.org"
        )
        mover = next(m for m in smtpd.messages[first:] if headline(m).startswith("your move"))
        first = len(smtpd.messages)
        play_turn(after.test_client(), links[recipient(mover)])
        deliver(after)
        assert smtpd.messages[first:]
        assert references(smtpd.messages[first:]) == {"<game-1@localhost>"}
        after.extensions["pbem"]["engine"].dispose()
    finally:
        migrate(database_url)  # leave the shared test database at the head
        engine.dispose()
