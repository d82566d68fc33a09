"""A Fantasy Business game played through the web pages as its players would (Table), and
what the tests read of it: its mails, its stored state, what a page hides."""

from __future__ import annotations

import os
import re
from collections import deque
from email.message import EmailMessage
from html.parser import HTMLParser
from typing import Any

from pbem.games import GAMES
from pbem.games.fantasy_business.cards import card_type, is_special
from pbem.models import Game
from pbem.present.text import card_name
from pbem.storage.db import read_session, write_session
from tests.web.helpers import (
    deliver,
    headline,
    hidden,
    html_of,
    link_in,
    radio_values,
    review_page,
    text_of,
)

SLUG = "fantasy-business"
# Whole games are reproducible: a fixed seed (PBEM_TEST_FB_SEED tries another).
SEED = int(os.environ.get("PBEM_TEST_FB_SEED", "5"))
PLAYERS = [
    ("Ana", "ana@example.org"),
    ("Léo", "leo@example.org"),
    ("Zoé", "zoe@example.org"),
    ("Max", "max@example.org"),
]
EMAILS = [email for _, email in PLAYERS]
SUBJECTS = {"en": ("your move", "game over"), "fr": ("à vous de jouer", "partie terminée")}


class PageForms(HTMLParser):
    """The forms of a page: inputs and buttons with their attributes, selects with options."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, Any]] = []
        self._select: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form":
            self.forms.append({"action": a.get("action") or "", "inputs": [], "selects": {}})
        elif not self.forms:
            return
        elif tag in ("input", "button"):
            self.forms[-1]["inputs"].append({"tag": tag, **a})
        elif tag == "select":
            self._select = self.forms[-1]["selects"].setdefault(a.get("name") or "", [])
        elif tag == "option" and self._select is not None:
            self._select.append(a.get("value") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None


def move_form(html: str) -> dict[str, Any] | None:
    """The turn (or confirmation) form of a page: the one form that posts a move, or None."""
    start = html.find('<section class="yourturn"')
    if start < 0:
        assert "/move" not in html
        return None
    parser = PageForms()
    parser.feed(html[start : html.index("</section>", start)])
    forms = [f for f in parser.forms if f["action"].endswith("/move")]
    assert len(forms) <= 1
    return forms[0] if forms else None


def actions(form: dict[str, Any]) -> list[str]:
    """The values of the form's submit buttons named "action"."""
    return [
        str(i.get("value"))
        for i in form["inputs"]
        if i["tag"] == "button" and i.get("name") == "action"
    ]


def numbers(form: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {i["name"]: i for i in form["inputs"] if i.get("type") == "number"}


def sensible_move(form: dict[str, Any], play_specials: bool) -> dict[str, str]:
    """What a careful, frugal player submits from the page's form."""
    data = hidden(form)
    buttons = actions(form)
    if "order" in buttons:
        # The order of sale: the row backwards, by the numbered places (no script needed).
        places = sorted(name for name in form["selects"] if name.startswith("place_"))
        data["action"] = "order"
        data.update({name: str(len(places) - k) for k, name in enumerate(places)})
    elif "limits" in buttons:
        # A limit per card: one écu over the base price when it can be paid, else none.
        data["action"] = "limits"
        for name, field in numbers(form).items():
            base, high = int(field["data-base"]), int(field["max"])
            data[name] = str(min(base + 1, high) if base <= high else 0)
    elif "specials" in buttons:
        data["action"] = "specials"
        ticks = [i["name"] for i in form["inputs"] if i.get("type") == "checkbox"]
        if play_specials and ticks:
            card = ticks[0][len("use_") :]
            data[ticks[0]] = "1"
            options = form["selects"].get(f"pick_{card}")
            if options:
                data[f"pick_{card}"] = options[0]
    elif "limit" in buttons:
        amount = numbers(form)["amount"]
        base, high = int(amount["data-base"]), int(amount["max"])
        data.update(action="limit", amount=str(base if base <= high else 0))
    elif "choose" in buttons:
        data.update(action="choose", slot=radio_values(form, "slot")[0])
    elif "prices" in buttons:
        # The defaults: last round's price, or the base price for a new article.
        data["action"] = "prices"
        data.update({name: i["value"] for name, i in numbers(form).items()})
    elif "done" in buttons:
        plays = [b for b in buttons if b.startswith("play:")]
        data["action"] = "done"
        if play_specials and plays:
            card = plays[0][len("play:") :]
            data["action"] = plays[0]
            options = form["selects"].get(f"pick_{card}")
            if options:
                data[f"pick_{card}"] = options[0]
    elif "take" in buttons:
        data["action"] = "take"
    elif "bid" in buttons:
        amount = numbers(form)["amount"]
        low, high, base = int(amount["min"]), int(amount["max"]), int(amount["data-base"])
        if low == 0:  # a sealed bid: the base price when affordable, else no bid
            data.update(action="bid", amount=str(base if base <= high else 0))
        elif low <= base + 1 and low <= high:  # open: outbid once at most, then let go
            data.update(action="bid", amount=str(low))
        else:
            data["action"] = "pass"
    else:
        assert buttons == ["pass"], buttons
        data["action"] = "pass"
    return data


def submit(client: Any, link: str, data: dict[str, str]) -> str:
    """Review the move, then send it from the confirmation form; the page it leads to."""
    review = review_page(client, link, data)
    assert review.status_code == 200, review.get_data(as_text=True)
    confirm = move_form(review.get_data(as_text=True))
    assert confirm is not None
    sent = hidden(confirm)
    assert sent["confirm"] == "1" and sent["action"] == data["action"]
    answer = client.post(f"{link}/move", data=sent)
    assert answer.status_code == 303, answer.get_data(as_text=True)
    location = answer.headers["Location"]
    assert location.split("?")[0].endswith(link)
    return location


def recipient(mail: EmailMessage) -> str:
    return str(mail["To"]).split("<")[1].rstrip(">")


def stored(app: Any) -> Game:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, 1)
        assert game is not None
        session.expunge(game)
        return game


