"""Fantasy Business, the round just over as an entry of its own (issue 47): on the next
step's page, open under the form (each player's income, the sale, the income article by
article), and in the turn mail as a part of its own before the news; the news under the
last player's prices says the round is over instead of running the income on. Nothing of
it shows before the prices are revealed."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

from pbem.games import GAMES
from tests.web.fantasy_business import EMAILS, PLAYERS, SLUG, Table, recipient, stored
from tests.web.helpers import html_of, text_of

RULES = GAMES[SLUG]
INCOME_LINE = re.compile(r"\+2 per card\)?: \d+ écus|defective and off the market|defaults")


def _section(page: str, start: str) -> str:
    begin = page.index(start)
    return page[begin : page.index("</section>", begin)]


def test_the_round_just_over_is_its_own_entry_on_the_page_and_in_the_mail(
    client: Any, app: Any, smtpd: Any
) -> None:
    table = Table(client, app, smtpd, "en")
    table.start(specials="none")
    table.play(until=lambda s: s["step"] == "pricing")
    # While prices are set, nothing of the round's income shows (prices are secret).
    for email in EMAILS:
        page = client.get(table.links[email]).get_data(as_text=True)
        assert 'id="outcome"' not in page and "income, in écus" not in page
    table.play(until=lambda s: s["round"] == 2 and s["step"] == "limits")
    state = stored(app).state
    pages = {
        s: unescape(client.get(table.links[EMAILS[s]]).get_data(as_text=True)) for s in range(4)
    }
    # A seat that did not set the last prices: the round's end is news to it.
    seat = next(s for s in RULES.to_act(state) if 'class="since"' in pages[s])
    page = pages[seat]
    # The board in short says each player's income; the entry follows the form, no tap.
    assert re.search(r"Round 1 income, in écus:</a> Ana \d+, Léo \d+, Zoé \d+, Max \d+\.", page)
    outcome = _section(page, '<section class="fb-outcome" id="outcome"')
    assert page.index('id="turn"') < page.index('id="outcome"')
    assert ">Round 1 is over</h2>" in outcome and "Income this round:" in outcome
    for name, _ in PLAYERS:
        assert f"<strong>{name}</strong>" in outcome
    assert "Round 1: the sale" in outcome and "Round 1: prices and income" in outcome
    # The news: the last prices, then one line for the round's end, never the income lines.
    news = _section(page, '<section class="since"')
    assert "the round is over: its outcome" in news
    assert not INCOME_LINE.search(news), news
    # The turn mail: the round's own part before the news, the news without the income.
    mails = [m for m in smtpd.messages if recipient(m) == EMAILS[seat]]
    text, html = text_of(mails[-1]), html_of(mails[-1])
    own = re.search(r"Round 1 is over\s+Income this round: Ana \d+ écus?,", text)
    assert own is not None and own.start() < text.index("Since your last move")
    since = text[text.index("Since your last move") :]
    assert "the round is over: its outcome" in since and not INCOME_LINE.search(since)
    assert html.index("Round 1 is over</h2>") < html.index("Since your last move")
    # Once the new round sells a card, the round is one of the past rounds again.
    table.play(until=lambda s: s["round"] == 2 and s["step"] == "pricing")
    page = client.get(table.links[EMAILS[seat]]).get_data(as_text=True)
    assert 'id="outcome"' not in page and "<summary>Round 1 (first buyer" in page
