"""The JSON API: the seat's view, moves in JSON, the onlooker's view, errors as JSON."""

from __future__ import annotations

from typing import Any

from pbem.models import Game
from pbem.storage.db import read_session
from tests.web.helpers import (
    PLAYERS,
    acting,
    api,
    counts,
    deliver,
    form_with,
    headline,
    hidden,
    post_move,
    start_game,
    text_of,
)


def test_a_whole_turn_over_the_api(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    seat_links = list(links.values())
    (first,) = client.get(api(seat_links[0])).get_json()["game"]["to_act"]
    nxt = (first + 1) % 3
    view = client.get(api(seat_links[first])).get_json()
    assert view["seat"] == first and view["game"]["status"] == "active"
    assert view["legal_moves"] and view["turn"]
    # The page offers the same turn token.
    page_form = form_with(client.get(seat_links[first]).get_data(as_text=True), "/move")
    assert hidden(page_form)["turn"] == view["turn"]
    other = client.get(api(seat_links[nxt])).get_json()
    assert other["legal_moves"] == [] and other["turn"] is None
    # The move is played once, answered with the new view; the next player gets a mail.
    before = counts(app)
    move = {"turn": view["turn"], "move": view["legal_moves"][0]}
    answer = post_move(client, seat_links[first], move)
    assert answer.status_code == 200, answer.get_json()
    after = answer.get_json()
    assert after["game"]["ply"] == 1 and after["turn"] is None
    assert after["game"]["to_act"] == [nxt]
    assert after["log"] and after["log"][-1]["seat"] == first
    assert counts(app)[0] == before[0] + 1
    smtpd.clear()
    deliver(app)
    (mail,) = smtpd.messages
    names = [name for name, _ in PLAYERS]
    assert names[nxt] in str(mail["To"]) and headline(mail).startswith("your move")
    assert names[first] in text_of(mail)
    # The same move again is stale: 409, nothing written.
    again = post_move(client, seat_links[first], move)
    assert again.status_code == 409 and again.get_json()["error"] == "stale"
    assert again.get_json()["message"] == "This turn was already played."
    assert counts(app)[0] == before[0] + 1


def test_a_move_is_answered_with_the_view_the_seat_then_has(
    client: Any, app: Any, smtpd: Any
) -> None:
    """The answer to a move is made from the game as the move left it, not read again: it is
    the view the seat's GET gives right after, move after move, past the log's first page
    (the take back offer, the clocks, the log's last lines all included)."""
    links, _ = start_game(client, app, smtpd)
    for _ in range(14):
        link = acting(client, links)
        view = client.get(api(link)).get_json()
        answer = post_move(client, link, {"turn": view["turn"], "move": view["legal_moves"][-1]})
        assert answer.status_code == 200, answer.get_json()
        assert answer.get_json() == client.get(api(link)).get_json()
        if answer.get_json()["game"]["status"] != "active":
            break
    assert answer.get_json()["game"]["ply"] > 12  # the log's first lines have left the answer
    assert answer.get_json()["take_back"]["may_ask"]


def test_refused_moves_say_why_and_change_nothing(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    link = acting(client, links)
    view = client.get(api(link)).get_json()
    before = counts(app)
    legal = view["legal_moves"][0]
    illegal = {**legal, "market": 7}
    answer = post_move(client, link, {"turn": view["turn"], "move": illegal})
    assert answer.status_code == 400 and answer.get_json()["error"] == "illegal"
    assert answer.get_json()["message"]
    french = post_move(
        client, link, {"turn": view["turn"], "move": illegal}, query_string={"lang": "fr"}
    )
    assert (
        french.status_code == 400 and french.get_json()["message"] != answer.get_json()["message"]
    )
    for body in ("null", [], {"turn": 3, "move": {}}, {"turn": view["turn"]}, {"move": legal}):
        answer = post_move(client, link, body)
        assert answer.status_code == 400 and answer.get_json()["error"] == "bad_request", body
    weird = post_move(client, link, {"turn": view["turn"], "move": {"card": ["x"], "market": "a"}})
    assert weird.status_code == 400 and weird.get_json()["error"] in ("illegal", "bad_move")
    form = client.post(f"{api(link)}/move", data={"turn": view["turn"]}, raw=True)
    assert form.status_code == 415 and form.get_json()["error"] == "unsupported_media_type"
    assert counts(app) == before


def test_wrong_links_are_json_404_then_429(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    link = list(links.values())[0]
    wrong = api(link)[:-3] + "xyz"
    answer = client.get(wrong)
    assert answer.status_code == 404 and answer.get_json()["error"] == "not_found"
    for _ in range(40):
        answer = client.get(wrong)
    assert answer.status_code == 429 and answer.get_json()["error"] == "rate_limited"
    put = client.put(api(link))
    assert put.status_code == 405 and put.get_json()["error"] == "method_not_allowed"


def test_the_watch_link_shows_no_hand(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    page = client.get(list(links.values())[0]).get_data(as_text=True)
    watch = page.split('href="http://pbem.test/w/')[1].split('"')[0]
    view = client.get(f"/api/v1/watch/{watch}").get_json()
    assert view["seat"] is None and view["turn"] is None and view["legal_moves"] == []
    with read_session(app.extensions["pbem"]["engine"]) as session:
        state = session.get(Game, 1).state
    text = str(view)
    assert not any(f"'{card}'" in text for hand in state["hands"] for card in hand)


def test_cross_site_posts_are_refused(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    link = acting(client, links)
    view = client.get(api(link)).get_json()
    body = {"turn": view["turn"], "move": view["legal_moves"][0]}
    answer = post_move(client, link, body, headers={"Origin": "https://evil.example"})
    assert answer.status_code == 403 and answer.get_json()["error"] == "forbidden"
    assert client.get(api(link)).get_json()["game"]["ply"] == 0
