"""The API with every kind of game: the orders auction's secret limits, and computer seats."""

from __future__ import annotations

from typing import Any

from pbem.clock.scheduler import computer_moves
from pbem.games import GAMES
from pbem.present.fantasy_business import turn_prompt
from tests.web.fantasy_business import EMAILS, PLAYERS, SLUG, Table, stored
from tests.web.helpers import api, deliver, headline, post_move, state_of, text_of


def has(data: Any, key: str, value: Any) -> bool:
    """Whether some dict inside `data` maps `key` to `value`."""
    if isinstance(data, dict):
        if key in data and data[key] == value:
            return True
        return any(has(v, key, value) for v in data.values())
    if isinstance(data, list):
        return any(has(v, key, value) for v in data)
    return False


def test_the_orders_auction_over_the_api_keeps_limits_secret(
    client: Any, app: Any, smtpd: Any
) -> None:
    table = Table(client, app, smtpd, "en")
    table.start(specials="none")  # the orders auction is the default
    table.play(until=lambda s: s["step"] == "limits")
    due = GAMES[SLUG].to_act(stored(app).state)
    first, *rest = due
    link = table.links[EMAILS[first]]
    view = client.get(api(link)).get_json()
    assert view["view"]["step"] == "limits" and view["turn"]
    assert all(m["action"] == "limits" for m in view["legal_moves"])
    choice = max(view["legal_moves"], key=lambda m: sum(m["limits"]))
    answer = post_move(client, link, {"turn": view["turn"], "move": choice})
    assert answer.status_code == 200, answer.get_json()
    mine = choice["limits"]
    assert stored(app).state["limits"][first] == mine
    # The seat finds its own limits in its view; the others and the onlooker do not.
    assert has(answer.get_json()["view"], "limits", mine)
    onlookers = [client.get(api(table.links[EMAILS[s]])).get_json() for s in rest]
    onlookers.append(client.get(f"/api/v1/watch/{table.watch}").get_json())
    for other in onlookers:
        # (Their own legal moves may offer the same numbers: the view and log may not hold it.)
        assert not has([other["view"], other["log"]], "limits", mine)
    assert all(other["turn"] for other in onlookers[:-1]) and onlookers[-1]["turn"] is None
    # The others set theirs over the API too; then the sale by limits is worked out.
    ply = stored(app).ply
    for seat in rest:
        seat_link = table.links[EMAILS[seat]]
        view = client.get(api(seat_link)).get_json()
        move = {"turn": view["turn"], "move": view["legal_moves"][0]}
        answer = post_move(client, seat_link, move)
        assert answer.status_code == 200, answer.get_json()
    state = stored(app).state
    assert stored(app).ply == ply + len(rest) and state["step"] != "limits"
    assert state["history"][0]["lots"], "the sale by limits sold or offered no card"
    deliver(app)


def test_a_game_against_computers_over_the_api(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    form = {
        "game": "colour-bazaar",
        "name_0": "Ana",
        "email_0": "ana@example.org",
        "computer_1": "casual",
        "computer_2": "beginner",
        "opt_colour-bazaar_first": "1",
    }
    made = client.post("/games", data=form)
    assert made.status_code == 303
    deliver(app)
    link = made.headers["Location"]  # her seat page opens at once, with no mail (issue 31)
    mine = 0
    while state_of(app).status == "active" and mine < 3:
        view = client.get(api(link)).get_json()
        assert [s["computer"] for s in view["game"]["seats"]] == [None, "casual", "beginner"]
        if view["turn"] is None:
            # A computer's turn: the API says who is to act; the clock's sweep moves it.
            assert view["game"]["to_act"] != [0] and view["legal_moves"] == []
            clock.advance(seconds=4)
            assert computer_moves(app) == 1
            continue
        answer = post_move(client, link, {"turn": view["turn"], "move": view["legal_moves"][0]})
        assert answer.status_code == 200, answer.get_json()
        mine += 1
    log = client.get(api(link)).get_json()["log"]
    assert {e["source"] for e in log if e["seat"] != 0} == {"computer"}
    assert {e["source"] for e in log if e["seat"] == 0} == {"web"}
    assert mine == 3


def test_a_turn_mail_rendered_late_asks_what_its_moment_asked(
    client: Any, app: Any, smtpd: Any
) -> None:
    """The sender renders after commit, maybe moves later: a Fantasy Business turn mail
    still asks for the step of its moment, with the row of that moment."""
    table = Table(client, app, smtpd, "en")
    table.start(specials="none")
    table.play(until=lambda s: s["step"] == "limits")
    rules, names = GAMES[SLUG], [name for name, _ in PLAYERS]
    smtpd.clear()
    asked: dict[int, list[str]] = {}  # per seat, what each turn mail queued should ask
    steps = set()
    for _ in range(12):  # moves over the API, and no mail sent meanwhile
        state = stored(app).state
        seat = rules.to_act(state)[0]
        link = table.links[EMAILS[seat]]
        view = client.get(api(link)).get_json()
        move = {"turn": view["turn"], "move": view["legal_moves"][0]}
        assert post_move(client, link, move).status_code == 200
        after = stored(app).state
        steps.add(after["step"])
        for newly in set(rules.to_act(after)) - set(rules.to_act(state)) - {seat}:
            prompt = turn_prompt(rules.view(after, newly), newly, names, "en")
            asked.setdefault(newly, []).append(prompt["ask"] if prompt else "")
    assert len(steps) > 1
    deliver(app)
    changed = 0
    for seat, asks in asked.items():
        mails = [m for m in smtpd.to(EMAILS[seat]) if headline(m).startswith("your move")]
        assert len(mails) == len(asks)
        for mail, ask in zip(mails, asks, strict=True):
            assert ask in text_of(mail)
        changed += len(set(asks)) > 1
    assert changed, "no seat was asked two different things before the sender ran"
