"""A Colour Bazaar turn mail shows the table as its reader sees it: each market's top card and
what it gives each suit now, the reader's hand and chips, the chips left with their worth, in
the text and the HTML part; no other player's hand."""

from __future__ import annotations

from typing import Any

from markupsafe import escape

from pbem.games.colour_bazaar import market_values
from pbem.games.decktet import SUITS
from pbem.models import Game
from pbem.present.text import card_name, suit_name
from pbem.storage.db import read_session
from tests.web.helpers import PLAYERS, deliver, headline, html_of, play_turn, start_game, text_of


def test_the_turn_mail_shows_the_table(client: Any, app: Any, smtpd: Any) -> None:
    links, seen = start_game(client, app, smtpd, courts=True)
    for _ in range(7):
        new = smtpd.messages[seen:]
        seen = len(smtpd.messages)
        (mover,) = [m for m in new if headline(m).startswith("your move")]
        play_turn(client, links[str(mover["To"]).split("<")[1].rstrip(">")])
        deliver(app)
    (mail,) = [m for m in smtpd.messages[seen:] if headline(m).startswith("your move")]
    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, 1)
        assert game is not None and game.state is not None
        state = game.state
    reader = state["turn"]
    assert PLAYERS[reader][1] in str(mail["To"])
    text, html = text_of(mail), html_of(mail)
    assert "The table:" in text and "The table:" in html
    for number, market in enumerate(state["markets"], start=1):
        gives = [
            f"{suit_name(s)} {v['value']}" for s, v in market_values(market).items() if v["value"]
        ]
        line = f"Market {number}: {card_name(market[-1])} – {', '.join(gives) or 'nothing yet'}"
        assert line in text, line
        assert str(escape(card_name(market[-1]))) in html
    hand = ", ".join(card_name(c) for c in state["hands"][reader])
    assert f"Your hand: {hand}" in text and str(escape(hand)) in html
    held = [f"{suit_name(s)} ×{n}" for s, n in state["chips"][reader].items() if n]
    assert f"Your chips: {', '.join(held) or 'none yet'}" in text
    left = [s for s in SUITS if state["chips_left"][s]]
    assert text.count(" (×") == len(left)
    # Nobody else's hand, unless a royal edict showed it to everyone.
    shown = {c for reveal in state["reveals"] for c in reveal["cards"]}
    for seat, cards in enumerate(state["hands"]):
        if seat != reader:
            for card in set(cards) - shown - set(state["hands"][reader]):
                assert card_name(card) not in text and str(escape(card_name(card))) not in html