def secret_specials(state: dict[str, Any], viewer: int | None) -> tuple[set[str], set[str]]:
    """Special card ids `viewer` may not see, and the kinds whose name would give one away."""
    secret = {c for s, held in enumerate(state["specials"]) if s != viewer for c in held}
    secret |= set(state["unseen"])
    secret |= {
        c for slot, c in enumerate(state["row"]) if is_special(c) and slot in state["pending"]
    }
    if (
        state["auction"]
        and state["auction"]["kind"] == "lot"
        and is_special(state["auction"]["card"])
    ):
        secret.add(state["auction"]["card"])
    public = {card_type(c) for c in state["discard"] if is_special(c)}  # played: face up
    if viewer is not None:
        public |= {card_type(c) for c in state["specials"][viewer]}
        public |= {
            card_type(lot["card"])
            for record in state["history"]
            for lot in record["lots"]
            if lot["winner"] == viewer and is_special(lot["card"])
        }
    return secret, {card_type(c) for c in secret} - public


def assert_hides(html: str, state: dict[str, Any], viewer: int | None, where: str) -> None:
    """No other seat's special card, and no face-down one, by id or by name."""
    secret, kinds = secret_specials(state, viewer)
    for card in secret:
        found = re.search(re.escape(card) + r"(?!\d)", html)
        context = html[max(0, found.start() - 300) : found.end() + 100] if found else ""
        assert not found, f"{card} on {where}: {context}"
    for kind in kinds:
        for lang in ("en", "fr"):
            name = card_name(kind, lang)
            assert not re.search(rf"\b{re.escape(name)}\b", html), f"{name} on {where}"


def assert_shows_own(html: str, state: dict[str, Any], viewer: int) -> None:
    """The check has teeth: the seat's own specials are named on its page."""
    for card in state["specials"][viewer]:
        assert any(card_name(card, lang) in html for lang in ("en", "fr")), card


