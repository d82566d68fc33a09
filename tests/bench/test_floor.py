"""bench/floor.py does the work it stands for, and bench/instructions.py reads callgrind's dumps.

Run once each, without valgrind: a move writes its move row, state and outbox row; the
sender delivers the turn mail to a real SMTP server and marks it sent, on connections kept
from one drain to the next; the page shows the seat's move form; the poll answers 304
while the page is up to date; a link with a bad signature is refused.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bench import floor
from bench.counting import read_dumps
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


def test_a_kept_sender_sends_each_drains_mail_once_on_one_connection(
    game: tuple[str, list[str]], smtpd: Any
) -> None:
    path, tokens = game
    client = floor.create_app(path, SECRET, lambda: NOW).test_client()
    drainer = floor.Drainer(path, SECRET, "127.0.0.1", smtpd.port)
    for _ in range(3):  # the first seat to act moves, then the other, then the first
        token, fields = _first_move(path, tokens)
        assert client.post(f"/p/{token}/move", data=fields).status_code == 303
        assert drainer.drain(NOW) == 1
        assert drainer.drain(NOW) == 0
    drainer.close()
    assert len(smtpd.messages) == 3
    assert {mail["To"] for mail in smtpd.messages} == {
        "Ana <seat0.1@floor.example>",
        "Léo <seat1.1@floor.example>",  # written as an encoded word, read back
    }


def test_the_poll_answers_304_until_the_game_moves(game: tuple[str, list[str]]) -> None:
    path, tokens = game
    client = floor.create_app(path, SECRET, lambda: NOW).test_client()
    first = client.get(f"/p/{tokens[0]}/version")
    assert first.status_code == 200 and first.get_json() == {"ply": 0}
    again = client.get(f"/p/{tokens[0]}/version", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304
    token, fields = _first_move(path, tokens)
    client.post(f"/p/{token}/move", data=fields)
    moved = client.get(f"/p/{tokens[0]}/version", headers={"If-None-Match": first.headers["ETag"]})
    assert moved.status_code == 200 and moved.get_json() == {"ply": 1}


def test_the_bare_insert_writes_a_row(tmp_path: Path) -> None:
    path = str(tmp_path / "floor.sqlite3")
    floor.create_schema(path)
    client = floor.create_app(path, SECRET, lambda: NOW).test_client()
    assert client.post("/insert", data={"note": "hello"}).get_data(as_text=True) == "ok"
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT note FROM bench_insert").fetchall() == [("hello",)]


def test_each_labelled_dump_is_read_by_its_label(tmp_path: Path) -> None:
    # callgrind writes a file a dump (CALLGRIND_DUMP_STATS_AT); its trigger names the label.
    for number, (label, total) in enumerate([("cb-move", 7_900_000), ("cb-mail", 5_100_000)]):
        (tmp_path / f"callgrind.cb.{number + 1}").write_text(
            "version: 1\ncreator: callgrind-3.19.0\ncmd: python\npart: 1\n"
            f"desc: I1 cache:\ndesc: Trigger: Client Request: {label}\n"
            f"events: Ir\nfl=x\nfn=y\n0 12\nsummary: {total}\ntotals: {total}\n"
        )
    (tmp_path / "callgrind.cb").write_text("desc: Trigger: Program termination\ntotals: 1\n")
    assert read_dumps(tmp_path, "callgrind.cb") == {"cb-move": 7_900_000, "cb-mail": 5_100_000}
