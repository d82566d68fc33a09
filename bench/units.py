"""The units bench/instructions.py counts: what each prepares (natively) and what it runs.

Each unit has a `prepare(folder, count, smtp_port)`, run without valgrind, that leaves in
`folder` a database (and a plan.json) ready for `count` units of work, and a `run(folder,
count, smtp_port)`, run under callgrind, that opens it and does the `count` units. pbem's
units go through its public entry points only: the Flask app of pbem.create_app and its
routes (the lobby form, the seat links, the JSON API), and the sender's drain(); pbem's
games are made by the lobby form, joined by their links and played by the API. The floor's
units use bench/floor.py.
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench import floor
from bench.throughput import move_fields
from pbem.config import settings_of

SECRET = "bench-instructions-secret-key-0123456789"
BASE_URL = "http://127.0.0.1:8000"
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)  # every move's time: counts must not drift
LATER = T0 + timedelta(days=1)  # when the mail is drained: past every hold
HIDDEN = re.compile(r'<input type="hidden" name="(csrf|turn)" value="([^"]*)"')
NAMES = ["Ana", "Léo", "Zoé", "Ivo"]


# --- pbem through its public entry points --------------------------------------------


def pbem_app(folder: Path, smtp_port: int) -> Any:
    """pbem's app on folder/pbem.sqlite3 (migrated on first use), mail to the sink."""
    from pbem import create_app

    url = f"sqlite:///{folder / 'pbem.sqlite3'}"
    if not (folder / "pbem.sqlite3").exists():
        from pbem.storage.db import migrate

        migrate(url)
        # The lobby deals each game from a random seed: seeded here, as the tests seed it,
        # so that every run deals the same games (only games are made with this app).
        import pbem.play

        seeds = random.Random(32)
        if hasattr(pbem.play, "new_seed"):
            pbem.play.new_seed = lambda: seeds.getrandbits(62)
        if hasattr(pbem.play, "fairdeal"):  # a checkable deal: its secret seeded as well
            deal = pbem.play.fairdeal
            deal.new_secret = lambda: (f"{seeds.getrandbits(256):064x}", "00" * 32)
    return create_app(
        {
            "SECRET_KEY": SECRET,
            "DATABASE_URL": url,
            "BASE_URL": BASE_URL,
            "MAIL_BACKEND": "smtp",
            "SMTP_HOST": "127.0.0.1",
            "SMTP_PORT": smtp_port,
            "SMTP_SECURITY": "none",
            "MAIL_DIR": str(folder / "mail"),
            "CLOCK": lambda: T0,
        }
    )


def csrf_for(app: Any, scope: str) -> str:
    """A form token for the link `scope` ("" for the lobby), as the page would give it."""
    from pbem.web.csrf import csrf_token

    with app.test_request_context():
        return str(csrf_token(scope))


def drain_mail(app: Any, now: datetime) -> int:
    """One pass of pbem's sender at `now`; how many mails it sent."""
    from pbem.mailout.mailer import SmtpBackend
    from pbem.mailout.sender import drain

    parts = app.extensions["pbem"]
    done = drain(
        parts["engine"], parts["site"], SmtpBackend(settings_of(app)), settings_of(app), now
    )
    return int(done["sent"])


def new_games(
    app: Any, slug: str, players: int, count: int, rated: bool = False
) -> list[list[str]]:
    """`count` games made by the lobby form and joined by every seat's link: their tokens."""
    from pbem.site import make_token

    client = app.test_client()
    db = sqlite3.connect(settings_of(app).database_url.split("///", 1)[1])
    (before,) = db.execute("SELECT count(*) FROM game").fetchone()
    for number in range(before, before + count):
        form = {"game": slug, "csrf": csrf_for(app, "")}
        if rated:
            form["rated"] = "1"
        for row in range(players):
            form[f"name_{row}"] = NAMES[row]
            form[f"email_{row}"] = f"p{row}.{number}@bench.example"
        # Another address a game: the lobby allows 20 new games an hour from one.
        where = {"REMOTE_ADDR": f"10.{number // 60000}.{number // 250 % 240}.{number % 250 + 1}"}
        made = client.post("/games", data=form, environ_base=where)
        assert made.status_code == 303, made.data[:500]
    games = []
    for (game_id,) in db.execute("SELECT id FROM game WHERE id > ? ORDER BY id", (before,)):
        seats = db.execute(
            "SELECT seat, link_key FROM seat WHERE game_id = ? ORDER BY seat", (game_id,)
        ).fetchall()
        tokens = [make_token(SECRET, "seat", [game_id, seat, key]) for seat, key in seats]
        for token in tokens[1:]:
            joined = client.post(f"/p/{token}/join", data={"csrf": csrf_for(app, token)})
            assert joined.status_code == 303, joined.data[:500]
        games.append(tokens)
    db.close()
    return games


