"""Undo with consent on the seat pages (plain forms, no JavaScript needed) and through the
JSON API; the log line of a move taken back, in English and French."""

from __future__ import annotations

from typing import Any

from pbem.games import GAMES
from pbem.present.text import card_name
from tests.leagues.helpers import play_computers
from tests.takeback.helpers import answer, ask, game_of, move, started, to_act
from tests.web.helpers import (
    PLAYERS,
    acting,
    api,
    deliver,
    form_with,
    hidden,
    link_in,
    links,
    play_turn,
    start_game,
)

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


def against_the_computer(client: Any, app: Any, smtpd: Any, **rows: str) -> str:
    """Ana's seat in a game she starts against a computer (and whoever `rows` add), Ana first."""
    form = {
        "game": "colour-bazaar",
        "name_0": "Ana",
        "email_0": "ana@example.org",
        "computer_1": "casual",
        "opt_colour-bazaar_first": "0",
        **rows,
    }
    made = client.post("/games", data=form)
    assert made.status_code == 303
    return made.headers["Location"]


def test_no_take_back_is_offered_when_a_computer_plays_next(
    client: Any, app: Any, smtpd: Any
) -> None:
    ana = against_the_computer(client, app, smtpd)
    play_turn(client, ana)  # the computer's reply is not played yet: it is its turn
    for lang in ("fr", "en"):  # the switch sets Ana's language: English last
        page = client.get(f"{ana}?lang={lang}").get_data(as_text=True)
        assert "/takeback" not in page
    assert client.get(api(ana)).get_json()["take_back"]["may_ask"] is False
    # Asked all the same (an old page, the API, the word "undo" by mail): refused in words.
    asked = client.post(f"{ana}/takeback")
    assert asked.status_code == 409
    assert "A computer player moves next" in asked.get_data(as_text=True)
    by_api = client.post(f"{api(ana)}/takeback", raw=True)
    assert by_api.status_code == 409 and "computer" in by_api.get_json()["message"]


def test_beside_a_computer_a_person_next_is_still_asked(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    # Ana, Léo, a computer; Léo first: the computer answers Léo's move, Léo answers Ana's.
    made = client.post(
        "/games",
        data={
            "game": "colour-bazaar",
            "name_0": "Ana",
            "email_0": "ana@example.org",
            "name_1": "Léo",
            "email_1": "leo@example.org",
            "computer_2": "casual",
            "opt_colour-bazaar_first": "1",
        },
    )
    assert made.status_code == 303
    deliver(app)
    leo = link_in(smtpd.to("leo@example.org")[0])
    assert client.post(f"{leo}/join").status_code == 303
    deliver(app)
    ana = link_in(smtpd.to("ana@example.org")[-1])
    play_turn(client, leo)
    assert ASK_BUTTON not in client.get(leo).get_data(as_text=True)  # the computer is next
    assert play_computers(app, clock) == 1
    play_turn(client, ana)
    assert ASK_BUTTON in client.get(ana).get_data(as_text=True)  # Léo is next


def test_after_a_take_back_the_board_shows_the_move_made_instead(
    client: Any, app: Any, clock: Any
) -> None:
    """The markets are drawn once per ply and kept (issue 50): a move taken back leaves its
    ply to another move, and the board then shows that one, not the one taken back."""
    game_id = started(app, clock)
    pages = [path.replace("/api/v1/seat/", "/p/") for path in links(app, game_id)]
    mover = to_act(app, game_id)
    before = game_of(app, game_id).state or {}
    legal = [m for m in GAMES["colour-bazaar"].legal_moves(before, mover) if "card" in m]
    first = move(app, game_id, clock, pick=0)
    other = next(m for m in legal if m["card"] != first["card"])

    def board(page: str) -> str:
        html = client.get(page, query_string={"lang": "en"}).get_data(as_text=True)
        return html[html.index('<div class="markets">') : html.index('<p class="muted pile">')]

    assert card_name(first["card"], "en") in board(pages[mover])
    ask(app, game_id, mover, clock)
    answer(app, game_id, 1 - mover, True, clock)
    move(app, game_id, clock, pick=GAMES["colour-bazaar"].legal_moves(before, mover).index(other))
    for page in pages:
        shown = board(page)
        assert card_name(other["card"], "en") in shown
        assert card_name(first["card"], "en") not in shown
