"""Fantasy Business over HTTP: whole four-player games played only through the links in
delivered mail, prices revised while others still set theirs, and pages that never show a
seat another seat's special cards or unrevealed prices."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from pbem.games import GAMES
from pbem.present.common import FormError
from pbem.present.fantasy_business import parse_form
from pbem.present.text import card_name, say, translated
from tests.web.fantasy_business import (
    EMAILS,
    PLAYERS,
    SLUG,
    Table,
    actions,
    assert_hides,
    move_form,
    numbers,
    recipient,
    sensible_move,
    stored,
    submit,
)
from tests.web.helpers import (
    deliver,
    headline,
    hidden,
    html_of,
    link_in,
    review_page,
    text_of,
)

ROOT = Path(__file__).resolve().parents[2]


def check_final_mails(table: Table) -> None:
    """One game-over mail per player; its scores are the engine's for the stored state."""
    game = stored(table.app)
    assert game.status == "over"
    outcome = GAMES[SLUG].outcome(game.state)
    assert outcome is not None
    assert sorted(recipient(m) for m in table.over) == sorted(EMAILS)
    colon = ":" if table.lang == "en" else "\u00a0:"  # French: a no-break space before ":"
    for mail in table.over:
        body, html = text_of(mail), html_of(mail)
        for seat, (name, _) in enumerate(PLAYERS):
            score = outcome.scores[seat]
            assert f"{outcome.ranks[seat]}. {name}{colon} {score} point" in body
            assert name in html
        for record in outcome.breakdown["rounds"]:
            word = "Round" if table.lang == "en" else "Manche"  # a round of Fantasy Business
            assert f"{word} {record['round']} (" in body
    page = table.client.get(table.links[EMAILS[0]]).get_data(as_text=True)
    assert 'id="results"' in page and move_form(page) is None
    table.check_all_pages()


def test_whole_game_open_auctions_no_specials(client: Any, app: Any, smtpd: Any) -> None:
    table = Table(client, app, smtpd, "en")
    table.start(auction="open", specials="none")
    table.play()
    assert len(table.over) == 4, [str(m["Subject"]) for m in smtpd.messages[-6:]]
    check_final_mails(table)
    # Every mail of the game is in one thread and carries only its recipient's link.
    assert len({str(m["References"]) for m in smtpd.messages}) == 1
    for mail in smtpd.messages:
        email = recipient(mail)
        others = [link for address, link in table.links.items() if address != email]
        assert link_in(mail) == table.links[email]
        assert not any(other in text_of(mail) for other in others)


def test_whole_game_sealed_bids_with_specials_in_french(client: Any, app: Any, smtpd: Any) -> None:
    table = Table(client, app, smtpd, "fr")
    table.start(auction="sealed", specials="standard")
    table.play(play_specials=True)
    assert len(table.over) == 4
    check_final_mails(table)
    state = stored(app).state
    played = [p for record in state["history"] for p in record["played"]]
    won = [
        lot for record in state["history"] for lot in record["lots"] if lot["winner"] is not None
    ]
    assert won and any(lot["mode"] == "sealed" for lot in won)
    assert played, "the seeded game has special cards played through the pages"


def holds(data: Any, wanted: dict[str, Any]) -> bool:
    """Whether `wanted` appears as a dict anywhere inside `data`."""
    if data == wanted:
        return True
    if isinstance(data, dict):
        return any(holds(v, wanted) for v in data.values())
    if isinstance(data, list):
        return any(holds(v, wanted) for v in data)
    return False


