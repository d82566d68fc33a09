"""Promise 4: no page or mail for one seat shows what that seat may not see.

Whole games of both games, in English and in French, with fixed seeds (so that a failure
comes back on every run). At every ply each seat's reachable pages are searched: the
invitation (join) page, the table, the settings, the review of a move ("Check your move")
and its "Change it", a stale form, a refused move, the replay and the exported log, the
player's games (/me), the page that asks before leaving, and at the end the results and
the seat's review of the game (with its mail); so
are the spectator page (with its replay and export), the page and API answer of a league
the game is part of, the operator's /readyz and /metrics (searched as a spectator's), and
every mail: the turn mails with
their example answer (moves by reply, issue 14), pbem's answers to replies it refuses
(sent through the real `pbem inbound` listener), the mail saying a chat webhook was
switched off, and every chat-room webhook payload (a seat's own webhook as that seat, the
table's as a spectator). Two checks:

- by name: no card (by name, in either language) the viewer may not see;
- by the deal: a checkable deal's secret, salt and shares show nowhere before the end;
- by notes: each seat's private notes hold a word of its own, found on that seat's page and
  export and nowhere else (no other seat, spectator, mail or webhook);
- by difference: changing what the viewer may not see (the cards of other hands and of
  the draw pile, others' sealed bids and prices) leaves every page of the viewer unchanged.
"""

from __future__ import annotations

import json
import random
import re
import socket
from collections.abc import Iterator
from html import unescape
from typing import Any

import pytest
from sqlmodel import select

from pbem.clock.scheduler import computer_moves
from pbem.games import GAMES
from pbem.mailin.server import InboundController, make_controller
from pbem.models import (
    Game,
    League,
    LeagueGame,
    LeagueMember,
    Move,
    Outbox,
    Player,
    Seat,
    Webhook,
    WebhookDelivery,
)
from pbem.present.text import card_name
from pbem.storage.db import read_session, write_session
from pbem.storage.store import seats_of
from pbem.webhooks.deliver import drain as drain_webhooks
from pbem.webhooks.events import body_of
from pbem.webhooks.registry import add_webhook
from tests.app import make_test_app
from tests.mailin.helpers import addr, answer, send
from tests.web.fantasy_business import assert_hides as assert_hides_specials
from tests.web.fantasy_business import move_form, sensible_move
from tests.web.helpers import (
    deliver,
    forget_session,
    form_with,
    hidden,
    html_of,
    injected,
    link_in,
    radio_values,
    review_page,
    sign_in_as,
    text_of,
    whole_state,
)

# Names are the creator's to choose: two are markup, which every page and mail shows as text.
PLAYERS = {
    "colour-bazaar": [
        ("Ana", "ana@example.org"),
        ("Léo<script>alert(1)</script>", "leo@example.org"),
        ('Zoé"><img src=x onerror=alert(2)>', "zoe@example.org"),
    ],
    "fantasy-business": [
        ("Ana", "ana@example.org"),
        ("Léo<script>alert(1)</script>", "leo@example.org"),
        ('Zoé"><img src=x onerror=alert(2)>', "zoe@example.org"),
    ],
}
LEAGUE_KEY = "walkleaguekey"
CSRF = re.compile(r'name="csrf" value="[^"]*"')
# Colour Bazaar, seed 21: Léo shows his hand to a royal edict, then discards one of the
# cards shown face down (the case that made this test fail now and then).
CB_SEED = 21


# Page parts added with issues 31 and 47 (Fantasy Business): the walk must reach each of them,
# so that both checks (by name, by difference) cover them.
ELEMENTS = (
    'class="fb-cards"',
    'class="fb-who"',
    'class="fb-outcome"',
    'class="fb-sales"',
    'class="fb-rivals"',
    'fb-income"',
)
REPLY_DOMAIN = "in.pbem.test"
# A closed loopback port: every webhook post fails, so each webhook ends switched off.
DEAD_HOOK = "http://127.0.0.1:9/hook"
REFUSALS_PER_SEAT = 3  # below the listener's answers-per-hour limit


METRICS_TOKEN = "hidden-information-metrics-token"
REVIEW_SIMULATIONS = 4  # the game reviews asked at the end: their words are searched, not play


@pytest.fixture
def app(database_url: str, clock: Any, smtpd: Any, tmp_path: Any) -> Any:
    """The test app of tests/conftest.py, with moves by reply and loopback webhooks on."""
    app = make_test_app(
        database_url, clock, smtpd, tmp_path,
        REPLY_DOMAIN=REPLY_DOMAIN, WEBHOOK_ALLOW_LOOPBACK=True, WEBHOOK_TIMEOUT=0.5,
        METRICS_TOKEN=METRICS_TOKEN, REVIEW_SIMULATIONS=REVIEW_SIMULATIONS,
    )  # fmt: skip
    yield app
    app.extensions["pbem"]["engine"].dispose()


