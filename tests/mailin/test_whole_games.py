"""Whole games played only by answering the turn mails, through real SMTP both ways:
pbem's mail arrives at the aiosmtpd fixture, each player answers its Reply-To with the
example move the mail gives, and `pbem inbound` plays it."""

from __future__ import annotations

import random
from typing import Any

from sqlmodel import select

from pbem.models import Game, Move
from pbem.storage.db import read_session
from tests.mailin.helpers import REPLY_DOMAIN, addr, answer, example_in, send
from tests.web.helpers import deliver, headline, link_in, text_of

PASS = {"en": "pass", "fr": "passer"}


def _start(client: Any, app: Any, smtpd: Any, slug: str, players: list[tuple[str, str]],
           lang: str, options: dict[str, str]) -> None:  # fmt: skip
    form = {"game": slug, **options}
    for row, (name, email) in enumerate(players):
        form[f"name_{row}"] = name
        form[f"email_{row}"] = email
    assert client.post(f"/games?lang={lang}", data=form).status_code == 303
    deliver(app)
    for _, email in players[1:]:
        (mail,) = smtpd.to(email)
        assert client.post(f"{link_in(mail)}/join?lang={lang}").status_code == 303
    deliver(app)


def _play_by_replies(
    app: Any, smtpd: Any, inbound: Any, lang: str, seed: int, clock: Any = None
) -> Game:
    """Answer every turn mail until the game is over; return the finished game."""
    rng = random.Random(seed)
    answered: set[str] = set()
    for _ in range(2000):
        fresh = [
            m
            for m in smtpd.messages
            if m["Reply-To"] is not None and str(m["Message-ID"]) not in answered
        ]
        if not fresh:
            break
        for mail in fresh:
            answered.add(str(mail["Message-ID"]))
            assert addr(mail["Reply-To"]).endswith("@" + REPLY_DOMAIN)
            move = example_in(mail)
            if move.split()[0] in ("bid", "miser") and rng.random() < 0.5:
                move = PASS[lang]  # an open auction would otherwise climb to the last écu
            code, text = send(inbound, answer(mail, move + "\n\n-- \nSent from my phone"))
            assert code == 250, text
            if clock is not None:
                clock.advance(minutes=3)  # players answer a few minutes apart
        deliver(app)
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.exec(select(Game)).one()
        sources = {m.source for m in session.exec(select(Move))}
    assert game.status == "over", "the game stalled: no turn mail left to answer"
    assert sources == {"mail"}
    return game


def test_colour_bazaar_in_english_by_replies_only(app, client, smtpd, inbound, clock):
    players = [("Ana", "ana@example.org"), ("Léo", "leo@example.org"), ("Zoé", "zoe@example.org")]
    _start(client, app, smtpd, "colour-bazaar", players, "en", {})
    game = _play_by_replies(app, smtpd, inbound, "en", seed=1, clock=clock)
    assert game.ply == 30  # one chip a turn, thirty chips
    for _, email in players:
        assert any(headline(m).startswith("game over") for m in smtpd.to(email))


def test_colour_bazaar_in_french_with_courts_by_replies_only(app, client, smtpd, inbound, clock):
    players = [("Ana", "ana@example.org"), ("Léo", "leo@example.org")]
    _start(client, app, smtpd, "colour-bazaar", players, "fr",
           {"opt_colour-bazaar_courts": "1"})  # fmt: skip
    _play_by_replies(app, smtpd, inbound, "fr", seed=2, clock=clock)
    for email in ("ana@example.org", "leo@example.org"):
        assert any(headline(m).startswith("partie terminée") for m in smtpd.to(email))
        turn_mail = next(m for m in smtpd.to(email) if m["Reply-To"] is not None)
        assert "répondez à ce mail" in text_of(turn_mail)


def _actions(app: Any) -> set[str]:
    """The actions of the moves played (all by mail)."""
    with read_session(app.extensions["pbem"]["engine"]) as session:
        return {m.move["action"] for m in session.exec(select(Move))}


# The orders auction (Spec, Playing by mail): the order of sale, limits, lists of specials,
# an Antitrust sale's limit and prices, each step answered with the mail's own example.
ORDERS_STEPS = {"order", "limits", "specials", "prices"}


def test_fantasy_business_in_french_by_replies_only(app, client, smtpd, inbound, clock):
    players = [("Ana", "ana@example.org"), ("Léo", "leo@example.org"),
               ("Zoé", "zoe@example.org"), ("Inès", "ines@example.org")]  # fmt: skip
    # The orders auction is the default for a new game.
    _start(client, app, smtpd, "fantasy-business", players, "fr", {})
    game = _play_by_replies(app, smtpd, inbound, "fr", seed=3, clock=clock)
    assert game.outcome is not None
    assert game.options["auction"] == "orders"
    assert ORDERS_STEPS <= _actions(app)
    turn_mail = next(m for m in smtpd.to("ana@example.org") if m["Reply-To"] is not None)
    assert "répondez à ce mail" in text_of(turn_mail)


def test_fantasy_business_in_english_orders_by_replies_only_over_lmtp(
    app, client, smtpd, inbound_lmtp, clock
):
    players = [("Ana", "ana@example.org"), ("Léo", "leo@example.org"), ("Zoé", "zoe@example.org")]
    _start(client, app, smtpd, "fantasy-business", players, "en",
           {"opt_fantasy-business_auction": "orders"})  # fmt: skip
    game = _play_by_replies_lmtp(app, smtpd, inbound_lmtp, clock)
    assert game.outcome is not None
    assert ORDERS_STEPS <= _actions(app)


def _play_by_replies_lmtp(app: Any, smtpd: Any, inbound: Any, clock: Any) -> Game:
    """As _play_by_replies, over LMTP."""
    answered: set[str] = set()
    for _ in range(2000):
        fresh = [m for m in smtpd.messages
                 if m["Reply-To"] is not None and str(m["Message-ID"]) not in answered]  # fmt: skip
        if not fresh:
            break
        for mail in fresh:
            answered.add(str(mail["Message-ID"]))
            code, text = send(inbound, answer(mail, example_in(mail)), lmtp=True)
            assert code == 250, text
            clock.advance(minutes=3)
        deliver(app)
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.exec(select(Game)).one()
    assert game.status == "over"
    return game
