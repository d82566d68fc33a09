"""A page shows the last moves of the log (and the last past round) and links to the rest,
so its cost stays flat."""

from __future__ import annotations

import random
import re
from typing import Any

from pbem.games import GAMES
from pbem.games.fantasy_business.cards import is_special
from pbem.models import Game
from pbem.moves import submit_move
from pbem.play import Invitee, create_game, join
from pbem.present.text import card_name
from pbem.storage.db import read_session, write_session
from pbem.storage.store import seats_of
from pbem.web.fragments import Fragments
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


def test_the_log_is_in_the_language_of_each_view(client: Any, app: Any, smtpd: Any) -> None:
    # Each move's lines are put in words once per reader and language and kept: a page in
    # French after one in English still reads in French, and back.
    links, _ = start_game(client, app, smtpd)
    seat_links = list(links.values())
    engine = app.extensions["pbem"]["engine"]
    for _ in range(4):
        with read_session(engine) as session:
            (mover,) = GAMES["colour-bazaar"].to_act(session.get(Game, 1).state)
        play_turn(client, seat_links[mover])
    entry = re.compile(r'<li value="\d+" class="[^"]*">(.*?)</li>')
    logs = {}
    for lang in ("en", "fr", "en"):
        page = client.get(f"{seat_links[0]}?lang={lang}").get_data(as_text=True)
        log = entry.findall(page[page.index('<section id="log">') :])
        assert len(log) == 4
        assert logs.setdefault(lang, log) == log
    assert all(en != fr for en, fr in zip(logs["en"], logs["fr"], strict=True))


def fantasy_business_at_round_four(app: Any, options: dict[str, Any]) -> tuple[list[str], Any]:
    """A 3-player game played at random to its fourth round: the seats' links, its state."""
    rules = GAMES["fantasy-business"]
    ext = app.extensions["pbem"]
    now = app.config["CLOCK"]()
    with write_session(ext["engine"]) as session:
        people = [Invitee(n, f"{n}@example.org") for n in ("ana", "leo", "zoe")]
        game = create_game(session, ext["site"], "fantasy-business", people, options, now, seed=9)
        for seat in (1, 2):
            join(session, ext["site"], game.id, seat, now)
        game_id = game.id
        links = [ext["site"].seat_url(s).split("pbem.test")[1] for s in seats_of(session, game)]
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
    return links, state


def round_block(html: str, number: int) -> str:
    """A finished round's part of a page: a past round, or the round just over (its own
    entry, issue 47, until the new round sells a card)."""
    if f"<summary>Round {number} (" not in html:
        start = html.index('<section class="fb-outcome" id="outcome"')
        assert f">Round {number} is over</h2>" in html[start:], number
        return html[start : html.index("</section>", start)]
    start = html.index(f"<summary>Round {number} (")
    return html[start : html.index("</details>", start)]


def test_past_rounds_are_paged_like_the_log(client: Any, app: Any) -> None:
    # A Fantasy Business page shows the round just over as its own entry (its fourth round
    # has sold nothing yet) and links to the others; the whole page (?log=all) shows every
    # one, the last of them as the short page does.
    links, _ = fantasy_business_at_round_four(app, {})
    heads = re.compile(r"<summary>Round (\d) \(first buyer")
    page = client.get(links[0]).get_data(as_text=True)
    assert heads.findall(page) == []
    assert ">Round 3 is over</h2>" in page
    assert "The 2 earlier rounds, with the whole log" in page
    # Nothing kept from the short page: the whole one draws round 3 afresh, to compare.
    app.extensions["pbem"]["fragments"] = Fragments()
    whole = client.get(links[0] + "?log=all").get_data(as_text=True)
    assert heads.findall(whole) == ["2", "1"]
    assert "earlier rounds" not in whole
    assert round_block(page, 3) == round_block(whole, 3)


def test_a_past_round_kept_for_one_seat_is_not_shown_to_another(client: Any, app: Any) -> None:
    # A won special stays the winner's secret in the past rounds too, though each round's
    # part of the page is drawn once and kept: each seat (and language) has its own.
    links, state = fantasy_business_at_round_four(app, {"specials": "standard"})
    won = [
        (record["round"], lot["winner"], lot["card"])
        for record in state["history"][:-1]
        for lot in record["lots"]
        if is_special(lot["card"]) and lot["winner"] is not None
    ]
    assert won, "the seed gives no special won in the first three rounds"
    for number, winner, card in won:
        for lang in ("en", "fr", "en"):
            for seat in (winner, *(s for s in range(3) if s != winner)):
                page = client.get(f"{links[seat]}?log=all&lang={lang}").get_data(as_text=True)
                if lang == "fr":
                    said = (f"<summary>Manche {number} (", f">Fin de la manche {number}</h2>")
                    assert any(head in page for head in said)
                    continue
                mine = f"special card: {card_name(card, 'en')} (yours)"
                assert (mine in round_block(page, number)) == (seat == winner), (seat, number)


def test_kept_parts_are_bounded_the_oldest_made_again() -> None:
    # A worker keeps a bounded number of parts: past the bound, the least recently used
    # is dropped and made again when asked for.
    made: list[str] = []
    parts = Fragments(size=2)

    def make(key: str) -> str:
        made.append(key)
        return key.upper()

    for key in ("a", "b", "a", "c", "a", "b"):
        assert parts.get(key, lambda key=key: make(key)) == key.upper()
    assert made == ["a", "b", "c", "b"]


def test_a_page_read_again_after_each_move_shows_every_move_once_and_marks_the_new(
    client: Any, app: Any, smtpd: Any
) -> None:
    # The lines already put in words are kept, and only the moves after them are read: the
    # watching seat's page, read after every move, still shows each move exactly once, in
    # order, with the moves made since its own last move marked new.
    links, _ = start_game(client, app, smtpd)
    seat_links = list(links.values())
    engine = app.extensions["pbem"]["engine"]
    entry = re.compile(r'<li value="(\d+)" class="([^"]*)">')
    movers: list[int] = []
    for ply in range(1, LOG_PAGE + 4):
        with read_session(engine) as session:
            (mover,) = GAMES["colour-bazaar"].to_act(session.get(Game, 1).state)
        play_turn(client, seat_links[mover])
        movers.append(mover)
        page = client.get(seat_links[0]).get_data(as_text=True)
        shown = entry.findall(page[page.index('<section id="log">') :])
        first = max(0, ply - LOG_PAGE)
        assert [int(n) for n, _ in shown] == list(range(first + 1, ply + 1))
        mine = [p for p, seat in enumerate(movers) if seat == 0]
        last = mine[-1] if mine else -1
        marked = [int(n) - 1 for n, css in shown if css == "new"]
        assert marked == [p for p in range(first, ply) if p > last and movers[p] != 0]
