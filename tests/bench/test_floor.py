"""bench/floor.py does the work it stands for, and bench/instructions.py counts by subtraction.

Run once each, without valgrind: a move writes its move row, state and outbox row; the
sender delivers the turn mail to a real SMTP server and marks it sent; the page shows the
seat's move form; a link with a bad signature is refused.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bench import floor
from bench.instructions import per_unit, read_total
from pbem.games import GAMES

SECRET = "floor-test-secret"
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def _first_move(path: str, tokens: list[str]) -> tuple[str, dict[str, str]]:
    with sqlite3.connect(path) as conn:
        (state_json,) = conn.execute("SELECT state FROM game").fetchone()
    state, rules = json.loads(state_json), GAMES["colour-bazaar"]
    seat = rules.to_act(state)[0]
    fields = {
        "turn": rules.turn_token(state, seat),
        "move": json.dumps(rules.legal_moves(state, seat)[0]),
        "csrf": floor.form_token(SECRET, tokens[seat]),
    }
    return tokens[seat], fields


@pytest.fixture
def game(tmp_path: Path) -> tuple[str, list[str]]:
    path = str(tmp_path / "floor.sqlite3")
    floor.create_schema(path)
    return path, floor.create_game(path, "colour-bazaar", ["Ana", "Léo"], 7, SECRET)


def test_a_move_writes_its_row_the_state_and_one_turn_mail(game: tuple[str, list[str]]) -> None:
    path, tokens = game
    client = floor.create_app(path, SECRET, lambda: NOW).test_client()
    token, fields = _first_move(path, tokens)
    answer = client.post(f"/p/{token}/move", data=fields)
    assert answer.status_code == 303
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT ply, move FROM move").fetchall() == [(0, fields["move"])]
        assert conn.execute("SELECT ply FROM game").fetchone() == (1,)
        assert conn.execute("SELECT count(*) FROM outbox WHERE sent_at IS NULL").fetchone() == (1,)
    # The same form again is stale: the turn has moved on, and nothing more is written.
    assert client.post(f"/p/{token}/move", data=fields).status_code == 409
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM move").fetchone() == (1,)


def test_a_link_with_a_bad_signature_is_refused(game: tuple[str, list[str]]) -> None:
    path, tokens = game
    client = floor.create_app(path, SECRET, lambda: NOW).test_client()
    assert client.get(f"/p/{tokens[0]}").status_code == 200
    assert client.get(f"/p/{tokens[0][:-1]}0").status_code == 404


def test_the_page_offers_the_move_form_to_the_seat_that_acts(
    game: tuple[str, list[str]],
) -> None:
    path, tokens = game
    client = floor.create_app(path, SECRET, lambda: NOW).test_client()
    token, fields = _first_move(path, tokens)
    page = client.get(f"/p/{token}").get_data(as_text=True)
    assert 'name="turn" value="' + fields["turn"] in page and "Send" in page


def test_the_sender_delivers_the_turn_mail_and_marks_it_sent(
    game: tuple[str, list[str]], smtpd: Any
) -> None:
    path, tokens = game
    client = floor.create_app(path, SECRET, lambda: NOW).test_client()
    token, fields = _first_move(path, tokens)
    client.post(f"/p/{token}/move", data=fields)
    assert floor.drain(path, SECRET, "127.0.0.1", smtpd.port, NOW) == 1
    (mail,) = smtpd.messages
    assert mail["Subject"] == "colour-bazaar #1: your move"
    assert {part.get_content_type() for part in mail.walk()} >= {"text/plain", "text/html"}
    assert floor.drain(path, SECRET, "127.0.0.1", smtpd.port, NOW) == 0  # sent once


def test_the_bare_insert_writes_a_row(tmp_path: Path) -> None:
    path = str(tmp_path / "floor.sqlite3")
    floor.create_schema(path)
    client = floor.create_app(path, SECRET, lambda: NOW).test_client()
    assert client.post("/insert", data={"note": "hello"}).get_data(as_text=True) == "ok"
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT note FROM bench_insert").fetchall() == [("hello",)]


def test_instructions_per_unit_are_the_difference_of_two_runs() -> None:
    # A counter of 5,000 for start-up plus 1,200 a unit: any two counts give 1,200 a unit.
    def fake(n: int) -> int:
        return 5000 + 1200 * n

    assert per_unit(fake, 2, 6) == 1200
    assert per_unit(fake, 60, 300) == 1200
    with pytest.raises(ValueError):
        per_unit(fake, 6, 6)


def test_the_total_is_read_from_callgrinds_output(tmp_path: Path) -> None:
    out = tmp_path / "callgrind.out"
    out.write_text("version: 1\ncmd: python\nevents: Ir\nfl=x\n0 12\nsummary: 987654\n")
    assert read_total(out) == 987654