def test_prices_are_secret_and_can_be_revised(client: Any, app: Any, smtpd: Any) -> None:
    table = Table(client, app, smtpd, "en")
    table.start(auction="open", specials="none")
    table.play(until=lambda s: s["step"] == "pricing")
    state = stored(app).state
    due = GAMES[SLUG].to_act(state)
    # Round 1 without specials: four articles, four buyers, four sellers at base prices.
    assert state["step"] == "pricing" and state["round"] == 1 and len(due) == 4
    first, second = due[0], due[1]
    link = table.links[EMAILS[first]]
    form = move_form(client.get(link).get_data(as_text=True))
    assert form is not None and "prices" in actions(form)
    fields = numbers(form)
    # Ask the most for everything: prices nobody else shows by default.
    data = {**hidden(form), "action": "prices"}
    data.update({name: i["max"] for name, i in fields.items()})
    submit(client, link, data)
    deliver(app)
    table.played_by_hand(first)

    page = client.get(link).get_data(as_text=True)
    waiting = [PLAYERS[s][0] for s in GAMES[SLUG].to_act(stored(app).state)]
    assert "Your prices are in. Still waiting for " + ", ".join(waiting) in page
    form = move_form(page)
    assert form is not None and actions(form) == ["prices"]
    assert {n: i["value"] for n, i in numbers(form).items()} == {
        n: i["max"] for n, i in fields.items()
    }
    mine = stored(app).state["prices"][first]
    other_page = client.get(table.links[EMAILS[second]]).get_data(as_text=True)
    spectator = client.get(f"/w/{table.watch}").get_data(as_text=True)
    for html in (other_page, spectator):
        assert f"{PLAYERS[first][0]} has set their prices." in html
        for article, price in mine.items():
            assert f"{card_name(article, 'en')}: {price} écus" not in html
            assert not re.search(rf'name="price_{article}"[^>]*value="{price}"', html)
    # The JSON API hides them alike: only the seat that set them finds them in its view.
    own = client.get("/api/v1/seat/" + link.rsplit("/", 1)[-1]).get_json()
    assert holds(own["view"], mine)
    other = client.get("/api/v1/seat/" + table.links[EMAILS[second]].rsplit("/", 1)[-1])
    watcher = client.get(f"/api/v1/watch/{table.watch}")
    for answer in (other, watcher):
        assert answer.status_code == 200 and not holds(answer.get_json(), mine)

    # Revise to one écu under the most; the page shows the new prices, still secret.
    data = {**hidden(form), "action": "prices"}
    data.update({name: str(int(i["max"]) - 1) for name, i in fields.items()})
    submit(client, link, data)
    deliver(app)
    state = stored(app).state
    assert state["step"] == "pricing"
    assert state["prices"][first] == {
        name[len("price_") :]: int(i["max"]) - 1 for name, i in fields.items()
    }
    page = client.get(link).get_data(as_text=True)
    assert "changed their prices to:" in page
    form = move_form(page)
    assert form is not None
    assert {n: int(i["value"]) for n, i in numbers(form).items()} == {
        n: int(i["max"]) - 1 for n, i in fields.items()
    }
    # The revision mails nobody; when the others have set theirs, all prices are revealed.
    table.played_by_hand(first)
    table.collect()
    table.play(until=lambda s: s["round"] == 2)
    state = stored(app).state
    (record,) = [r for r in state["history"] if r["round"] == 1]
    assert record["prices"][first] == state["last_prices"][first]
    other_page = client.get(table.links[EMAILS[second]]).get_data(as_text=True)
    held = GAMES[SLUG].view(state, None)["players"][first]["articles"]
    for article, price in record["prices"][first].items():
        # The round's income table: player with their cards, then the price.
        row = rf'<td>{PLAYERS[first][0]} <span class="muted">×{held[article]}</span></td>'
        assert re.search(row + rf'<td class="num">{price}<br>', other_page)


def test_a_garbled_form_is_refused_without_harm(client: Any, app: Any, smtpd: Any) -> None:
    table = Table(client, app, smtpd, "en")
    table.start(auction="open", specials="none")
    mail = table.queue[0]
    link = link_in(mail)
    form = move_form(client.get(link).get_data(as_text=True))
    assert form is not None
    base = hidden(form)
    for junk in (
        {},
        {"action": "choose"},
        {"action": "choose", "slot": "x"},
        {"action": "choose", "slot": "9"},
        {"action": "bid", "amount": "-3"},
        {"action": "prices", "price_herbs": "1e9"},
        {"action": "play:theft-1"},
        {"action": "play:herbs-1"},
    ):
        answer = client.post(f"{link}/move", data={**base, **junk})
        assert answer.status_code == 400, junk
    assert stored(app).ply == 0


@pytest.mark.parametrize(
    ("form", "key"),
    [
        ({}, "fb.form.no_action"),
        ({"action": "choose"}, "fb.form.no_slot"),
        ({"action": "choose", "slot": "two"}, "fb.form.garbled"),
        ({"action": "bid"}, "fb.form.no_amount"),
        ({"action": "bid", "amount": "5.5"}, "fb.form.bad_amount"),
        ({"action": "bid", "amount": "99999"}, "fb.form.bad_amount"),
        ({"action": "prices"}, "fb.form.no_prices"),
        ({"action": "prices", "price_herbs": ""}, "fb.form.bad_price"),
        ({"action": "play:theft-1"}, "fb.form.no_target"),
        ({"action": "play:theft-1", "pick_theft-1": "x:herbs"}, "fb.form.garbled"),
        ({"action": "play:swords-1"}, "fb.form.garbled"),
        ({"action": "play:nothing"}, "fb.form.garbled"),
    ],
)
def test_parse_form_refuses_incomplete_forms(form: dict[str, str], key: str) -> None:
    with pytest.raises(FormError) as caught:
        parse_form(form)
    assert caught.value.args[0] == key


