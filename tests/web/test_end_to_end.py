"""A whole three-player game played over HTTP, following only the links in delivered mail."""

from __future__ import annotations

from typing import Any

from pbem.games import GAMES
from tests.web.helpers import (
    PLAYERS,
    deliver,
    headline,
    link_in,
    play_turn,
    start_game,
    text_of,
)


def test_whole_game_by_mail(client: Any, app: Any, smtpd: Any) -> None:
    links, seen = start_game(client, app, smtpd, courts=True)
    turns = 0
    while True:
        new = smtpd.messages[seen:]
        seen = len(smtpd.messages)
        over = [m for m in new if "game over" in headline(m)]
        if over:
            break
        movers = [m for m in new if "your move" in headline(m)]
        assert len(movers) == 1, [str(m["Subject"]) for m in new]
        (mail,) = movers
        email = str(mail["To"]).split("<")[1].rstrip(">")
        assert link_in(mail) == links[email]
        play_turn(client, link_in(mail))
        turns += 1
        deliver(app)
        assert turns <= 30
    assert turns == 30
    assert len(over) == 3

    # The scores in the mails are the engine's scores for the stored final state.
    from pbem.models import Game
    from pbem.storage.db import read_session

    with read_session(app.extensions["pbem"]["engine"]) as session:
        game = session.get(Game, 1)
        outcome = GAMES["colour-bazaar"].outcome(game.state)
    assert outcome is not None
    for mail in over:
        body = text_of(mail)
        for seat, (name, _) in enumerate(PLAYERS):
            assert f"{outcome.ranks[seat]}. {name}: {outcome.scores[seat]} points" in body
    # Every mail of the game is in one thread and carries only its recipient's link.
    threads = {str(m["References"]) for m in smtpd.messages}
    assert len(threads) == 1
    for mail in smtpd.messages:
        email = str(mail["To"]).split("<")[1].rstrip(">")
        assert link_in(mail) == links[email]
        others = [link for address, link in links.items() if address != email]
        assert not any(other in text_of(mail) for other in others)
