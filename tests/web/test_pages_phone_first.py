"""Pages on a phone first: the review says how the move will read in the log, and
"Change it" keeps the choices made; Colour Bazaar's choices sit at the cards of the hand; a
Fantasy Business page runs what to do, what changed, the board, your hand and choices, then
the rest (in every step of the orders auction); the new-game form shows the game first, then
its options, three player rows with more on demand, and each invitee's language."""

from __future__ import annotations

import re
from typing import Any

from pbem.games import GAMES
from tests.web.fantasy_business import EMAILS, Table, move_form, numbers, stored
from tests.web.helpers import (
    ANA,
    LEO,
    ZOE,
    deliver,
    forms_of,
    hidden,
    link_in,
    new_game,
    radio_values,
    review_page,
    state_of,
    text_of,
)


def _checked(html: str, name: str) -> list[str]:
    """The values of the checked radios named `name`."""
    return re.findall(rf'<input type="radio" name="{name}" value="([^"]+)"[^>]* checked>', html)


def test_review_reads_you_will_play_and_change_it_keeps_the_choices(
    client: Any, app: Any, smtpd: Any
) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO])
    ana = links[ANA[1]]
    page = client.get(ana).get_data(as_text=True)
    (form,) = [f for f in forms_of(page) if f["action"].endswith("/move")]
    plays, chips = radio_values(form, "play"), radio_values(form, "chip")
    choice = {**hidden(form), "play": plays[-1], "chip": chips[-1]}
    review = review_page(client, ana, choice).get_data(as_text=True)
    assert "your move will read in the log:" in review
    # "Change it" is a link (a GET): the form again, refilled from the kept draft.
    (change,) = re.findall(r'<a class="button secondary" href="([^"]+)">Change it</a>', review)
    assert change.endswith("?change=1#turn")
    back = client.get(change.split("#")[0])
    assert back.status_code == 200
    page = back.get_data(as_text=True)
    assert _checked(page, "play") == [plays[-1]] and _checked(page, "chip") == [chips[-1]]
    assert state_of(app, 1).ply == 0  # changing sends nothing


def test_colour_bazaar_choices_sit_at_the_cards_of_the_hand(
    client: Any, app: Any, smtpd: Any
) -> None:
    links = new_game(client, app, smtpd, [ANA, LEO, ZOE])
    page = client.get(links[ANA[1]]).get_data(as_text=True)
    turn = page[page.index('id="turn"') :]
    blocks = re.split(r'<div class="at-card"[^>]*>', turn)[1:]
    hand = state_of(app, 1).state["hands"][0]
    assert len(blocks) == len(hand)
    for block in blocks:
        # A card's own choices are its radios: each value names that card.
        card = re.search(r'<span class="name">([^<]+)</span>', block).group(1)
        values = re.findall(r'name="play" value="([^"]+)"', block)
        assert values or "cannot be played now" in block, card
        assert len({v.split("@")[0] for v in values}) <= 1
    assert "<h2>Your hand</h2>" not in page  # the hand is the form on your turn
    assert page.index(">Markets</h2>") < page.index('id="turn"')


# Issue 47: the board in short (the round, the players' écus and holdings) first, then your
# turn, then the whole board with your hand in words, then the players.
MARKS = [
    '<p class="status">',
    '<h2 id="board-h">Round ',
    'id="turn"',
    '<h2 id="round-h">',
    'class="fb-hand"',
    "fb-players",
]


def test_fantasy_business_page_order_in_every_orders_step(
    client: Any, app: Any, smtpd: Any
) -> None:
    table = Table(client, app, smtpd, "en")
    table.start(specials="standard")
    seen: set[str] = set()

    def look(state: dict[str, Any]) -> bool:
        """Check the pages of the seats due: the board in short, the choices, then the rest;
        what changed since the last move under the choices."""
        for seat in GAMES["fantasy-business"].to_act(state):
            page = client.get(table.links[EMAILS[seat]]).get_data(as_text=True)
            if move_form(page) is None:
                continue
            seen.add(state["step"])
            places = [page.index(m) for m in MARKS]
            assert places == sorted(places), (state["step"], seat)
            if 'class="since"' in page:
                assert page.index('id="turn"') < page.index('class="since"')
        return {"order", "limits", "lists", "pricing"} <= seen

    table.play(play_specials=True, until=look)
    assert {"order", "limits", "pricing"} <= seen, seen


def test_change_it_keeps_a_fantasy_business_limit(client: Any, app: Any, smtpd: Any) -> None:
    table = Table(client, app, smtpd, "en")
    table.start(specials="none")
    table.play(until=lambda s: s["step"] == "limits")
    state = stored(app).state
    seat = GAMES["fantasy-business"].to_act(state)[0]
    link = table.links[EMAILS[seat]]
    form = move_form(client.get(link).get_data(as_text=True))
    assert form is not None
    fields = numbers(form)
    # The most on the first card, nothing on the others: not what the form offered.
    wanted = {n: ("0" if k else str(i["max"])) for k, (n, i) in enumerate(fields.items())}
    assert wanted != {n: str(i["value"]) for n, i in fields.items()}
    data = {**hidden(form), "action": "limits", **wanted}
    review = review_page(client, link, data).get_data(as_text=True)
    assert "your move will read in the log:" in review
    (change,) = re.findall(r'<a class="button secondary" href="([^"]+)">Change it</a>', review)
    page = client.get(change.split("#")[0]).get_data(as_text=True)
    for name, value in wanted.items():
        assert re.search(rf'name="{name}"[^>]*value="{value}"', page), name


def test_new_game_form_game_first_three_rows_more_on_demand_and_languages(
    client: Any, app: Any, smtpd: Any
) -> None:
    page = client.get("/").get_data(as_text=True)
    assert page.index('name="game"') < page.index('name="opt_colour-bazaar_courts"')
    assert page.index('name="opt_colour-bazaar_courts"') < page.index('name="name_0"')
    # The options sit with their game, shown only once it is chosen (static CSS).
    assert page.count('<div class="options">') == 2
    visible, more = page.split('<details class="more-players"')
    assert [f"name_{r}" in visible for r in range(4)] == [True, True, True, False]
    assert "name_7" in more and "<summary>More players</summary>" in more
    assert re.search(r'<select name="lang_2">.*?value="fr"', page, re.S)
    # Each invitee's language: Zoé's invitation comes in French.
    form = {"game": "colour-bazaar", "name_0": ANA[0], "email_0": ANA[1], "lang_0": "en",
            "name_1": LEO[0], "email_1": LEO[1], "lang_1": "en",
            "name_2": ZOE[0], "email_2": ZOE[1], "lang_2": "fr"}  # fmt: skip
    assert client.post("/games", data=form).status_code == 303
    deliver(app)
    (zoe,) = smtpd.to(ZOE[1])
    (leo,) = smtpd.to(LEO[1])
    assert "vous invite" in text_of(zoe) and "invites you" in text_of(leo)
    assert link_in(zoe)
    # A form sent back with a fourth player opens the more-players rows.
    bad = {**form, "email_0": "not-an-address", "name_3": "Max", "email_3": "max@example.org"}
    again = client.post("/games", data=bad).get_data(as_text=True)
    assert '<details class="more-players" open>' in again
