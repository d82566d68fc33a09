"""Replay a game ply by ply, as a seat saw it then (a spectator as spectators did; after the
end, as anyone), with plain links; and the log exported as JSON and text."""

from __future__ import annotations

import json
import re
from typing import Any

from pbem.games import GAMES
from pbem.present.text import card_name
from tests.web.helpers import assert_hides, hidden_from, play_turn, start_game, state_of


def test_replay_steps_through_the_game_as_the_seat_saw_it(
    client: Any, app: Any, smtpd: Any
) -> None:
    links, _ = start_game(client, app, smtpd)
    seat_links = list(links.values())
    states = [state_of(app).state]
    for _ in range(4):
        play_turn(client, seat_links[states[-1]["turn"]])
        states.append(state_of(app).state)
    for ply, state in enumerate(states):
        page = client.get(f"{seat_links[1]}/replay?ply={ply}")
        assert page.status_code == 200
        html = page.get_data(as_text=True)
        # Léo's hand as it was then, and nobody else's.
        assert all(card_name(c, "en") in html for c in state["hands"][1])
        assert_hides(html, hidden_from(state, 1), f"replay at ply {ply}")
        assert 'action="' not in html.split("<main>")[1].split("</main>")[0] or "/move" not in html
    html = client.get(f"{seat_links[1]}/replay?ply=2").get_data(as_text=True)
    assert "Replay: after move 2 of 4." in html
    assert f'href="{seat_links[1]}/replay?ply=1" rel="prev"' in html
    assert f'href="{seat_links[1]}/replay?ply=3" rel="next"' in html
    assert '<script src="/static/replay.js" defer></script>' in html
    assert "<script>" not in html  # no inline script
    # While the game runs, nobody replays as someone else.
    assert client.get(f"{seat_links[1]}/replay?as=0").status_code == 403
    watch = re.search(
        r'href="http://pbem\.test(/w/[^"]+)"', client.get(seat_links[0]).get_data(as_text=True)
    ).group(1)
    spectator = client.get(f"{watch}/replay?ply=3").get_data(as_text=True)
    assert "As spectators saw it." in spectator
    assert_hides(spectator, hidden_from(states[3], None), "spectator replay")


def test_export_json_and_text_hide_what_the_viewer_may_not_see(
    client: Any, app: Any, smtpd: Any
) -> None:
    links, _ = start_game(client, app, smtpd)
    seat_links = list(links.values())
    for _ in range(3):
        play_turn(client, seat_links[state_of(app).state["turn"]])
    game = state_of(app)
    response = client.get(f"{seat_links[0]}/export.json")
    assert response.status_code == 200 and response.mimetype == "application/json"
    data = json.loads(response.get_data(as_text=True))
    assert [m["ply"] for m in data["moves"]] == [1, 2, 3]
    assert "seed" not in data and "move" not in data["moves"][0]
    assert str(game.seed) not in response.get_data(as_text=True)
    text = client.get(f"{seat_links[0]}/export.txt")
    assert text.mimetype == "text/plain" and text.get_data(as_text=True).count("\n1. ") == 1
    for body in (response.get_data(as_text=True), text.get_data(as_text=True)):
        assert_hides(body, hidden_from(game.state, 0), "export")
        for card in hidden_from(game.state, 0):
            assert f': "{card}"' not in body  # a card id as a value
    assert client.get(f"{seat_links[0]}/export.csv").status_code == 404


def test_the_json_export_downloads_as_a_named_file(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    seat = list(links.values())[0]
    watch = re.search(
        r'href="http://pbem\.test(/w/[^"]+)"', client.get(seat).get_data(as_text=True)
    ).group(1)
    for link in (seat, watch):
        exported = client.get(f"{link}/export.json")
        assert exported.headers["Content-Disposition"] == (
            'attachment; filename="pbem-colour-bazaar-1.json"'
        )
        # The text is for reading in the tab.
        text = client.get(f"{link}/export.txt")
        assert text.headers["Content-Disposition"] == 'inline; filename="pbem-colour-bazaar-1.txt"'


def test_after_the_end_anyone_replays_as_anyone_and_the_seed_is_exported(
    client: Any, app: Any, smtpd: Any
) -> None:
    links, _ = start_game(client, app, smtpd)
    seat_links = list(links.values())
    for _ in range(40):
        game = state_of(app)
        if game.status == "over":
            break
        play_turn(client, seat_links[game.state["turn"]])
    game = state_of(app)
    assert game.status == "over"
    data = json.loads(client.get(f"{seat_links[2]}/export.json").get_data(as_text=True))
    assert data["seed"] == game.seed and all("move" in m for m in data["moves"])
    # The exported moves replay to the stored final state.
    rules = GAMES["colour-bazaar"]
    state = rules.setup(3, data["options"], data["seed"])
    for entry in data["moves"]:
        state = rules.apply(state, entry["seat"], entry["move"])
    assert state == game.state
    html = client.get(f"{seat_links[2]}/replay?ply=5&as=0").get_data(as_text=True)
    assert "As Ana saw it." in html
    assert "Final scores" in client.get(f"{seat_links[2]}/replay").get_data(as_text=True)


def test_each_step_names_its_move_by_the_buttons_and_marks_its_market(
    client: Any, app: Any, smtpd: Any
) -> None:
    links, _ = start_game(client, app, smtpd)
    seat_links = list(links.values())
    for _ in range(3):
        play_turn(client, seat_links[state_of(app).state["turn"]])
    for ply in (1, 2, 3):
        html = client.get(f"{seat_links[0]}/replay?ply={ply}").get_data(as_text=True)
        said = re.search(r'<p class="said"><strong>Move (\d+):</strong> ([^<]+)</p>', html)
        assert said and said.group(1) == str(ply), html[:2000]
        # The step's move, as the log tells it, sits right under the step buttons' header.
        assert html.index('class="said"') < html.index('class="steps"')
        played = re.search(r"played (.+) on market (\d)", said.group(2))
        assert played, said.group(2)
        marked = re.findall(r'<div class="market last" id="market-(\d)"', html)
        assert marked == [played.group(2)]
    first = client.get(f"{seat_links[0]}/replay?ply=0").get_data(as_text=True)
    assert 'class="said"' not in first and "market last" not in first