def api_moves(app: Any, tokens: list[str], plies: int, rng: random.Random) -> int:
    """Play up to `plies` random legal moves through the JSON API; how many were played."""
    client, played = app.test_client(), 0
    while played < plies:
        moved = False
        for token in tokens:
            view = client.get(f"/api/v1/seat/{token}").get_json()
            if view["legal_moves"] and played < plies:
                body = {"turn": view["turn"], "move": rng.choice(view["legal_moves"])}
                answer = client.post(f"/api/v1/seat/{token}/move", json=body)
                assert answer.status_code == 200, answer.data[:500]
                played, moved = played + 1, True
        if not moved:
            break
    return played


def form_of(slug: str, move: dict[str, Any]) -> dict[str, str]:
    """The turn form's fields for a legal move (Colour Bazaar, or Fantasy Business's order)."""
    if slug == "colour-bazaar":
        return move_fields(move)
    assert move["action"] == "order", move
    places = {f"place_{slot}": str(place + 1) for place, slot in enumerate(move["order"])}
    return {"action": "order", **places}


def outbox_keep(app: Any, count: int, stagger: bool) -> None:
    """Leave `count` mails due, the oldest (the rest marked sent); staggered a minute apart
    after LATER when `stagger`, so that each drain finds one."""
    db = sqlite3.connect(settings_of(app).database_url.split("///", 1)[1])
    rows = db.execute("SELECT id, next_attempt_at FROM outbox WHERE sent_at IS NULL ORDER BY id")
    pending = rows.fetchall()
    assert len(pending) >= count, (len(pending), count)
    with db:
        for row_id, _ in pending[count:]:
            db.execute("UPDATE outbox SET sent_at = next_attempt_at WHERE id = ?", (row_id,))
        for index, (row_id, _) in enumerate(pending[:count]):
            when = LATER + timedelta(minutes=index) if stagger else LATER
            # Written as the column holds it (SQLAlchemy's text form, naive UTC).
            spelled = when.replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")
            db.execute("UPDATE outbox SET next_attempt_at = ? WHERE id = ?", (spelled, row_id))
    db.close()


def prepare_move(folder: Path, count: int, smtp_port: int, slug: str, players: int) -> None:
    """`count` fresh games, each acting seat's page read (the GET gives the turn token)."""
    app = pbem_app(folder, smtp_port)
    client, plan = app.test_client(), []
    for tokens in new_games(app, slug, players, count):
        for token in tokens:
            view = client.get(f"/api/v1/seat/{token}").get_json()
            if view["legal_moves"]:
                page = client.get(f"/p/{token}").get_data(as_text=True)
                fields = dict(HIDDEN.findall(page))
                fields.update(form_of(slug, view["legal_moves"][0]), confirm="1")
                plan.append((f"/p/{token}/move", fields))
                break
    (folder / "plan.json").write_text(json.dumps(plan))


def run_move(folder: Path, count: int, smtp_port: int) -> None:
    """POST `count` moves as the page's form does (confirmed), one a game."""
    client = pbem_app(folder, smtp_port).test_client()
    for path, fields in json.loads((folder / "plan.json").read_text())[:count]:
        answer = client.post(path, data=fields)
        assert answer.status_code == 303 and "done=1" in answer.headers["Location"], answer.data


