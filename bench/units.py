"""The units bench/instructions.py counts: what each prepares (natively) and what it runs.

Each unit has a `prepare(folder, count, smtp_port)`, run without valgrind, that leaves in
`folder` a database and a plan.json ready for `count` units of work, and an `open(folder,
smtp_port)`, run in the counting process, that opens them (the app built, its first
request not yet made) and gives back `step(i)`: the i-th unit of work, asserted done.
Requests are raw WSGI environs with a phone browser's headers (bench.raw_wsgi), on pbem's
side and the floor's alike; the cookie a page set goes back with the next request.

pbem's units go through its public entry points only: the Flask app of pbem.create_app
and its routes (the lobby form, the seat links, the JSON API, the poll), and the clock
process's drain of the outbox (pbem.clock.scheduler.drain_outbox, as its job runs it).
Games are made by the lobby form, joined by their links and played by the API (Flask's
test client, natively: only the steps are counted). The floor's units use bench/floor.py.
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
from bench.raw_wsgi import cookie_of, get, post_form, post_json
from bench.throughput import move_fields

SECRET = "bench-instructions-secret-key-0123456789"
BASE_URL = "http://127.0.0.1:8000"
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)  # every move's time: counts must not drift
LATER = T0 + timedelta(days=1)  # when the mail is drained: past every hold
HIDDEN = re.compile(r'<input type="hidden" name="(csrf|turn)" value="([^"]*)"')
NAMES = ["Ana", "Léo", "Zoé", "Ivo"]
POLL_SECONDS = 2.5  # static/live.js's POLL: an open page's poll while its stream is down
CB, FB = "colour-bazaar", "fantasy-business"

Step = Callable[[int], None]


class Clock:
    """The app's clock, moved by the units (a poll 2.5 s after the last, a drain later)."""

    def __init__(self, now: datetime = T0) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


# --- pbem through its public entry points --------------------------------------------


def pbem_app(folder: Path, smtp_port: int, clock: Clock | None = None) -> Any:
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
            "CLOCK": clock or Clock(),
        }
    )


def csrf_for(app: Any, scope: str) -> str:
    """A form token for the link `scope` ("" for the lobby), as the page would give it."""
    from pbem.web.csrf import csrf_token

    with app.test_request_context():
        return str(csrf_token(scope))


def database(app: Any) -> sqlite3.Connection:
    """A plain sqlite3 connection to the app's database, for preparing."""
    from pbem.config import settings_of

    return sqlite3.connect(settings_of(app).database_url.split("///", 1)[1])


def new_games(
    app: Any, slug: str, players: int, count: int, rated: bool = False
) -> list[list[str]]:
    """`count` games made by the lobby form and joined by every seat's link: their tokens."""
    from pbem.site import make_token

    client = app.test_client()
    db = database(app)
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


def acting(app: Any, tokens: list[str]) -> tuple[str, dict[str, Any]]:
    """The seat to act (its token) and its view from the API."""
    client = app.test_client()
    for token in tokens:
        view = client.get(f"/api/v1/seat/{token}").get_json()
        if view["legal_moves"]:
            return token, view
    raise AssertionError("no seat is to act")


def form_of(slug: str, move: dict[str, Any]) -> dict[str, str]:
    """The turn form's fields for a legal move (Colour Bazaar, or Fantasy Business's order)."""
    if slug == CB:
        return move_fields(move)
    assert move["action"] == "order", move
    places = {f"place_{slot}": str(place + 1) for place, slot in enumerate(move["order"])}
    return {"action": "order", **places}


def write_plan(folder: Path, plan: Any) -> None:
    (folder / "plan.json").write_text(json.dumps(plan))


def read_plan(folder: Path) -> Any:
    return json.loads((folder / "plan.json").read_text())