class Table:
    """Four players following their mail: each "your move" mail is opened and played in turn."""

    def __init__(self, client: Any, app: Any, smtpd: Any, lang: str = "en") -> None:
        self.client, self.app, self.smtpd, self.lang = client, app, smtpd, lang
        self.queue: deque[EmailMessage] = deque()
        self.over: list[EmailMessage] = []
        self.links: dict[str, str] = {}
        self.seen = 0
        self.moves = 0
        self.watch = ""
        self.current: int | None = None

    def start(self, seed: int = SEED, **options: str) -> None:
        """Create the game from the lobby form with a fixed seed (the lobby draws a random one;
        the deal, at the last join, reads it); everyone joins by their mailed link."""
        form = {"game": SLUG, **{f"opt_{SLUG}_{k}": v for k, v in options.items()}}
        for row, (name, email) in enumerate(PLAYERS):
            form[f"name_{row}"] = name
            form[f"email_{row}"] = email
        assert self.client.post(f"/games?lang={self.lang}", data=form).status_code == 303
        with write_session(self.app.extensions["pbem"]["engine"]) as session:
            game = session.get(Game, 1)
            assert game is not None and game.state is None  # not dealt yet
            game.seed = seed
            game.deal_secret = None  # a seed given: no checkable deal to derive it at the start
        deliver(self.app)
        for email in EMAILS:
            (mail,) = self.smtpd.to(email)
            self.links[email] = link_in(mail)
            if email != EMAILS[0]:
                assert self.client.post(f"{self.links[email]}/join").status_code == 303
        self.seen = len(self.smtpd.messages)
        deliver(self.app)
        self.collect()
        assert self.queue, "nobody was told to move"
        page = self.client.get(self.links[EMAILS[0]]).get_data(as_text=True)
        self.watch = page.split('href="http://pbem.test/w/')[1].split('"')[0]

    def collect(self) -> None:
        """File the mails delivered since the last look."""
        your_move, game_over = SUBJECTS[self.lang]
        state = stored(self.app).state if self.links else None
        for mail in self.smtpd.messages[self.seen :]:
            if state is not None:
                seat = EMAILS.index(recipient(mail))
                assert_hides(text_of(mail) + html_of(mail), state, seat, f"mail to seat {seat}")
            subject = headline(mail)
            if game_over in subject:
                self.over.append(mail)
            elif your_move in subject:
                self.queue.append(mail)
        self.seen = len(self.smtpd.messages)

    def check_all_pages(self) -> None:
        state = stored(self.app).state
        for seat, email in enumerate(EMAILS):
            html = self.client.get(self.links[email]).get_data(as_text=True)
            assert_hides(html, state, seat, f"page of seat {seat}")
            assert_shows_own(html, state, seat)
        html = self.client.get(f"/w/{self.watch}").get_data(as_text=True)
        assert_hides(html, state, None, "spectator page")
        # The replay as it stands, and the exported log, hide the same as the pages.
        for seat, email in enumerate(EMAILS):
            for path in ("/replay", "/export.json", "/export.txt"):
                body = self.client.get(self.links[email] + path).get_data(as_text=True)
                assert_hides(body, state, seat, f"{path} of seat {seat}")
        for path in ("/replay", "/export.json", "/export.txt"):
            body = self.client.get(f"/w/{self.watch}{path}").get_data(as_text=True)
            assert_hides(body, state, None, f"spectator {path}")

    def next_seat(self, state: dict[str, Any]) -> int | None:
        """Who plays next: the seat still on its page after its own move if it is due again
        (no mail comes then: the page it lands on shows the next form), else the next mail."""
        due = GAMES[SLUG].to_act(state)
        if self.current is not None and self.current in due:
            return self.current
        self.current = None
        if not self.queue:
            return None
        mail = self.queue.popleft()
        email = recipient(mail)
        assert link_in(mail) == self.links[email]
        seat = EMAILS.index(email)
        assert seat in due, f"a your-move mail to seat {seat}, who is not due"
        return seat

    def played_by_hand(self, seat: int) -> None:
        """Forget the mail of a seat whose move a test made itself."""
        self.queue = deque(m for m in self.queue if recipient(m) != EMAILS[seat])
        if self.current == seat:
            self.current = None

    def play(self, play_specials: bool = False, until: Any = None, limit: int = 600) -> None:
        """Answer "your move" mails until none is left (or `until(state)` holds)."""
        while True:
            state = stored(self.app).state
            if until is not None and until(state):
                return
            seat = self.next_seat(state)
            if seat is None:
                return
            link = self.links[EMAILS[seat]]
            page = self.client.get(link)
            assert page.status_code == 200
            html = page.get_data(as_text=True)
            assert_hides(html, state, seat, f"page of seat {seat}")
            assert_shows_own(html, state, seat)
            form = move_form(html)
            assert form is not None, f"no turn form for seat {seat} at {state['step']}"
            submit(self.client, link, sensible_move(form, play_specials))
            self.current = seat
            self.moves += 1
            assert self.moves <= limit
            deliver(self.app)
            self.collect()
            if self.moves % 40 == 0:
                self.check_all_pages()