def prepare_last_move(
    folder: Path, count: int, smtp_port: int, slug: str, players: int, rated: bool
) -> None:
    """`count` games (rated or not) played by random legal moves up to their last move, kept
    for the run: the move that ends the game (and, rated, moves its players' ratings)."""
    from pbem.games import GAMES

    app = pbem_app(folder, smtp_port)
    client, rules, rng, plan = app.test_client(), GAMES[slug], random.Random(36), []
    db = sqlite3.connect(folder / "pbem.sqlite3")
    for tokens in new_games(app, slug, players, count, rated=rated):
        last = None
        while last is None:
            for token in tokens:
                view = client.get(f"/api/v1/seat/{token}").get_json()
                if not view["legal_moves"]:
                    continue
                move = rng.choice(view["legal_moves"])
                (state,) = db.execute(
                    "SELECT state FROM game WHERE id = ?", (_game_of(token),)
                ).fetchone()
                if rules.outcome(rules.apply(json.loads(state), view["seat"], move)) is not None:
                    last = (token, {"turn": view["turn"], "move": move})
                    break
                answer = client.post(
                    f"/api/v1/seat/{token}/move", json={"turn": view["turn"], "move": move}
                )
                assert answer.status_code == 200, answer.data[:500]
        plan.append(last)
    db.close()
    (folder / "plan.json").write_text(json.dumps(plan))


def _game_of(token: str) -> int:
    """The game a seat token is for (the token's payload: game, seat, key)."""
    from pbem.site import read_token

    return int(read_token(SECRET, "seat", token)[0])


def run_last_move(folder: Path, count: int, smtp_port: int) -> None:
    """POST `count` games' last moves through the JSON API, one a game."""
    client = pbem_app(folder, smtp_port).test_client()
    for token, body in json.loads((folder / "plan.json").read_text())[:count]:
        answer = client.post(f"/api/v1/seat/{token}/move", json=body)
        assert answer.status_code == 200, answer.data[:500]


def prepare_mail(
    folder: Path, count: int, smtp_port: int, slug: str, players: int, skip: int, stagger: bool
) -> None:
    """Games played `skip` plies (that mail sent), then moves until `count` mails wait."""
    app = pbem_app(folder, smtp_port)
    rng, waiting = random.Random(32), 0
    db = folder / "pbem.sqlite3"
    while waiting < count:
        (tokens,) = new_games(app, slug, players, 1)
        api_moves(app, tokens, skip, rng)
        with sqlite3.connect(db) as conn:  # this game's mail so far counts as sent
            (game_id,) = conn.execute("SELECT max(id) FROM game").fetchone()
            conn.execute(
                "UPDATE outbox SET sent_at = created_at WHERE game_id = ? AND sent_at IS NULL",
                (game_id,),
            )
        for _ in range(40):  # a few moves at a time, stopping before the game's end
            if waiting >= count or api_moves(app, tokens, 1, rng) == 0:
                break
            with sqlite3.connect(db) as conn:
                query = "SELECT count(*) FROM outbox WHERE sent_at IS NULL AND event = 'your_turn'"
                (waiting,) = conn.execute(query).fetchone()
    with sqlite3.connect(db) as conn:  # only turn mails are counted: not the results
        conn.execute("UPDATE outbox SET sent_at = created_at WHERE event != 'your_turn'")
    outbox_keep(app, count, stagger)


def run_mail_each(folder: Path, count: int, smtp_port: int) -> None:
    """`count` drains, each finding one mail, as when players move one at a time."""
    app = pbem_app(folder, smtp_port)
    for index in range(count):
        sent = drain_mail(app, LATER + timedelta(minutes=index, seconds=30))
        assert sent == 1, sent


def run_mail_batch(folder: Path, count: int, smtp_port: int) -> None:
    """One drain of `count` mails."""
    assert drain_mail(pbem_app(folder, smtp_port), LATER) == count


def prepare_page(folder: Path, count: int, smtp_port: int, ply: int) -> None:
    """A four-player Fantasy Business game played to `ply` (seed-fixed random moves)."""
    app = pbem_app(folder, smtp_port)
    (tokens,) = new_games(app, "fantasy-business", 4, 1)
    assert api_moves(app, tokens, ply, random.Random(32)) == ply
    (folder / "plan.json").write_text(json.dumps([f"/p/{tokens[0]}"]))


def run_page(folder: Path, count: int, smtp_port: int) -> None:
    """GET seat 0's page `count` times."""
    client = pbem_app(folder, smtp_port).test_client()
    (path,) = json.loads((folder / "plan.json").read_text())
    for _ in range(count):
        assert client.get(path).status_code == 200