@pytest.fixture
def inbound(app: Any) -> Iterator[InboundController]:
    """`pbem inbound` on a free loopback port, for the replies pbem refuses."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    ext = app.extensions["pbem"]
    controller = make_controller(
        ext["engine"], ext["site"], ext["settings"], "127.0.0.1", port, clock=app.config["CLOCK"]
    )
    controller.start()
    try:
        yield controller
    finally:
        controller.stop()


# --- the game on the database -------------------------------------------------------------


def stored(app: Any) -> Game:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, 1)
        assert game is not None
        session.expunge(game)
        return game


def moves(app: Any) -> list[Move]:
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return list(session.exec(select(Move).where(Move.game_id == 1).order_by(Move.ply)))  # type: ignore[arg-type]


def put_state(app: Any, state: dict[str, Any]) -> None:
    with write_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, 1)
        assert game is not None
        game.state = state
        session.add(game)


def put_seed(app: Any, seed: int) -> None:
    with write_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, 1)
        assert game is not None and game.state is None  # not dealt yet
        game.seed = seed
        game.deal_secret = None  # a seed given: no checkable deal to derive it at the start
        session.add(game)


# --- what a viewer may not see: Colour Bazaar ---------------------------------------------


def cb_hidden(state: dict[str, Any], viewer: int | None) -> set[str]:
    """Others' cards never shown to everyone: in hand or discarded face down.

    A hand shown to an edict stays in the log as it was shown; that is public history.
    """
    shown = {card for reveal in state["reveals"] for card in reveal["cards"]}
    secret = set()
    for seat, hand in enumerate(state["hands"]):
        if seat != viewer:
            secret |= set(hand) - shown
    secret |= {card for seat, card in state["discards"] if seat != viewer and card not in shown}
    return secret


def cb_certainly_held(state: dict[str, Any], log: list[Any]) -> list[set[str]]:
    """Per seat, the shown cards everyone can be sure it still holds, worked out from the
    public log: a reveal shows the hand; a card played face up leaves it; after a face-down
    discard any shown card may be the one that went, so none is sure any more."""
    sure: list[set[str]] = [set() for _ in range(state["n"])]
    reveals = {reveal["ply"]: reveal for reveal in state["reveals"]}
    for number, row in enumerate(log, start=1):
        move = row.move
        if move.get("discard") is not None:
            sure[row.seat] = set()
        elif move.get("card") is not None:
            sure[row.seat].discard(move["card"])
        if number in reveals:
            sure[reveals[number]["seat"]] = set(reveals[number]["cards"])
    return sure


def cb_check(
    html: str,
    state: dict[str, Any],
    viewer: int | None,
    names: list[str],
    where: str,
    log: list[Any],
) -> None:
    text = unescape(html)  # "L'Aubaine" is written L&#39;Aubaine in a page
    for card in cb_hidden(state, viewer):
        for lang in ("en", "fr"):
            assert card_name(card, lang) not in text, f"{card} shown in {where}"
        assert f'value="{card}@' not in html and f"discard:{card}" not in html, where
    # The table says which shown cards a player still holds: exactly those everyone is sure of.
    sure = cb_certainly_held(state, log)
    for seat, name in enumerate(names):
        line = re.search(rf"<li>{re.escape(name)}: [^<]*(cards in hand|en main)[^<]*</li>", text)
        if line is None or seat == viewer:
            continue
        claimed = line.group(0).split("—", 1)[1] if "—" in line.group(0) else ""
        named = {
            c
            for c in state["hands"][seat] + [c for _, c in state["discards"]]
            if any(card_name(c, lang) in claimed for lang in ("en", "fr"))
        }
        assert named == sure[seat], f"{where}: {name} said to hold {named}, sure of {sure[seat]}"


def cb_shuffle(state: dict[str, Any], viewer: int | None, rng: random.Random) -> dict[str, Any]:
    """The same table for `viewer` with every card it may not see dealt differently."""
    new = {
        **state,
        "hands": [list(h) for h in state["hands"]],
        "discards": [list(d) for d in state["discards"]],
    }
    slots: list[tuple[str, int, int]] = []
    pool: list[str] = []
    for seat, hand in enumerate(new["hands"]):
        if seat == viewer:
            continue
        for index, card in enumerate(hand):
            if card not in state["known"][seat]:
                slots.append(("hand", seat, index))
                pool.append(card)
    for index, (seat, card) in enumerate(new["discards"]):
        if seat != viewer:
            slots.append(("discard", index, 1))
            pool.append(card)
    deck = list(new["deck"])
    pool += deck
    rng.shuffle(pool)
    for (kind, a, b), card in zip(slots, pool, strict=False):
        if kind == "hand":
            new["hands"][a][b] = card
        else:
            new["discards"][a][b] = card
    new["deck"] = pool[len(slots) :]
    return new


def cb_move(html: str) -> dict[str, str]:
    form = form_with(html, "/move")
    data = hidden(form)
    data["play"] = radio_values(form, "play")[0]
    data["chip"] = radio_values(form, "chip")[0]
    return data


def cb_refused(data: dict[str, str], state: dict[str, Any], seat: int) -> dict[str, str]:
    return {**data, "play": f"{state['hands'][seat][0]}@9"}


# --- what a viewer may not see: Fantasy Business ------------------------------------------


def fb_check(
    html: str,
    state: dict[str, Any],
    viewer: int | None,
    names: list[str],
    where: str,
    log: list[Any],
) -> None:
    assert_hides_specials(unescape(html), state, viewer, where)


def fb_shuffle(state: dict[str, Any], viewer: int | None, rng: random.Random) -> dict[str, Any]:
    """The same table for `viewer` with others' sealed bids and secret prices changed."""
    new = dict(state)
    auction = state["auction"]
    if auction and auction.get("bids"):
        bids = list(auction["bids"])
        for seat, amount in enumerate(bids):
            if seat != viewer and amount is not None:
                bids[seat] = rng.choice([0, auction["base"], state["money"][seat]])
        new["auction"] = {**auction, "bids": bids}
    prices = list(state["prices"])
    for seat, chosen in enumerate(prices):
        if seat != viewer and chosen:
            prices[seat] = {article: price + rng.randint(0, 3) for article, price in chosen.items()}
    new["prices"] = prices
    # Orders mode: others' limits, lists of specials and Antitrust limits are as secret.
    if state.get("limits"):
        limits = list(state["limits"])
        for seat, given in enumerate(limits):
            if seat != viewer and given is not None:
                limits[seat] = [rng.choice([0, amount]) for amount in given]
        new["limits"] = limits
    if state.get("plays"):
        plays = list(state["plays"])
        for seat, listed in enumerate(plays):
            if seat != viewer and listed:
                plays[seat] = rng.choice([[], listed[::-1]])
        new["plays"] = plays
    if auction and auction.get("limits"):
        limits = list(auction["limits"])
        for seat, amount in enumerate(limits):
            if seat != viewer and amount is not None:
                limits[seat] = rng.choice([0, auction["base"], state["money"][seat]])
        new["auction"] = {**new["auction"], "limits": limits}
    return new