def test_parse_form_moves() -> None:
    assert parse_form({"action": "choose", "slot": "2"}) == {"action": "choose", "slot": 2}
    assert parse_form({"action": "bid", "amount": " 7 "}) == {"action": "bid", "amount": 7}
    assert parse_form({"action": "pass", "amount": "zz"}) == {"action": "pass"}
    assert parse_form({"action": "take"}) == {"action": "take"}
    assert parse_form({"action": "done"}) == {"action": "done"}
    assert parse_form({"action": "play:subsidy-3"}) == {"action": "play", "card": "subsidy-3"}
    assert parse_form({"action": "play:theft-2", "pick_theft-2": "1:swords"}) == {
        "action": "play",
        "card": "theft-2",
        "target": 1,
        "article": "swords",
    }
    assert parse_form({"action": "play:defaulting-1", "pick_defaulting-1": "3"}) == {
        "action": "play",
        "card": "defaulting-1",
        "target": 3,
    }
    prices = {"action": "prices", "price_herbs": "3", "price_swords": "8", "turn": "r1-pricing"}
    assert parse_form(prices) == {"action": "prices", "prices": {"herbs": 3, "swords": 8}}


def test_lobby_offers_fantasy_business_with_readable_options(client: Any) -> None:
    for lang in ("en", "fr"):
        page = client.get(f"/?lang={lang}").get_data(as_text=True)
        assert 'value="fantasy-business"' in page
        assert "option.fantasy-business" not in page
        for key in (
            "option.fantasy-business.auction",
            "option.fantasy-business.auction.orders",
            "option.fantasy-business.auction.open",
            "option.fantasy-business.auction.sealed",
            "option.fantasy-business.specials",
            "option.fantasy-business.specials.standard",
            "option.fantasy-business.specials.none",
        ):
            assert say(lang, key) in page.replace("&#39;", "'")


def test_keys_built_by_the_templates_and_the_presenter_are_translated() -> None:
    for prefix, names in (
        ("fb.page.pick.", ("theft", "defaulting", "defective", "antitrust")),
        ("fb.page.effect.", ("subsidy", "theft", "defaulting", "defective", "antitrust")),
        ("fb.page.mode.", ("orders", "open", "sealed")),
        (
            "fb.page.ask.",
            ("order", "limits", "lists", "antitrust_limits", "pricing", "choose", "open"),
        ),
        (
            "fb.results.reason.",
            ("lowest", "middle", "highest", "all_equal", "sole", "defaulting", "defective"),
        ),
        ("fb.form.", ("bad_amount", "bad_price", "garbled", "no_action", "no_amount")),
    ):
        for lang in ("en", "fr"):
            assert [n for n in names if not translated(prefix + n, lang)] == [], (prefix, lang)


# --- the orders auction (Spec, Playing by mail) ------------------------------------------------


def _sold_by_limits(state: dict[str, Any]) -> list[dict[str, Any]]:
    return [lot for record in state["history"] for lot in record["lots"] if lot["mode"] == "orders"]


def test_whole_game_by_mail_orders_with_specials(client: Any, app: Any, smtpd: Any) -> None:
    table = Table(client, app, smtpd, "en")
    table.start(specials="standard")  # orders is the default
    assert stored(app).options["auction"] == "orders"
    table.play(play_specials=True)
    assert len(table.over) == 4
    check_final_mails(table)
    state = stored(app).state
    sold = _sold_by_limits(state)
    assert sold and any(lot["winner"] is not None for lot in sold)
    assert any(p for record in state["history"] for p in record["played"])
    # A round of orders is a handful of mails: far fewer moves than bid by bid.
    assert table.moves <= 10 * 14
    bodies = [text_of(m) for m in smtpd.messages if "your move" in headline(m)]
    # The turn mail says what is asked, shows the row, and after a round the sale card by card.
    assert any("Set your limits: the most you would pay for each card" in b for b in bodies)
    assert any("The row:" in b and "(base price " in b for b in bodies)
    assert any("Round 1: the sale" in b for b in bodies)
    first_lot = state["history"][0]["lots"][0]
    limits = ", ".join(
        f"{PLAYERS[s][0]} {amount if amount is not None else '–'}"
        for s, amount in first_lot["bids"]
    )
    assert any(limits in b for b in bodies)


