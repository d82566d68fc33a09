"""A page shows the last moves of the log and links to the rest, so its cost stays flat."""

from __future__ import annotations

import re
from typing import Any

from pbem.db import read_session
from pbem.games import GAMES
from pbem.models import Game
from pbem.web.seats import LOG_PAGE
from tests.web.helpers import play_turn, start_game


def test_the_log_is_paged_with_a_link_to_all_of_it(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    seat_links = list(links.values())
    engine = app.extensions["pbem"]["engine"]
    plies = LOG_PAGE + 5
    for _ in range(plies):
        with read_session(engine) as session:
            (mover,) = GAMES["colour-bazaar"].to_act(session.get(Game, 1).state)
        play_turn(client, seat_links[mover])
    page = client.get(seat_links[0]).get_data(as_text=True)
    numbers = [int(n) for n in re.findall(r'<li value="(\d+)" class="[^"]*">', page)]
    assert numbers == list(range(plies - LOG_PAGE + 1, plies + 1))
    assert "The 5 earlier moves" in page and 'href="?log=all#log"' in page
    whole = client.get(seat_links[0] + "?log=all").get_data(as_text=True)
    numbers = [int(n) for n in re.findall(r'<li value="(\d+)" class="[^"]*">', whole)]
    assert numbers == list(range(1, plies + 1))
    assert "earlier moves" not in whole