def fb_move(html: str) -> dict[str, str]:
    form = move_form(html)
    assert form is not None
    return sensible_move(form, play_specials=True)


def fb_refused(data: dict[str, str], state: dict[str, Any], seat: int) -> dict[str, str]:
    if state["step"] == "choose":
        return {**data, "action": "bid", "amount": "1"}
    return {**data, "action": "choose", "slot": "0"}


GAMES_UNDER_TEST = {
    "colour-bazaar": (cb_check, cb_shuffle, cb_move, cb_refused),
    "fantasy-business": (fb_check, fb_shuffle, fb_move, fb_refused),
}


# --- the walk through a whole game ---------------------------------------------------------


class Walk:
    """Players following their mail, while every page and mail is searched."""

    def __init__(
        self, client: Any, app: Any, smtpd: Any, slug: str, lang: str, inbound: Any
    ) -> None:
        self.client, self.app, self.smtpd, self.slug, self.lang = client, app, smtpd, slug, lang
        self.inbound = inbound
        self.refusals = [0] * len(PLAYERS[slug])
        self.hooks: dict[int, int | None] = {}  # webhook id -> whose view (None: the table)
        self.hooks_seen = 0
        self.kinds_seen: set[str] = set()
        self.elements_seen: set[str] = set()  # of ELEMENTS: the walk reached them
        self.check, self.shuffle, self.pick, self.refuse = GAMES_UNDER_TEST[slug]
        self.players = PLAYERS[slug]
        self.names = [name for name, _ in self.players]
        self.links: list[str] = []
        self.seen = 0
        self.rng = random.Random(f"{slug}-{lang}")  # the differences tried: fixed too
        self.watch = ""
        # Each seat's private notes hold a word of its own: only that seat ever reads it.
        self.notes = [f"notezq{seat}word" for seat in range(len(self.players))]

    def start(self, seed: int, options: dict[str, str]) -> None:
        form = {"game": self.slug, **{f"opt_{self.slug}_{k}": v for k, v in options.items()}}
        form["rated"] = "1"  # its end moves ratings: the player pages show them
        for row, (name, email) in enumerate(self.players):
            form[f"name_{row}"], form[f"email_{row}"] = name, email
        assert self.client.post(f"/games?lang={self.lang}", data=form).status_code == 303
        put_seed(self.app, seed)
        deliver(self.app)
        self.links = [link_in(self.smtpd.to(email)[0]) for _, email in self.players]
        for seat, link in enumerate(self.links):  # the invitation pages, before the deal
            page = self.client.get(link)
            assert page.status_code == 200
            html = page.get_data(as_text=True)
            assert "/join" in html or seat == 0
            assert str(seed) not in html or seed < 1000
        for link in self.links[1:]:
            assert self.client.post(f"{link}/join").status_code == 303
        for link, word in zip(self.links, self.notes, strict=True):
            saved = self.client.post(f"{link}/notes", data={"text": f"Plan: {word}"})
            assert saved.status_code == 303
        self.plant_deal()
        self.add_league()
        deliver(self.app)
        page = self.client.get(self.links[0]).get_data(as_text=True)
        self.watch = page.split('href="http://pbem.test/w/')[1].split('"')[0]
        self.add_webhooks()

    def plant_deal(self) -> None:
        """A checkable deal's secret, salt and shares, planted once dealt (the walk needs its
        fixed seed, which a deal made by the server would replace): each holds "dealzq", a
        word no page, export, API answer, webhook or mail may show before the end."""
        with write_session(self.app.extensions["pbem"]["engine"]) as session:
            game = session.get(Game, 1)
            assert game is not None and game.state is not None
            game.deal_secret, game.deal_salt = "dealzqsecret", "dealzqsalt"
            session.add(game)
            for seat in session.exec(select(Seat).where(Seat.game_id == 1)).all():
                seat.share = f"dealzqshare{seat.seat}"
                session.add(seat)

    def add_league(self) -> None:
        """The game is also a league's (issue 36): the league's page and its API answer are
        searched as the spectator's pages, and the players' "My leagues" on /me."""
        engine, now = self.app.extensions["pbem"]["engine"], self.app.config["CLOCK"]()
        with write_session(engine) as session:
            seats = session.exec(select(Seat).where(Seat.game_id == 1).order_by(Seat.seat)).all()
            league = League(
                name="Walk league", organiser_id=seats[0].player_id, slug=self.slug,
                join_key=LEAGUE_KEY, status="running", round=1, table_size=len(seats),
                created_at=now, started_at=now,
            )  # fmt: skip
            session.add(league)
            session.flush()
            for seat in seats:
                session.add(LeagueMember(league_id=league.id, player_id=seat.player_id,
                                         status="joined"))  # fmt: skip
            session.add(LeagueGame(league_id=league.id or 0, round=1, game_id=1))

    def add_webhooks(self) -> None:
        """Each seat's own webhook (a different kind each) and the creator's table webhook."""
        engine, now = self.app.extensions["pbem"]["engine"], self.app.config["CLOCK"]()
        kinds = ["generic", "discord", "slack"]
        with write_session(engine) as session:
            game = session.get(Game, 1)
            for seat in session.exec(select(Seat).where(Seat.game_id == 1)).all():
                player = session.get(Player, seat.player_id)
                hook = add_webhook(session, player, game, seat, "mine", DEAD_HOOK,
                                   kinds[seat.seat % 3], True, now)  # fmt: skip
                self.hooks[hook.id or 0] = seat.seat
                if seat.seat == 0:
                    table = add_webhook(session, player, game, seat, "table", DEAD_HOOK,
                                        "generic", True, now)  # fmt: skip
                    self.hooks[table.id or 0] = None

    def webhooks(self, state: dict[str, Any], log: list[Any]) -> None:
        """Every webhook payload queued since the last look, as its owner's view."""
        with read_session(self.app.extensions["pbem"]["engine"]) as session:
            rows = session.exec(
                select(WebhookDelivery).where(WebhookDelivery.id > self.hooks_seen)  # type: ignore[operator]
            ).all()
            # The deliverer writes a body from the row's facts: write each as it would.
            bodies = [body_of(session, row, session.get(Webhook, row.webhook_id)) for row in rows]
        for row, body in zip(rows, bodies, strict=True):
            viewer = self.hooks[row.webhook_id]
            assert not [w for w in self.notes if w in body], f"notes in webhook {row.event}"
            assert "dealzq" not in body, f"the deal's secrets in webhook {row.event}"
            self.check(body, state, viewer, self.names, f"webhook {row.event} of {viewer}", log)
            self.kinds_seen.add(row.event)
            self.hooks_seen = max(self.hooks_seen, row.id or 0)

    def refuse_by_mail(self, seat: int) -> None:
        """Answer the seat's newest turn mail with a line that is no move: pbem answers."""
        if self.refusals[seat] >= REFUSALS_PER_SEAT:
            return
        email = self.players[seat][1]
        turn_mails = [m for m in self.smtpd.to(email) if m["Reply-To"] is not None]
        if not turn_mails:
            return
        self.refusals[seat] += 1
        before = len(self.smtpd.to(email))
        code, text = send(self.inbound, answer(turn_mails[-1], "xyzzy plugh"))
        assert code == 250, text
        deliver(self.app)
        # The check has teeth: the answer (with the legal moves) came, and is searched.
        assert len(self.smtpd.to(email)) == before + 1
        assert addr(self.smtpd.to(email)[-1]["Reply-To"]).endswith("@" + REPLY_DOMAIN)

    def switch_off_webhooks(self) -> None:
        """Fail every webhook until it is switched off: its owner's mail is searched too."""
        ext, clock = self.app.extensions["pbem"], self.app.config["CLOCK"]
        for _ in range(12):
            clock.advance(hours=3)  # past the longest backoff
            drain_webhooks(ext["engine"], ext["site"], ext["settings"], clock())
        deliver(self.app)
        with read_session(ext["engine"]) as session:
            assert not session.exec(select(Webhook).where(Webhook.enabled == True)).all()  # noqa: E712
            told = session.exec(select(Outbox).where(Outbox.event == "webhook_disabled")).all()
            assert len(told) == len(self.hooks)  # one mail per webhook, to its owner
            assert all(row.sent_at is not None for row in told)

    def mails(self, state: dict[str, Any], log: list[Any]) -> None:
        emails = [email for _, email in self.players]
        for mail in self.smtpd.messages[self.seen :]:
            seat = emails.index(addr(mail["To"]))
            html = html_of(mail)
            assert injected(html) == [], f"a name became markup in a mail to seat {seat}"
            body = text_of(mail) + html
            self.check(body, state, seat, self.names, f"mail to seat {seat}", log)
            assert not [w for w in self.notes if w in body], f"notes in a mail to seat {seat}"
            assert "dealzq" not in body, f"the deal's secrets in a mail to seat {seat}"
        self.seen = len(self.smtpd.messages)
        self.webhooks(state, log)

    def pages(
        self, seat: int | None, state: dict[str, Any], due: list[int], light: bool = False
    ) -> dict[str, str]:
        """Every page `seat` can reach now (the spectator page for None), by name; when
        `light`, only its table and the review of its move."""
        get = self.client.get
        if seat is None:
            found = {
                "spectator": get(f"/w/{self.watch}").get_data(as_text=True),
                "spectator poll": get(f"/w/{self.watch}/ply").get_data(as_text=True),
                "API view": get(f"/api/v1/watch/{self.watch}").get_data(as_text=True),
                "league": get(f"/leagues/{LEAGUE_KEY}").get_data(as_text=True),
                "league API": get(f"/api/v1/leagues/{LEAGUE_KEY}").get_data(as_text=True),
                # The operator's answers (issue 45): readiness, and the metrics' labels.
                "readyz": get("/readyz").get_data(as_text=True),
                "metrics": get(
                    "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}
                ).get_data(as_text=True),
            }
            assert "pbem_moves_total" in found["metrics"]
            # The check has teeth: the league's page and answer show the game and its table.
            for page in ("league", "league API"):
                assert "Walk league" in found[page] and "Ana" in found[page]
            if not light:
                found.update(self.replays(f"/w/{self.watch}"))
                # Every past round: those the stored state released are read from their rows.
                found["spectator, every round"] = get(f"/w/{self.watch}?log=all").get_data(
                    as_text=True
                )
            return found
        link = self.links[seat]
        found = {"table": get(link).get_data(as_text=True)}
        # The live page's poll; then the page says it is left, as its script does, so
        # that the turn mails searched here go at once (pbem.players.presence).
        found["poll"] = get(f"{link}/ply").get_data(as_text=True)
        assert self.client.post(f"{link}/away").status_code == 204
        if not light:
            found["table (fr)"] = get(f"{link}?lang=fr").get_data(as_text=True)
            # The switch on one's own page sets the player's language: switch back.
            get(f"{link}?lang={self.lang}")
            found["settings"] = get(f"{link}/settings").get_data(as_text=True)
            found["table, every round"] = get(f"{link}?log=all").get_data(as_text=True)
            found.update(self.replays(link))
            found["my games"] = self.my_games(seat)
            found.update(self.player_page(seat))
            # The open tables (issue 36), as this seat's player and through the API.
            found["open tables"] = self.my_games(seat, "/games/open")
            found["API open tables"] = get("/api/v1/open").get_data(as_text=True)
            if stored(self.app).status == "active":
                found["leave?"] = get(f"{link}/leave").get_data(as_text=True)
            if stored(self.app).status == "over":
                # The seat's review of the game (issue 51): its page, asked or done.
                found["game review"] = get(f"{link}/review").get_data(as_text=True)
            # The JSON API: the seat's view, legal moves and log, in each language.
            api = "/api/v1/seat/" + link.rsplit("/", 1)[-1]
            found["API view"] = get(api).get_data(as_text=True)
            found["API view (fr)"] = get(f"{api}?lang=fr").get_data(as_text=True)
            # The seat's export over the API (issue 48), its names as written, unescaped.
            exported = get(f"{api}/export").get_json()
            found["API export"] = json.dumps(exported, ensure_ascii=False)
        if state is None or not due:
            return found
        if seat in due:
            data = self.pick(found["table"])
            review = review_page(self.client, link, data)
            assert review.status_code == 200, review.get_data(as_text=True)
            found["review"] = review.get_data(as_text=True)
            if light:
                return found
            # The review in the other language (the switch keeps it a review), then back.
            found["review (fr)"] = get(f"{link}?review=1&lang=fr").get_data(as_text=True)
            get(f"{link}?lang={self.lang}")
            # "Change it" on the review: the form again with the choices made.
            change = get(f"{link}?change=1")
            assert change.status_code == 200, change.get_data(as_text=True)
            found["change it"] = change.get_data(as_text=True)
            refused = self.client.post(f"{link}/move", data=self.refuse(data, state, seat))
            assert refused.status_code == 400, refused.get_data(as_text=True)
            found["refused move"] = refused.get_data(as_text=True)
            stale = self.client.post(f"{link}/move", data={**data, "turn": "an-old-turn"})
            assert stale.status_code == 409
            found["stale form"] = stale.get_data(as_text=True)
        return found

    def player_id(self, seat: int) -> int:
        with read_session(self.app.extensions["pbem"]["engine"]) as session:
            game = session.get(Game, stored(self.app).id)
            assert game is not None
            (row,) = [s for s in seats_of(session, game) if s.seat == seat]
            return row.player_id

    def player_page(self, seat: int) -> dict[str, str]:
        """The seat's player's public page and API answer, as anyone sees them: names, ranks
        and scores of finished games, ratings; never an address (issue 36)."""
        player_id = self.player_id(seat)
        found = {
            "player page": self.client.get(f"/players/{player_id}").get_data(as_text=True),
            "API player": self.client.get(f"/api/v1/players/{player_id}").get_data(as_text=True),
        }
        for where, html in found.items():
            assert "@example.org" not in html, f"an address on the {where} of seat {seat}"
        page = found["player page"]  # (the API's JSON holds names as they are, as its views do)
        assert injected(page) == [], f"a name became markup on the player page of seat {seat}"
        if stored(self.app).status == "over":
            # The check has teeth: the finished game and the names are on the page.
            assert f"#{stored(self.app).id}" in found["player page"]
            assert '"games":1' in found["API player"].replace(" ", "")
        return found

    def my_games(self, seat: int, path: str = "/me") -> str:
        """The seat's player's /me page (or another at `path`), signed in as them (as their
        mailed link would)."""
        player_id = self.player_id(seat)
        sign_in_as(self.client, self.app, player_id)
        try:
            page = self.client.get(path)
            assert page.status_code == 200
            return page.get_data(as_text=True)
        finally:
            forget_session(self.client)

    def replays(self, link: str) -> dict[str, str]:
        """The replay of the game as it stands and the exported log, as this link sees them."""
        get = self.client.get
        found = {
            "replay": get(f"{link}/replay").get_data(as_text=True),
            "export (json)": get(f"{link}/export.json").get_data(as_text=True),
            "export (text)": get(f"{link}/export.txt").get_data(as_text=True),
        }
        game = stored(self.app)
        if game.status != "over":
            # The seed would let anyone deal the whole game again: not before the end.
            assert f'"seed": {game.seed}' not in found["export (json)"]
        return found

    def look(self, every_seat: bool, light: bool = False) -> None:
        """Search the pages of the seats due (of every seat, if asked) and the new mails;
        when `light`, only the tables and reviews of the seats due, by name."""
        game = stored(self.app)
        state, log = game.state, moves(self.app)
        # Searched against every round, those the stored state released too.
        whole = whole_state(self.app) if state is not None else None
        over = game.status == "over"
        rules = GAMES[self.slug]
        due = rules.to_act(state) if state is not None else []
        self.mails(whole, log)
        viewers: list[int | None] = (
            list(range(len(self.links))) + [None] if every_seat else list(due)
        )
        for viewer in viewers:
            found = self.pages(viewer, state, due, light)
            others = [w for s, w in enumerate(self.notes) if s != viewer]
            for where, html in found.items():
                self.check(html, whole, viewer, self.names, f"{where} of seat {viewer}", log)
                self.elements_seen.update(e for e in ELEMENTS if e in html)
                assert not [w for w in others if w in html], f"notes in {where} of {viewer}"
                assert over or "dealzq" not in html, f"the deal's secrets in {where} of {viewer}"
            if viewer is not None and not light:
                # The check has teeth: the seat's own notes are on its page and in its export.
                mine = self.notes[viewer]
                assert mine in found["table"] and mine in found["export (json)"]
                assert mine in found["API export"]
            if over and not light:
                # The check has teeth: at the end the deal's values are shown to everyone.
                assert "dealzqsecret" in found["export (json)"]
            if viewer is not None:
                for card in state.get("hands", [[]] * (viewer + 1))[viewer]:
                    # The check has teeth: the seat's own hand is on its page.
                    assert card_name(card, self.lang) in unescape(found["table"])
            if light:
                continue
            # Deal what the viewer may not see differently: its pages must not change.
            put_state(self.app, self.shuffle(state, viewer, self.rng))
            try:
                again = self.pages(viewer, state, due)
            finally:
                put_state(self.app, state)
            for where, html in found.items():
                if where in again:
                    assert CSRF.sub("", again[where]) == CSRF.sub("", html), (
                        f"{where} of seat {viewer} depends on what it may not see"
                    )

    def ask_reviews(self) -> None:
        """At the end, every seat asks for its review by mail; the workers work them out and
        the mails go (searched by the next look, as the review pages are)."""
        for link in self.links:
            assert self.client.post(f"{link}/review", data={"mail": "1"}).status_code == 303
        while computer_moves(self.app):
            pass
        deliver(self.app)
        new = self.smtpd.messages[self.seen :]
        mailed = [m for m in new if str(m["Message-ID"]).startswith("<notice.review")]
        assert len(mailed) == len(self.links)  # the check has teeth: each seat's review came
        for link in self.links:
            # The check has teeth: each review page shows that seat's decisions.
            assert 'class="decisions"' in self.client.get(f"{link}/review").get_data(as_text=True)

    def play_one(self) -> bool:
        """The first seat due plays; its table and its review are searched on the way."""
        state = stored(self.app).state
        due = GAMES[self.slug].to_act(state)
        if not due:
            return False
        seat = due[0]
        self.refuse_by_mail(seat)  # first a reply pbem cannot read, and its answer
        link = self.links[seat]
        table = self.client.get(link).get_data(as_text=True)
        data = self.pick(table)
        review = review_page(self.client, link, data)
        assert review.status_code == 200
        log = moves(self.app)
        whole = whole_state(self.app)
        for where, html in (("table", table), ("review", review.get_data(as_text=True))):
            self.check(html, whole, seat, self.names, f"{where} of seat {seat}", log)
        confirm = form_with(review.get_data(as_text=True), "/move")
        sent = self.client.post(f"{link}/move", data=hidden(confirm))
        assert sent.status_code == 303, sent.get_data(as_text=True)
        deliver(self.app)
        return True


