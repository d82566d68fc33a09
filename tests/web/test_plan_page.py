"""The "Plan ahead" part of a two-player Colour Bazaar page, with plain forms: once opened (a
link), their moves are listed by card, each card with the markets it may go on (never a card
the planner holds or sees), a link each; the table after the one picked takes the answer as a
turn form does; the line is kept as one branch for each chip they may take, listed to its seat
alone, removed, cleared; a line that cannot be kept says why."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from pbem.games import ahead
from pbem.games.decktet import SUITS
from pbem.plans.plan_table import their_value
from tests.plans.ahead_game import RULES, a_play, game_of, plan_kept, started
from tests.web.helpers import form_with, hidden, links, radio_values


def pages(app: Any, game_id: int) -> list[str]:
    return [path.replace("/api/v1/seat/", "/p/") for path in links(app, game_id)]


def offered(html: str) -> list[str]:
    """The moves of theirs the page links to, as their values ("card@market")."""
    return [unquote(v) for v in re.findall(r"ahead_their=([^&\"#]+)", html)]


def test_a_plan_line_made_on_the_page(client: Any, app: Any, clock: Any) -> None:
    game_id = started(app, clock)
    state = game_of(app, game_id).state
    assert state is not None
    them = state["turn"]
    me = 1 - them
    mine_page, their_page = pages(app, game_id)[me], pages(app, game_id)[them]

    page = client.get(mine_page, query_string={"lang": "en"}).get_data(as_text=True)
    assert "Plan ahead" in page and "Plan ahead" not in client.get(their_page).get_data(
        as_text=True
    )
    # Their moves are listed once the plan is opened (a link): a page only read skips them.
    assert not offered(page) and 'class="button secondary open-plan"' in page
    page = client.get(mine_page, query_string={"plan": "1", "lang": "en"}).get_data(as_text=True)
    assert "open-plan" not in page
    # Their moves by card, each card with its markets: only cards the planner cannot place.
    values = offered(page)
    cards = {v.split("@")[0] for v in values}
    seen = set(state["hands"][me]) | {c for market in state["markets"] for c in market}
    assert cards and not cards & seen
    part = page[page.index('<section class="plan"') :]
    part = part[: part.index("</section>")]
    assert part.count('<ul class="their-cards"') == 1 and "<option" not in part
    expected = {their_value(m) for m in ahead.their_moves(state, me) if "card" in m}
    assert set(values) == expected and len(values) == len(expected)

    # Their move picked: the table after it takes the answer, card and market, then a chip.
    theirs = a_play(state, them)
    answer = client.get(mine_page, query_string={"ahead_their": their_value(theirs), "lang": "en"})
    html = answer.get_data(as_text=True)
    form = form_with(html, "/plan")
    assert hidden(form)["their"] == their_value(theirs)
    mine = a_play(RULES.apply(state, them, theirs), me)
    play = f"{mine['card']}@{mine['market']}"
    assert play in radio_values(form, "play") and mine["chip"] in radio_values(form, "chip")
    added = client.post(
        f"{mine_page}/plan", data={**hidden(form), "play": play, "chip": mine["chip"]}
    )
    assert added.status_code == 303 and "plan=1" in added.headers["Location"]  # still open
    kept = plan_kept(app, game_id, me)
    assert kept is not None
    # One branch for each chip they may take: the line holds whatever chip they take.
    chips = [s for s in SUITS if state["chips_left"][s]]
    assert sorted(b["if"]["chip"] for b in kept["tree"]) == sorted(chips)
    assert all(ahead.chipless(b["if"]) == ahead.chipless(theirs) for b in kept["tree"])
    assert all(b["then"] == mine for b in kept["tree"])
    shown = client.get(mine_page, query_string={"lang": "en"}).get_data(as_text=True)
    assert shown.count('class="next-link"') == 1  # one line, its six branches listed as one
    assert re.search(r"If they play .+ on market \d: You play .+ and take a .+ chip\.", shown)
    assert "played this" not in client.get(their_page).get_data(as_text=True)

    # One level more: their move after that line, and my answer to it, under every branch.
    deeper = client.get(mine_page, query_string={"ahead_at": "0", "lang": "en"})
    value = offered(deeper.get_data(as_text=True))[0]
    assert "After this line, their next move:" in deeper.get_data(as_text=True)
    second = client.get(
        mine_page, query_string={"ahead_at": "0", "ahead_their": value, "lang": "en"}
    )
    form = form_with(second.get_data(as_text=True), "/plan")
    assert hidden(form)["under"] == "0"
    hand = set(state["hands"][me]) - {mine["card"]}
    # Only the cards the planner knows it will hold (here none fits a market: a discard).
    plays = radio_values(form, "play")
    assert plays and {p.removeprefix("discard:").split("@")[0] for p in plays} <= hand
    client.post(
        f"{mine_page}/plan",
        data={**hidden(form), "play": plays[0], "chip": radio_values(form, "chip")[0]},
    )
    kept = plan_kept(app, game_id, me)
    assert kept is not None and all(b.get("next") for b in kept["tree"])

    # An answer that cannot be made after theirs is refused, saying why.
    wrong = client.post(
        f"{mine_page}/plan",
        data={"their": their_value(theirs), "play": f"{theirs['card']}@0", "chip": "moons"},
    )
    assert wrong.status_code == 303 and "plan_error=answer" in wrong.headers["Location"]
    said = client.get(wrong.headers["Location"] + "&lang=en").get_data(as_text=True)
    assert "not a move you could make" in said
    garbled = client.post(f"{mine_page}/plan", data={"their": "nonsense", "play": "x", "chip": ""})
    assert garbled.status_code == 303 and "plan_error=their_move" in garbled.headers["Location"]

    assert client.post(f"{mine_page}/plan/remove", data={"index": "0"}).status_code == 303
    assert plan_kept(app, game_id, me) is None
    client.post(
        f"{mine_page}/plan", data={"their": their_value(theirs), "play": play, "chip": mine["chip"]}
    )
    assert plan_kept(app, game_id, me) is not None
    assert client.post(f"{mine_page}/plan/remove", data={"all": "1"}).status_code == 303
    assert plan_kept(app, game_id, me) is None