def test_whole_game_by_mail_orders_in_french(client: Any, app: Any, smtpd: Any) -> None:
    table = Table(client, app, smtpd, "fr")
    table.start(auction="orders", specials="none")
    table.play()
    assert len(table.over) == 4
    check_final_mails(table)
    assert _sold_by_limits(stored(app).state)
    bodies = [text_of(m) for m in smtpd.messages if "à vous de jouer" in headline(m)]
    assert any("Fixez vos plafonds" in b for b in bodies)
    assert any("Manche 1 : la vente" in b for b in bodies)


def _limits_page_state(table: Table) -> dict[str, Any]:
    table.play(until=lambda s: s["step"] == "limits")
    return stored(table.app).state


def test_limits_are_secret_until_the_sale(client: Any, app: Any, smtpd: Any) -> None:
    table = Table(client, app, smtpd, "en")
    table.start(specials="none")
    state = _limits_page_state(table)
    due = GAMES[SLUG].to_act(state)
    assert len(due) == 4
    first, other = due[0], due[1]
    link = table.links[EMAILS[first]]
    form = move_form(client.get(link).get_data(as_text=True))
    assert form is not None and "limits" in actions(form)
    fields = numbers(form)
    # Everything the seat holds on every card: limits nobody else would show.
    data = {**hidden(form), "action": "limits", **{n: i["max"] for n, i in fields.items()}}
    submit(client, link, data)
    deliver(app)
    table.played_by_hand(first)
    table.collect()
    mine = stored(app).state["limits"][first]
    assert mine == [int(fields[f"limit_{k}"]["max"]) for k in range(len(mine))]
    name = PLAYERS[first][0]
    page = client.get(link).get_data(as_text=True)
    assert "Your limits are in. Still waiting for" in page
    again = move_form(page)
    assert again is not None and {n: i["value"] for n, i in numbers(again).items()} == {
        n: i["max"] for n, i in fields.items()
    }
    others = [client.get(table.links[EMAILS[other]]).get_data(as_text=True)]
    others.append(client.get(f"/w/{table.watch}").get_data(as_text=True))
    others += [text_of(m) + html_of(m) for m in smtpd.messages if recipient(m) != EMAILS[first]]
    for html in others:
        assert f"{name} set these limits" not in html
        assert f"{name} changed their limits" not in html
        for k in range(len(mine)):
            assert not re.search(rf'name="limit_{k}"[^>]*value="{mine[k]}"', html) or mine[k] == 0
    assert f"{name} has set their limits." in others[0]
    # The last one in reviews only their own limits: the others' stay hidden until sent.
    table.play(until=lambda s: len([x for x in s["limits"] if x is not None]) == 3)
    state = stored(app).state
    (last,) = GAMES[SLUG].to_act(state)
    last_link = table.links[EMAILS[last]]
    form = move_form(client.get(last_link).get_data(as_text=True))
    assert form is not None
    review = review_page(client, last_link, sensible_move(form, False))
    html = review.get_data(as_text=True)
    assert "set these limits" in html and f"{name} {mine[0]}" not in html
    assert "wins at" not in html and "only bidder" not in html
    # Once the sale is worked out, every limit is shown, card by card.
    table.played_by_hand(last)
    submit(client, last_link, sensible_move(form, False))
    deliver(app)
    table.collect()
    state = stored(app).state
    lot = state["history"][0]["lots"][0]
    page = client.get(table.links[EMAILS[other]]).get_data(as_text=True)
    limits = ", ".join(
        f"{PLAYERS[s][0]} {amount if amount is not None else '–'}" for s, amount in lot["bids"]
    )
    assert limits in page


def test_lists_of_specials_are_secret_until_carried_out(client: Any, app: Any, smtpd: Any) -> None:
    table = Table(client, app, smtpd, "en")
    table.start(specials="standard")

    def lists_with_two(s: dict[str, Any]) -> bool:
        return s["step"] == "lists" and len(GAMES[SLUG].to_act(s)) >= 2

    def over_or_lists(s: dict[str, Any]) -> bool:
        return s["step"] == "over" or lists_with_two(s)

    table.play(until=over_or_lists)
    state = stored(app).state
    # The fixed seed reaches a lists step where two players hold specials.
    assert lists_with_two(state), "no lists step with two holders of specials: pick another seed"
    first, other = GAMES[SLUG].to_act(state)[:2]
    link = table.links[EMAILS[first]]
    form = move_form(client.get(link).get_data(as_text=True))
    assert form is not None
    submit(client, link, sensible_move(form, True))
    deliver(app)
    table.played_by_hand(first)
    table.collect()
    listed = stored(app).state["plays"][first]
    assert listed
    name = PLAYERS[first][0]
    mine = client.get(link).get_data(as_text=True)
    assert f"{name} will play, in this order:" in mine and "Your list is in." in mine
    others = [client.get(table.links[EMAILS[other]]).get_data(as_text=True)]
    others.append(client.get(f"/w/{table.watch}").get_data(as_text=True))
    others += [text_of(m) + html_of(m) for m in smtpd.messages if recipient(m) != EMAILS[first]]
    for html in others:
        assert "will play, in this order" not in html
    assert_hides(others[0], stored(app).state, other, "another seat's page during lists")
    assert_hides(others[1], stored(app).state, None, "the spectator page during lists")
    assert f"{name} has listed their special cards." in others[0]


