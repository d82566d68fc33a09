"""A page shows the last moves of the log (and the last past round) and links to the rest,
so its cost stays flat."""

from __future__ import annotations

import random
import re
from typing import Any

from pbem.db import read_session, write_session
from pbem.games import GAMES
from pbem.models import Game
from pbem.play import Invitee, create_game, join, submit_move
from pbem.store import seats_of
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


def test_past_rounds_are_paged_like_the_log(client: Any, app: Any) -> None:
    # A Fantasy Business page shows the last finished round and links to the others; the
    # whole page (?log=all) shows every one, the last of them as the short page does.
    rules = GAMES["fantasy-business"]
    ext = app.extensions["pbem"]
    now = app.config["CLOCK"]()
    with write_session(ext["engine"]) as session:
        people = [Invitee(n, f"{n}@example.org") for n in ("ana", "leo", "zoe")]
        game = create_game(session, ext["site"], "fantasy-business", people, {}, now, seed=9)
        for seat in (1, 2):
            join(session, ext["site"], game.id, seat, now)
        game_id = game.id
        link = ext["site"].seat_url(seats_of(session, game)[0]).split("pbem.test")[1]
    pick = random.Random(4)
    while True:
        with read_session(ext["engine"]) as session:
            state = session.get(Game, game_id).state
        if state["round"] == 4 or not rules.to_act(state):
            break
        seat = rules.to_act(state)[0]
        move = pick.choice(rules.legal_moves(state, seat))
        with write_session(ext["engine"]) as session:
            submit_move(
                session, ext["site"], game_id, seat, move, rules.turn_token(state, seat), now
            )
    assert state["round"] == 4 and rules.to_act(state)  # three rounds over, the fourth on
    heads = re.compile(r"<summary>Round (\d) \(first buyer")
    page = client.get(link).get_data(as_text=True)
    assert heads.findall(page) == ["3"]
    assert "The 2 earlier rounds, with the whole log" in page
    whole = client.get(link + "?log=all").get_data(as_text=True)
    assert heads.findall(whole) == ["3", "2", "1"]
    assert "earlier rounds" not in whole

    def third(html: str) -> str:
        start = html.index("<summary>Round 3 (")
        return html[start : html.index("</details>", start)]

    assert third(page) == third(whole)