# --- undo with consent (pbem/takeback/consent.py), midway through the Colour Bazaar walk -

TAKE_BACK_AFTER = 28  # plies: late, once the seeded cases below happened (the take back shuffles)


def take_back_midway(walk: Walk, before: dict[str, Any]) -> None:
    """The last mover asks to take back their move and the next seat allows it; every page
    and mail is searched while the request waits and after, and the game is as before (its
    pile shuffled)."""
    last = moves(walk.app)[-1]
    (nxt,) = GAMES[walk.slug].to_act(stored(walk.app).state)
    link = walk.links[last.seat]
    ask = form_with(walk.client.get(link).get_data(as_text=True), "/takeback")
    assert walk.client.post(f"{link}/takeback", data=hidden(ask)).status_code == 303
    deliver(walk.app)
    walk.look(every_seat=True)  # the question on the next seat's page and in its mail
    page = walk.client.get(walk.links[nxt]).get_data(as_text=True)
    data = {**hidden(form_with(page, "/takeback/answer")), "answer": "allow"}
    assert walk.client.post(f"{walk.links[nxt]}/takeback/answer", data=data).status_code == 303
    deliver(walk.app)
    # As before the move, but for the order of the pile (test_takeback_honest).
    back = stored(walk.app).state
    assert {**back, "deck": []} == {**before, "deck": []}
    assert sorted(back["deck"]) == sorted(before["deck"])


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_colour_bazaar_pages_and_mails_hide_what_each_seat_may_not_see(
    client: Any, app: Any, smtpd: Any, inbound: Any, lang: str
) -> None:
    walk = Walk(client, app, smtpd, "colour-bazaar", lang, inbound)
    walk.start(CB_SEED, {"courts": "1"})
    # A private word from seat 0 to seat 1 is hidden from seat 2 and onlookers like a hand.
    whisper = "Psst, Léo: I hold the Bard."
    talk = client.post(f"{walk.links[0]}/talk", data={"text": whisper, "to": "1"})
    assert talk.status_code == 303
    plies = 0
    while True:
        walk.look(every_seat=True)
        for seat, link in enumerate(walk.links):
            assert ("I hold the Bard" in client.get(link).get_data(as_text=True)) == (seat < 2)
        assert "I hold the Bard" not in client.get(f"/w/{walk.watch}").get_data(as_text=True)
        before = stored(app).state
        if not walk.play_one():
            break
        plies += 1
        if plies == TAKE_BACK_AFTER:
            walk.look(every_seat=True)
            take_back_midway(walk, before)
    # One move taken back and played again: 30 moves in the log, 31 played.
    assert plies == 31 and len(moves(app)) == 30 and stored(app).status == "over"
    walk.ask_reviews()
    walk.look(every_seat=True)  # each seat's review page and its mail
    state = stored(app).state
    # The seeded game holds the case: a hand shown, then a face-down discard from it.
    shown_then_discarded = [
        (r["seat"], card)
        for r in state["reveals"]
        for seat, card in state["discards"]
        if seat == r["seat"] and card in r["cards"]
    ]
    assert shown_then_discarded
    results = client.get(walk.links[0]).get_data(as_text=True)
    outcome = GAMES["colour-bazaar"].outcome(state)
    assert outcome is not None
    section = unescape(results.split('<section id="results">', 1)[1].split("</section>", 1)[0])
    for seat, name in enumerate(walk.names):
        shown = rf"<strong>{re.escape(name)}</strong>[^<\d]*\b{outcome.scores[seat]}\s+points?\b"
        assert re.search(shown, section), f"{name}'s score on the results"
    walk.switch_off_webhooks()
    walk.look(every_seat=False)
    assert walk.refusals == [REFUSALS_PER_SEAT] * 3
    assert {"your_turn", "game_over"} <= walk.kinds_seen