def prepare_bare(folder: Path, count: int, smtp_port: int) -> None:
    """The bench_insert table of bench/bare_app.py."""
    from bench.bare_app import create_table

    create_table(f"sqlite:///{folder / 'bare.sqlite3'}")


def run_bare(folder: Path, count: int, smtp_port: int) -> None:
    """POST /insert to pbem's bare app (pbem's engine and write_session) `count` times."""
    import os

    os.environ["PBEM_DATABASE_URL"] = f"sqlite:///{folder / 'bare.sqlite3'}"
    from bench.bare_app import create_app

    client = create_app().test_client()
    for index in range(count):
        assert client.post("/insert", data={"note": f"row {index}"}).status_code == 200


# --- the floor --------------------------------------------------------------------------


def floor_app(folder: Path) -> Any:
    """The floor's app on folder/floor.sqlite3."""
    return floor.create_app(str(folder / "floor.sqlite3"), SECRET, lambda: T0)


def floor_move_form(slug: str, state: Any, seat: int, pick: Callable[[list], Any]) -> dict:
    """The floor's form for a legal move of `seat`."""
    from pbem.games import GAMES

    rules = GAMES[slug]
    return {
        "turn": rules.turn_token(state, seat),
        "move": json.dumps(pick(rules.legal_moves(state, seat))),
    }


def floor_games(folder: Path, slug: str, players: int, count: int, plies: int) -> list[list[str]]:
    """`count` floor games, each played `plies` seed-fixed random moves by its POST route."""
    from pbem.games import GAMES

    path = str(folder / "floor.sqlite3")
    floor.create_schema(path)
    rules, rng, client = GAMES[slug], random.Random(32), floor_app(folder).test_client()
    games = []
    for number in range(count):
        tokens = floor.create_game(path, slug, NAMES[:players], 1000 + number, SECRET)
        for _ in range(plies):
            with sqlite3.connect(path) as conn:
                (state,) = conn.execute(
                    "SELECT state FROM game WHERE id = ?", (number + 1,)
                ).fetchone()
            state = json.loads(state)
            seat = rules.to_act(state)[0]
            fields = floor_move_form(slug, state, seat, rng.choice)
            fields["csrf"] = floor.form_token(SECRET, tokens[seat])
            assert client.post(f"/p/{tokens[seat]}/move", data=fields).status_code == 303
        games.append(tokens)
    return games


def prepare_floor_move(folder: Path, count: int, smtp_port: int, slug: str, players: int) -> None:
    """`count` fresh floor games and the first move's form of each."""
    from pbem.games import GAMES

    plan = []
    path = str(folder / "floor.sqlite3")
    for number, tokens in enumerate(floor_games(folder, slug, players, count, 0)):
        with sqlite3.connect(path) as conn:
            (state,) = conn.execute("SELECT state FROM game WHERE id = ?", (number + 1,)).fetchone()
        state = json.loads(state)
        seat = GAMES[slug].to_act(state)[0]
        fields = floor_move_form(slug, state, seat, lambda moves: moves[0])
        fields["csrf"] = floor.form_token(SECRET, tokens[seat])
        plan.append((f"/p/{tokens[seat]}/move", fields))
    (folder / "plan.json").write_text(json.dumps(plan))


def run_floor_move(folder: Path, count: int, smtp_port: int) -> None:
    """POST `count` moves to the floor's app."""
    client = floor_app(folder).test_client()
    for path, fields in json.loads((folder / "plan.json").read_text())[:count]:
        assert client.post(path, data=fields).status_code == 303


