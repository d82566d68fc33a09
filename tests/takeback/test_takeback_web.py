"""Undo with consent on the seat pages (plain forms, no JavaScript needed) and through the
JSON API; the log line of a move taken back, in English and French."""

from __future__ import annotations

from typing import Any

from tests.web.helpers import PLAYERS, form_with, hidden, play_turn, start_game
from tests.web.test_api import acting, api

ASK_BUTTON = "Ask to take back my move"


def _seats(client: Any, links: dict[str, str]) -> tuple[str, str]:
    """After the first move: the mover's link and the next player's."""
    mover = acting(client, links)
    play_turn(client, mover)
    return mover, acting(client, links)


def test_ask_and_allow_on_the_pages(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    first = client.get(acting(client, links)).get_data(as_text=True)
    mover, nxt = _seats(client, links)
    page = client.get(mover).get_data(as_text=True)
    assert ASK_BUTTON in page
    assert ASK_BUTTON not in client.get(nxt).get_data(as_text=True)
    form = form_with(page, "/takeback")
    assert client.post(f"{mover}/takeback", data=hidden(form)).status_code == 303
    waiting = client.get(mover).get_data(as_text=True)
    assert "has not answered yet" in waiting and ASK_BUTTON not in waiting
    # A second ask, from an old page: refused in words, with a 409.
    again = client.post(f"{mover}/takeback", data=hidden(form))
    assert again.status_code == 409
    assert "already waiting for its answer" in again.get_data(as_text=True)
    asked = client.get(nxt).get_data(as_text=True)
    mover_name = next(n for n, e in PLAYERS if links[e] == mover)
    nxt_name = next(n for n, e in PLAYERS if links[e] == nxt)
    assert f"{mover_name} asks to take back their move." in asked
    answer = form_with(asked, "/takeback/answer")
    done = client.post(f"{nxt}/takeback/answer", data={**hidden(answer), "answer": "allow"})
    assert done.status_code == 303
    back = client.get(mover).get_data(as_text=True)
    # The mover's turn again: the move form is back, and the log says what happened.
    assert 'action="' + mover.replace("http://pbem.test", "") + '/move"' in back
    assert back.count('name="play"') == first.count('name="play"')
    line = f"Move 1: {mover_name} took back their move (agreed by {nxt_name})."
    assert line in back and line in client.get(nxt).get_data(as_text=True)


def test_the_log_line_and_the_question_in_french(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    mover, nxt = _seats(client, links)
    assert client.post(f"{mover}/takeback").status_code == 303
    asked = client.get(f"{nxt}?lang=fr").get_data(as_text=True)
    assert "demande à reprendre son coup" in asked and "Accepter" in asked
    assert client.post(f"{nxt}/takeback/answer", data={"answer": "allow"}).status_code == 303
    page = client.get(f"{mover}?lang=fr").get_data(as_text=True)
    # "de Léo", or "d'Ana" (elided before a vowel): who moves first is dealt.
    assert "a repris son coup (avec l'accord d" in page


def test_refused_on_the_page(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    mover, nxt = _seats(client, links)
    assert client.post(f"{mover}/takeback").status_code == 303
    assert client.post(f"{nxt}/takeback/answer", data={"answer": "refuse"}).status_code == 303
    assert 'name="play"' in client.get(nxt).get_data(as_text=True)  # still their turn
    late = client.post(f"{nxt}/takeback/answer", data={"answer": "allow"})
    assert late.status_code == 409


def test_through_the_api(client: Any, app: Any, smtpd: Any) -> None:
    links, _ = start_game(client, app, smtpd)
    mover, nxt = _seats(client, links)
    view = client.get(api(mover)).get_json()
    assert view["take_back"] == {"may_ask": True, "asked_by": None, "waiting_for": None}
    asked = client.post(f"{api(mover)}/takeback", raw=True)
    assert asked.status_code == 200
    nxt_name = next(n for n, e in PLAYERS if links[e] == nxt)
    assert asked.get_json()["take_back"]["waiting_for"] == nxt_name
    twice = client.post(f"{api(mover)}/takeback", raw=True)
    assert twice.status_code == 409 and twice.get_json()["error"] == "take_back"
    theirs = client.get(api(nxt)).get_json()
    assert theirs["take_back"]["asked_by"] is not None and theirs["turn"] is not None
    bad = client.post(f"{api(nxt)}/takeback/answer", json={"answer": "maybe"}, raw=True)
    assert bad.status_code == 400
    allowed = client.post(f"{api(nxt)}/takeback/answer", json={"answer": "allow"}, raw=True)
    assert allowed.status_code == 200 and allowed.get_json()["turn"] is None
    again = client.get(api(mover)).get_json()
    assert again["game"]["ply"] == 0 and again["turn"] is not None and again["legal_moves"]
    assert client.get(api(mover)).get_json()["take_back"]["may_ask"] is False
