"""Promise 4: no page or mail for one seat shows another seat's hand or face-down discards."""

from __future__ import annotations

from typing import Any

from pbem.db import read_session
from pbem.games.text import card_name
from pbem.models import Game
from tests.web.helpers import deliver, html_of, link_in, play_turn, start_game, text_of


def hidden_from(state: dict[str, Any], viewer: int | None) -> set[str]:
    """Cards `viewer` may not see: others' unrevealed hand cards and others' discards."""
    secret = set()
    for seat, hand in enumerate(state["hands"]):
        if seat != viewer:
            secret |= set(hand) - set(state["known"][seat])
    secret |= {card for seat, card in state["discards"] if seat != viewer}
    return secret


def assert_hides(text: str, cards: set[str], where: str) -> None:
    for card in cards:
        for lang in ("en", "fr"):
            assert card_name(card, lang) not in text, f"{card} shown in {where}"
        assert f'value="{card}@' not in text and f"discard:{card}" not in text, where


def test_pages_and_mails_hide_other_hands_all_game(client: Any, app: Any, smtpd: Any) -> None:
    links, first = start_game(client, app, smtpd, courts=True)
    seat_links = list(links.values())
    # A private word from seat 0 to seat 1 is hidden from seat 2 and onlookers like a hand.
    whisper = "Psst, Léo: I hold the Bard."
    assert (
        client.post(f"{seat_links[0]}/talk", data={"text": whisper, "to": "1"}).status_code == 303
    )
    watch = None
    seen = first
    engine = app.extensions["pbem"]["engine"]
    for _ in range(31):
        with read_session(engine) as session:
            game = session.get(Game, 1)
            state, status = game.state, game.status
        # Mails sent since the last check, for each recipient.
        for mail in smtpd.messages[seen:]:
            seat = seat_links.index(link_in(mail))
            body = text_of(mail) + html_of(mail)
            assert_hides(body, hidden_from(state, seat), f"mail to seat {seat}")
            assert seat != 2 or "I hold the Bard" not in body
        seen = len(smtpd.messages)
        for seat, link in enumerate(seat_links):
            page = client.get(link).get_data(as_text=True)
            assert_hides(page, hidden_from(state, seat), f"page of seat {seat}")
            # The check has teeth: the seat's own hand is on its page.
            assert all(card_name(c, "en") in page for c in state["hands"][seat])
            assert ("I hold the Bard" in page) == (seat in (0, 1))
            watch = watch or page.split('href="http://pbem.test')[-1].split('"')[0]
        onlooker = client.get(watch).get_data(as_text=True)
        assert_hides(onlooker, hidden_from(state, None), "spectator page")
        assert "I hold the Bard" not in onlooker
        if status == "over":
            break
        play_turn(client, seat_links[state["turn"]])
        deliver(app)
    assert status == "over"
