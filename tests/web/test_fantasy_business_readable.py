"""Fantasy Business, a round a player can read (issue 31): the step's heading once limits are
sent, the review of limits in the order of sale, who else sells each article while pricing,
the hand in one natural sentence, and the sale as a table with a reason per card."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

from pbem.games import GAMES
from pbem.present.text import card_name
from tests.web.fantasy_business import (
    EMAILS,
    PLAYERS,
    SLUG,
    Table,
    actions,
    move_form,
    numbers,
    stored,
    submit,
)
from tests.web.helpers import deliver, hidden

RULES = GAMES[SLUG]


def _turn_heading(page: str) -> str:
    """The heading of the page's "your turn" section."""
    found = re.search(r'<section class="yourturn" id="turn">.*?<h2>(.*?)</h2>', page, re.S)
    assert found is not None
    return found.group(1)


def test_sent_limits_head_the_form_as_limits_and_review_in_the_order_of_sale(
    client: Any, app: Any, smtpd: Any
) -> None:
    table = Table(client, app, smtpd, "en")
    table.start(specials="none")
    table.play(until=lambda s: s["step"] == "limits")
    state = stored(app).state
    seat = RULES.to_act(state)[0]
    link = table.links[EMAILS[seat]]
    page = client.get(link).get_data(as_text=True)
    assert _turn_heading(page) == "Your turn"
    form = move_form(page)
    assert form is not None and "limits" in actions(form)
    # The form lists the cards in the order of sale; the review must list them alike.
    fields = numbers(form)
    in_form = [name for name in fields]
    assert [int(n.removeprefix("limit_")) for n in in_form] == state["order"]
    data = {**hidden(form), "action": "limits"}
    data.update({n: str(i["max"]) for n, i in fields.items()})
    # The review (a page of its own once the review is POST, redirect, GET).
    posted = client.post(f"{link}/move", data=data, follow_redirects=True)
    review = unescape(posted.get_data(as_text=True))
    confirm = review[review.index('id="confirm"') :]
    reviewed = re.findall(r"<li>([^<:]+): up to \d+ écus?\.</li>", confirm)
    in_order = [card_name(state["row"][slot], "en") for slot in state["order"]]
    assert reviewed == in_order
    table.played_by_hand(seat)
    submit(client, link, data)
    deliver(app)
    table.collect()
    after = stored(app).state
    assert after["step"] == "limits" and seat not in RULES.to_act(after)
    # Sent, still open to change: the heading names the limits, not "Your prices".
    assert _turn_heading(client.get(link).get_data(as_text=True)) == "Your limits"


def test_pricing_names_who_else_sells_and_the_hand_reads_as_a_sentence(
    client: Any, app: Any, smtpd: Any
) -> None:
    table = Table(client, app, smtpd, "en")
    table.start(auction="open", specials="none")
    # Before any sale: ten écus and no articles, said as a sentence.
    first = client.get(table.links[EMAILS[0]]).get_data(as_text=True)
    assert "You hold 10 écus and no articles." in unescape(first)
    table.play(until=lambda s: s["step"] == "pricing" and s["round"] == 2)
    state = stored(app).state
    view = RULES.view(state, None)
    told = 0
    for seat in RULES.to_act(state):
        page = unescape(client.get(table.links[EMAILS[seat]]).get_data(as_text=True))
        for article in view["players"][seat]["on_sale"]:
            # Public: who else has the article on sale this round (never at what price).
            others = [
                PLAYERS[p["seat"]][0]
                for p in view["players"]
                if p["seat"] != seat and article in p["on_sale"]
            ]
            field = page.index(f'name="price_{article}"')
            said = re.findall(r'<span class="fb-rivals">([^<]*)</span>', page[:field])[-1]
            if others:
                assert said == f"Also selling: {', '.join(others)}.", (article, said)
                told += 1
            else:
                assert said == "Nobody else sells it: you count as lowest."
    assert told, "no article had two sellers: the test shows nothing"


def test_the_sale_is_told_apart_from_the_last_answer_since_your_last_move(
    client: Any, app: Any, smtpd: Any
) -> None:
    table = Table(client, app, smtpd, "en")
    table.start(specials="none")
    table.play(until=lambda s: s["step"] == "pricing")
    seat = RULES.to_act(stored(app).state)[0]
    page = client.get(table.links[EMAILS[seat]]).get_data(as_text=True)
    since = re.search(r'<section class="since".*?</section>', page, re.S)
    assert since is not None
    items = since.group(0)
    # The last player's answer is one line; the sale the server worked out after it is a
    # list of its own under it, not run on as the same player's words.
    answer = re.search(
        r"<li>([^<]*has set their limits\.)<ul class=\"then\">(.*?)</ul>", items, re.S
    )
    assert answer is not None, items
    assert "All limits are in" not in answer.group(1)
    assert "All limits are in" in answer.group(2)