def test_order_form_works_without_script_and_offers_one(client: Any, app: Any, smtpd: Any) -> None:
    table = Table(client, app, smtpd, "en")
    table.start(specials="none")
    state = stored(app).state
    (first,) = GAMES[SLUG].to_act(state)
    link = table.links[EMAILS[first]]
    page = client.get(link).get_data(as_text=True)
    form = move_form(page)
    assert form is not None and actions(form) == ["order"]
    places = sorted(n for n in form["selects"] if n.startswith("place_"))
    assert len(places) == 4 and all(form["selects"][n] == ["1", "2", "3", "4"] for n in places)
    # The script that adds arrows is a file of its own (no inline script).
    assert '<script src="/static/fb-order.js" defer></script>' in page
    assert "<script>" not in page
    assert client.get("/static/fb-order.js").status_code == 200
    # Two cards at the same place: refused with a clear message, nothing played.
    bad = {**hidden(form), "action": "order", **{n: "1" for n in places}}
    answer = client.post(f"{link}/move", data=bad)
    assert answer.status_code == 400 and stored(app).ply == 0
    submit(
        client,
        link,
        {
            **hidden(form),
            "action": "order",
            "place_0": "2",
            "place_1": "1",
            "place_2": "4",
            "place_3": "3",
        },
    )
    assert stored(app).state["order"] == [1, 0, 3, 2]


@pytest.mark.parametrize(
    ("form", "move"),
    [
        (
            {"action": "order", "place_0": "2", "place_1": "3", "place_2": "1"},
            {"action": "order", "order": [2, 0, 1]},
        ),
        (
            {"action": "limits", "limit_0": "5", "limit_1": "", "limit_2": " 7 "},
            {"action": "limits", "limits": [5, 0, 7]},
        ),
        ({"action": "specials"}, {"action": "specials", "plays": []}),
        (
            {
                "action": "specials",
                "use_theft-2": "1",
                "pick_theft-2": "1:swords",
                "rank_theft-2": "2",
                "use_subsidy-1": "1",
                "rank_subsidy-1": "1",
                "pick_defaulting-1": "2",
            },
            {
                "action": "specials",
                "plays": [
                    {"card": "subsidy-1"},
                    {"card": "theft-2", "target": 1, "article": "swords"},
                ],
            },
        ),
        ({"action": "limit", "amount": "6"}, {"action": "limit", "amount": 6}),
        ({"action": "limit", "amount": ""}, {"action": "limit", "amount": 0}),
    ],
)
def test_parse_form_orders_moves(form: dict[str, str], move: dict[str, Any]) -> None:
    assert parse_form(form) == move


@pytest.mark.parametrize(
    ("form", "key"),
    [
        ({"action": "order", "place_0": "1", "place_1": "1"}, "fb.form.bad_order"),
        ({"action": "order", "place_0": "1", "place_2": "2"}, "fb.form.garbled"),
        ({"action": "order", "place_0": "x"}, "fb.form.bad_order"),
        ({"action": "order"}, "fb.form.garbled"),
        ({"action": "limits", "limit_0": "-1"}, "fb.form.bad_limit"),
        ({"action": "limits", "limit_x": "1"}, "fb.form.garbled"),
        ({"action": "specials", "use_theft-1": "1"}, "fb.form.no_target"),
        ({"action": "specials", "use_herbs-1": "1"}, "fb.form.garbled"),
        ({"action": "limit", "amount": "1.5"}, "fb.form.bad_amount"),
    ],
)
def test_parse_form_refuses_bad_orders_forms(form: dict[str, str], key: str) -> None:
    with pytest.raises(FormError) as caught:
        parse_form(form)
    assert caught.value.args[0] == key