def prepare_move(
    folder: Path, count: int, smtp_port: int, slug: str, players: int, plies: int = 0
) -> None:
    """`count` games played `plies` moves, the acting seat's page read as a browser reads it
    (the form's tokens and the cookie the page set)."""
    app = pbem_app(folder, smtp_port)
    plan = []
    for tokens in new_games(app, slug, players, count):
        assert api_moves(app, tokens, plies, random.Random(50)) == plies
        token, view = acting(app, tokens)
        page = get(app, f"/p/{token}")
        assert page[0] == 200, page[2][:500]
        fields = dict(HIDDEN.findall(page[2].decode()))
        fields.update(form_of(slug, view["legal_moves"][0]), confirm="1")
        plan.append((f"/p/{token}/move", fields, cookie_of(page)))
    write_plan(folder, plan)


def open_move(folder: Path, smtp_port: int) -> Step:
    """POST a move as the page's form does (confirmed), one a game: 303 to the page."""
    app, plan = pbem_app(folder, smtp_port), read_plan(folder)

    def step(i: int) -> None:
        path, fields, cookie = plan[i]
        status, headers, body = post_form(app, path, fields, cookie)
        assert status == 303 and "done=1" in headers["location"], body[:500]

    return step


def prepare_api_move(
    folder: Path, count: int, smtp_port: int, slug: str, players: int, plies: int = 0
) -> None:
    """`count` games played `plies` moves; the acting seat's move as an API client sends it."""
    app = pbem_app(folder, smtp_port)
    plan = []
    for tokens in new_games(app, slug, players, count):
        assert api_moves(app, tokens, plies, random.Random(50)) == plies
        token, view = acting(app, tokens)
        body = {"turn": view["turn"], "move": view["legal_moves"][0]}
        plan.append((f"/api/v1/seat/{token}/move", body))
    write_plan(folder, plan)


def open_api_move(folder: Path, smtp_port: int) -> Step:
    """POST a move to the JSON API, one a game: 200."""
    app, plan = pbem_app(folder, smtp_port), read_plan(folder)

    def step(i: int) -> None:
        path, body = plan[i]
        status, _, answer = post_json(app, path, body)
        assert status == 200, answer[:500]

    return step


def prepare_last_move(
    folder: Path, count: int, smtp_port: int, slug: str, players: int, rated: bool
) -> None:
    """`count` games (rated or not) played by random legal moves up to their last move, kept
    for the run: the move that ends the game (and, rated, moves its players' ratings)."""
    from pbem.games import GAMES

    app = pbem_app(folder, smtp_port)
    client, rules, rng, plan = app.test_client(), GAMES[slug], random.Random(36), []
    db = database(app)
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
                    last = (f"/api/v1/seat/{token}/move", {"turn": view["turn"], "move": move})
                    break
                answer = client.post(
                    f"/api/v1/seat/{token}/move", json={"turn": view["turn"], "move": move}
                )
                assert answer.status_code == 200, answer.data[:500]
        plan.append(last)
    db.close()
    write_plan(folder, plan)


def _game_of(token: str) -> int:
    """The game a seat token is for (the token's payload: game, seat, key)."""
    from pbem.site import read_token

    return int(read_token(SECRET, "seat", token)[0])


def prepare_mail(
    folder: Path, count: int, smtp_port: int, slug: str, players: int, skip: int
) -> None:
    """Games played `skip` plies (that mail sent), then moves until `count` turn mails wait,
    due a minute apart after LATER: each drain finds one."""
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
        pending = conn.execute("SELECT id FROM outbox WHERE sent_at IS NULL ORDER BY id").fetchall()
        for (row_id,) in pending[count:]:
            conn.execute("UPDATE outbox SET sent_at = next_attempt_at WHERE id = ?", (row_id,))
        for index, (row_id,) in enumerate(pending[:count]):
            when = LATER + timedelta(minutes=index)
            # Written as the column holds it (SQLAlchemy's text form, naive UTC).
            spelled = when.replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")
            conn.execute("UPDATE outbox SET next_attempt_at = ? WHERE id = ?", (spelled, row_id))


def open_mail(folder: Path, smtp_port: int) -> Step:
    """The clock process's drain, each finding one mail, as when players move one at a time."""
    from pbem.clock.scheduler import drain_outbox

    clock = Clock()
    app = pbem_app(folder, smtp_port, clock)

    def step(i: int) -> None:
        clock.now = LATER + timedelta(minutes=i, seconds=30)
        done = drain_outbox(app)
        assert done["sent"] == 1, done

    return step