@pytest.mark.parametrize(
    ("lang", "auction"), [("en", "sealed"), ("fr", "open"), ("en", "orders"), ("fr", "orders")]
)
def test_fantasy_business_pages_and_mails_hide_what_each_seat_may_not_see(
    client: Any, app: Any, smtpd: Any, inbound: Any, lang: str, auction: str
) -> None:
    walk = Walk(client, app, smtpd, "fantasy-business", lang, inbound)
    walk.start(
        {"sealed": 7_340_033, "open": 4_194_319}.get(auction, 5_242_883),
        {"auction": auction, "specials": "standard"},
    )
    played = 0
    while True:
        if played % 20 == 0:
            walk.look(every_seat=True)
        else:
            walk.mails(whole_state(app), moves(app))
        if not walk.play_one():
            break
        played += 1
        assert played < 800
    assert stored(app).status == "over"
    walk.ask_reviews()
    walk.look(every_seat=True)  # the results, each seat's review and its mail, for everyone
    # The check has teeth: the finished rounds left the stored state for their rows, which
    # the pages of every round and the API views read back (searched above).
    whole = whole_state(app)
    assert len(stored(app).state["history"]) == 2
    assert [r["round"] for r in whole["history"]] == list(range(1, whole["rounds"] + 1))
    walk.switch_off_webhooks()
    walk.look(every_seat=False)
    assert walk.refusals == [REFUSALS_PER_SEAT] * 3
    assert {"your_turn", "game_over"} <= walk.kinds_seen
    assert 'id="results"' in client.get(walk.links[0]).get_data(as_text=True)
    assert set(ELEMENTS) <= walk.elements_seen, walk.elements_seen