def prepare_floor_mail(folder: Path, count: int, smtp_port: int, stagger: bool) -> None:
    """Floor games whose moves queued `count` turn mails (staggered a minute apart or not)."""
    floor_games(folder, "colour-bazaar", 2, count // 20 + 1, 20)
    with sqlite3.connect(folder / "floor.sqlite3") as conn:
        rows = conn.execute("SELECT id FROM outbox ORDER BY id").fetchall()
        for index, (row_id,) in enumerate(rows):
            when = LATER + timedelta(minutes=index) if stagger else LATER
            sent = when.isoformat() if index >= count else None
            conn.execute(
                "UPDATE outbox SET due = ?, sent_at = ? WHERE id = ?",
                (when.isoformat(), sent, row_id),
            )


def run_floor_mail_each(folder: Path, count: int, smtp_port: int) -> None:
    """`count` floor drains of one mail each."""
    path = str(folder / "floor.sqlite3")
    for index in range(count):
        now = LATER + timedelta(minutes=index, seconds=30)
        assert floor.drain(path, SECRET, "127.0.0.1", smtp_port, now) == 1


def run_floor_mail_batch(folder: Path, count: int, smtp_port: int) -> None:
    """One floor drain of `count` mails."""
    assert (
        floor.drain(str(folder / "floor.sqlite3"), SECRET, "127.0.0.1", smtp_port, LATER) == count
    )


def prepare_floor_page(folder: Path, count: int, smtp_port: int, ply: int) -> None:
    """A four-player Fantasy Business floor game played to `ply`."""
    (tokens,) = floor_games(folder, "fantasy-business", 4, 1, ply)
    (folder / "plan.json").write_text(json.dumps([f"/p/{tokens[0]}"]))


def run_floor_page(folder: Path, count: int, smtp_port: int) -> None:
    """GET the floor's seat 0 page `count` times."""
    client = floor_app(folder).test_client()
    (path,) = json.loads((folder / "plan.json").read_text())
    for _ in range(count):
        assert client.get(path).status_code == 200


def prepare_floor_insert(folder: Path, count: int, smtp_port: int) -> None:
    """The floor's tables."""
    floor.create_schema(str(folder / "floor.sqlite3"))


def run_floor_insert(folder: Path, count: int, smtp_port: int) -> None:
    """POST /insert to the floor's app (raw sqlite3) `count` times."""
    client = floor_app(folder).test_client()
    for index in range(count):
        assert client.post("/insert", data={"note": f"row {index}"}).status_code == 200


def _with(function: Callable[..., None], **fixed: Any) -> Callable[[Path, int, int], None]:
    return lambda folder, count, port: function(folder, count, port, **fixed)


CB, FB = "colour-bazaar", "fantasy-business"
# name: (prepare, run)
UNITS: dict[str, tuple[Callable[[Path, int, int], None], Callable[[Path, int, int], None]]] = {
    "cb-move": (_with(prepare_move, slug=CB, players=2), run_move),
    "fb-move": (_with(prepare_move, slug=FB, players=4), run_move),
    "cb-mail-each": (_with(prepare_mail, slug=CB, players=2, skip=0, stagger=True), run_mail_each),
    "cb-mail-batch": (
        _with(prepare_mail, slug=CB, players=2, skip=0, stagger=False),
        run_mail_batch,
    ),
    "fb-mail-early": (
        _with(prepare_mail, slug=FB, players=4, skip=0, stagger=True),
        run_mail_each,
    ),
    "fb-mail-late": (
        _with(prepare_mail, slug=FB, players=4, skip=80, stagger=True),
        run_mail_each,
    ),
    "fb-page-0": (_with(prepare_page, ply=0), run_page),
    "fb-page-97": (_with(prepare_page, ply=97), run_page),
    "bare-insert": (prepare_bare, run_bare),
    "cb-last-move": (_with(prepare_last_move, slug=CB, players=2, rated=False), run_last_move),
    "cb-last-move-rated": (
        _with(prepare_last_move, slug=CB, players=2, rated=True),
        run_last_move,
    ),
    "fb-last-move": (_with(prepare_last_move, slug=FB, players=4, rated=False), run_last_move),
    "fb-last-move-rated": (
        _with(prepare_last_move, slug=FB, players=4, rated=True),
        run_last_move,
    ),
    "floor-cb-move": (_with(prepare_floor_move, slug=CB, players=2), run_floor_move),
    "floor-fb-move": (_with(prepare_floor_move, slug=FB, players=4), run_floor_move),
    "floor-mail-each": (_with(prepare_floor_mail, stagger=True), run_floor_mail_each),
    "floor-mail-batch": (_with(prepare_floor_mail, stagger=False), run_floor_mail_batch),
    "floor-page-0": (_with(prepare_floor_page, ply=0), run_floor_page),
    "floor-page-97": (_with(prepare_floor_page, ply=97), run_floor_page),
    "floor-insert": (prepare_floor_insert, run_floor_insert),
}