def prepare_page(
    folder: Path, count: int, smtp_port: int, slug: str, players: int, ply: int, to_act: bool
) -> None:
    """A game played to `ply` (seed-fixed random moves); the page of the seat to act, or of
    one that waits, read once as a browser first reads it (its cookie kept)."""
    app = pbem_app(folder, smtp_port)
    (tokens,) = new_games(app, slug, players, 1)
    assert api_moves(app, tokens, ply, random.Random(32)) == ply
    token, _ = acting(app, tokens)
    if not to_act:
        token = next(t for t in tokens if t != token)
    page = get(app, f"/p/{token}")
    assert page[0] == 200, page[2][:500]
    write_plan(folder, [f"/p/{token}", cookie_of(page)])


def open_page(folder: Path, smtp_port: int) -> Step:
    """GET the seat's page again."""
    app = pbem_app(folder, smtp_port)
    path, cookie = read_plan(folder)

    def step(i: int) -> None:
        status, _, body = get(app, path, cookie)
        assert status == 200, body[:500]

    return step


def prepare_watch(folder: Path, count: int, smtp_port: int) -> None:
    """A Colour Bazaar game at ply 4, its waiting seat's page read once: its poll and the
    version it shows."""
    app = pbem_app(folder, smtp_port)
    (tokens,) = new_games(app, CB, 2, 1)
    assert api_moves(app, tokens, 4, random.Random(32)) == 4
    token, _ = acting(app, tokens)
    token = next(t for t in tokens if t != token)
    page = get(app, f"/p/{token}")
    answer = get(app, f"/p/{token}/ply", cookie_of(page))
    assert answer[0] == 200, answer[2][:500]
    write_plan(folder, [f"/p/{token}/ply", cookie_of(page), answer[1]["etag"]])


def open_watch(folder: Path, smtp_port: int) -> Step:
    """A minute of an idle open page whose stream is down: a poll every 2.5 s, each saying
    which version it shows (the page's clock moving on with it)."""
    clock = Clock()
    app = pbem_app(folder, smtp_port, clock)
    path, cookie, etag = read_plan(folder)
    polls = round(60 / POLL_SECONDS)

    def step(i: int) -> None:
        for poll in range(polls):
            clock.now = T0 + timedelta(minutes=i, seconds=poll * POLL_SECONDS)
            status, _, body = get(app, path, cookie, HTTP_IF_NONE_MATCH=etag)
            assert status == 304, (status, body[:300])

    return step


# What the watchers' process runs (not counted: valgrind follows no child): a stream per
# token opened, each one's first event read, "ready" said, then every stream read as it
# comes until the process is ended.
WATCHERS = """
import asyncio, sys
async def main(port, tokens):
    opened = []
    for token in tokens:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET /live/p/{token} HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n".encode())
        opened.append((reader, writer))
    for reader, _ in opened:
        await reader.readuntil(b"event: changed")
    print("ready", flush=True)
    async def drain(reader):
        while await reader.read(4096):
            pass
    await asyncio.gather(*(drain(reader) for reader, _ in opened))
asyncio.run(main(int(sys.argv[1]), sys.argv[2:]))
"""
STREAMS = 50  # idle watchers held open by the stream unit


def prepare_stream(folder: Path, count: int, smtp_port: int) -> None:
    """STREAMS seats of two-player games (one game a pair), started: their tokens."""
    app = pbem_app(folder, smtp_port)
    write_plan(folder, [t for tokens in new_games(app, CB, 2, STREAMS // 2) for t in tokens])


def open_stream(folder: Path, smtp_port: int) -> Step:
    """`pbem live`'s streams in a thread of this process, STREAMS idle watchers on them
    from a process of their own; each step is a minute of waiting, nothing moving."""
    import subprocess
    import sys
    import time

    from pbem.devservers import free_port
    from pbem.live.serve import InThread

    app, tokens, port = pbem_app(folder, smtp_port, Clock(LATER)), read_plan(folder), free_port()
    InThread(app, "127.0.0.1", port).start(wait=120)
    watchers = subprocess.Popen(
        [sys.executable, "-c", WATCHERS, str(port), *tokens], stdout=subprocess.PIPE, text=True
    )
    assert watchers.stdout is not None and watchers.stdout.readline().strip() == "ready"
    time.sleep(5)  # the first marks of the seats as seen, written

    def step(i: int) -> None:
        time.sleep(60)
        assert watchers.poll() is None, "a watcher's stream ended"

    return step


# --- the floor --------------------------------------------------------------------------


def floor_app(folder: Path) -> Any:
    """The floor's app on folder/floor.sqlite3."""
    return floor.create_app(str(folder / "floor.sqlite3"), SECRET, lambda: T0)


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
            state = floor_state(folder, number + 1)
            seat = rules.to_act(state)[0]
            fields = floor_form(slug, state, seat, rng.choice)
            fields["csrf"] = floor.form_token(SECRET, tokens[seat])
            assert client.post(f"/p/{tokens[seat]}/move", data=fields).status_code == 303
        games.append(tokens)
    return games


def floor_state(folder: Path, game_id: int) -> Any:
    with sqlite3.connect(folder / "floor.sqlite3") as conn:
        (state,) = conn.execute("SELECT state FROM game WHERE id = ?", (game_id,)).fetchone()
    return json.loads(state)


def floor_form(
    slug: str, state: Any, seat: int, pick: Callable[[list[Any]], Any]
) -> dict[str, str]:
    """The floor's form for a legal move of `seat`."""
    from pbem.games import GAMES

    rules = GAMES[slug]
    return {
        "turn": rules.turn_token(state, seat),
        "move": json.dumps(pick(rules.legal_moves(state, seat))),
    }


def prepare_floor_move(folder: Path, count: int, smtp_port: int, slug: str, players: int) -> None:
    """`count` fresh floor games and the first move's form of each."""
    from pbem.games import GAMES

    plan = []
    for number, tokens in enumerate(floor_games(folder, slug, players, count, 0)):
        state = floor_state(folder, number + 1)
        seat = GAMES[slug].to_act(state)[0]
        fields = floor_form(slug, state, seat, lambda moves: moves[0])
        fields["csrf"] = floor.form_token(SECRET, tokens[seat])
        plan.append((f"/p/{tokens[seat]}/move", fields))
    write_plan(folder, plan)


def open_floor_move(folder: Path, smtp_port: int) -> Step:
    """POST a move to the floor's app."""
    app, plan = floor_app(folder), read_plan(folder)

    def step(i: int) -> None:
        path, fields = plan[i]
        assert post_form(app, path, fields)[0] == 303

    return step


def prepare_floor_mail(folder: Path, count: int, smtp_port: int) -> None:
    """Floor games whose moves queued `count` turn mails, due a minute apart."""
    floor_games(folder, CB, 2, count // 20 + 1, 20)
    with sqlite3.connect(folder / "floor.sqlite3") as conn:
        rows = conn.execute("SELECT id FROM outbox ORDER BY id").fetchall()
        for index, (row_id,) in enumerate(rows):
            when = LATER + timedelta(minutes=index)
            sent = when.isoformat() if index >= count else None
            conn.execute(
                "UPDATE outbox SET due = ?, sent_at = ? WHERE id = ?",
                (when.isoformat(), sent, row_id),
            )


def open_floor_mail(folder: Path, smtp_port: int) -> Step:
    """The floor's drains, one mail each, on kept connections."""
    drainer = floor.Drainer(str(folder / "floor.sqlite3"), SECRET, "127.0.0.1", smtp_port)

    def step(i: int) -> None:
        assert drainer.drain(LATER + timedelta(minutes=i, seconds=30)) == 1

    return step


def prepare_floor_page(
    folder: Path, count: int, smtp_port: int, slug: str, players: int, ply: int
) -> None:
    """A floor game played to `ply`: the page of its seat to act."""
    from pbem.games import GAMES

    (tokens,) = floor_games(folder, slug, players, 1, ply)
    to_act = GAMES[slug].to_act(floor_state(folder, 1))
    write_plan(folder, [f"/p/{tokens[to_act[0] if to_act else 0]}"])


def open_floor_page(folder: Path, smtp_port: int) -> Step:
    """GET the floor's seat page."""
    app = floor_app(folder)
    (path,) = read_plan(folder)

    def step(i: int) -> None:
        assert get(app, path)[0] == 200

    return step


def prepare_floor_watch(folder: Path, count: int, smtp_port: int) -> None:
    """A floor game at ply 4: a seat's poll and the version its page shows."""
    (tokens,) = floor_games(folder, CB, 2, 1, 4)
    path = f"/p/{tokens[0]}/version"
    write_plan(folder, [path, get(floor_app(folder), path)[1]["etag"]])


def open_floor_watch(folder: Path, smtp_port: int) -> Step:
    """A minute of the floor's polls, every 2.5 s, each answered 304."""
    app = floor_app(folder)
    path, etag = read_plan(folder)
    polls = round(60 / POLL_SECONDS)

    def step(i: int) -> None:
        for _ in range(polls):
            assert get(app, path, HTTP_IF_NONE_MATCH=etag)[0] == 304

    return step


def _with(function: Callable[..., None], **fixed: Any) -> Callable[[Path, int, int], None]:
    return lambda folder, count, port: function(folder, count, port, **fixed)


Prepare = Callable[[Path, int, int], None]
Open = Callable[[Path, int], Step]
# name: (prepare, open)
UNITS: dict[str, tuple[Prepare, Open]] = {
    "cb-move": (_with(prepare_move, slug=CB, players=2), open_move),
    "cb-api-move": (_with(prepare_api_move, slug=CB, players=2), open_api_move),
    "cb-api-move-10": (_with(prepare_api_move, slug=CB, players=2, plies=10), open_api_move),
    "fb-move": (_with(prepare_move, slug=FB, players=4), open_move),
    "cb-mail": (_with(prepare_mail, slug=CB, players=2, skip=0), open_mail),
    "fb-mail-early": (_with(prepare_mail, slug=FB, players=4, skip=0), open_mail),
    "fb-mail-late": (_with(prepare_mail, slug=FB, players=4, skip=80), open_mail),
    "cb-page-20": (
        _with(prepare_page, slug=CB, players=2, ply=20, to_act=True),
        open_page,
    ),
    "cb-page-20-waiting": (
        _with(prepare_page, slug=CB, players=2, ply=20, to_act=False),
        open_page,
    ),
    "fb-page-0": (_with(prepare_page, slug=FB, players=4, ply=0, to_act=True), open_page),
    "fb-page-97": (_with(prepare_page, slug=FB, players=4, ply=97, to_act=True), open_page),
    "watch-minute": (prepare_watch, open_watch),
    "stream-minute": (prepare_stream, open_stream),
    "cb-last-move": (
        _with(prepare_last_move, slug=CB, players=2, rated=False),
        open_api_move,
    ),
    "cb-last-move-rated": (
        _with(prepare_last_move, slug=CB, players=2, rated=True),
        open_api_move,
    ),
    "fb-last-move": (
        _with(prepare_last_move, slug=FB, players=4, rated=False),
        open_api_move,
    ),
    "fb-last-move-rated": (
        _with(prepare_last_move, slug=FB, players=4, rated=True),
        open_api_move,
    ),
    "floor-cb-move": (_with(prepare_floor_move, slug=CB, players=2), open_floor_move),
    "floor-fb-move": (_with(prepare_floor_move, slug=FB, players=4), open_floor_move),
    "floor-mail": (prepare_floor_mail, open_floor_mail),
    "floor-cb-page-20": (_with(prepare_floor_page, slug=CB, players=2, ply=20), open_floor_page),
    "floor-fb-page-0": (_with(prepare_floor_page, slug=FB, players=4, ply=0), open_floor_page),
    "floor-fb-page-97": (_with(prepare_floor_page, slug=FB, players=4, ply=97), open_floor_page),
    "floor-watch-minute": (prepare_floor_watch, open_floor_watch),
}
