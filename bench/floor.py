"""The floor for issue 32: a move, its turn mail and a seat page in pbem's stack, and nothing else.

What a move and its mail must cost at least, in the same stack as pbem (Flask, SQLite in
WAL with `BEGIN IMMEDIATE`, Jinja, smtplib, the rules of pbem.games), with none of pbem's
layers: a tiny app and a sender, each a few statements written once.

- GET /p/<token>: the link's HMAC checked, one row read (the game joined to the seat), the
  seat's view rendered by one Jinja template of about a seat page's size.
- POST /p/<token>/move: the link's and the form token's HMACs checked, then one write
  transaction (`BEGIN IMMEDIATE`) that reads the game row, applies the rules, inserts the
  move row, updates the state on condition of its ply and inserts one outbox row (and a
  row for each finished round the rules release from the state, as pbem stores them); 303.
- POST /insert: one row inserted by raw sqlite3 in a Flask view (the bare insert).
- GET /p/<token>/version: an open page's poll: the link's HMAC checked, the game's ply read
  by one indexed read, 304 while it is the ply the page shows (If-None-Match), else 200.
- Drainer.drain(): the due outbox rows, each rendered as a text and an HTML turn mail by
  Jinja, its bytes written directly (hand-written headers, encoded words for names outside
  ASCII, two quoted-printable parts), sent by smtplib and marked sent; the database and
  SMTP connections kept from one drain to the next, as a sender process keeps them.
  Building the mail with email.message.EmailMessage cost 10.4M instructions, six times
  the rest of the mail's work: no sender that counts its instructions builds it that way.

bench/instructions.py counts instructions per unit of this against pbem's; the tests run
each unit once (tests/bench/test_floor.py). Nothing here is pbem's code path.
"""

from __future__ import annotations

import base64
import binascii
import gc
import hashlib
import hmac
import json
import smtplib
import sqlite3
from datetime import datetime
from typing import Any

from flask import Flask, abort, redirect, request
from jinja2 import DictLoader, Environment, select_autoescape

from pbem.games import GAMES

SCHEMA = """
CREATE TABLE IF NOT EXISTS game (id INTEGER PRIMARY KEY, slug TEXT NOT NULL,
    ply INTEGER NOT NULL, state TEXT NOT NULL, names TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS seat (game_id INTEGER NOT NULL, seat INTEGER NOT NULL,
    key TEXT NOT NULL, name TEXT NOT NULL, email TEXT NOT NULL, PRIMARY KEY (game_id, seat));
CREATE TABLE IF NOT EXISTS move (game_id INTEGER NOT NULL, ply INTEGER NOT NULL,
    seat INTEGER NOT NULL, move TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (game_id, ply));
CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL,
    seat INTEGER NOT NULL, ply INTEGER NOT NULL, due TEXT NOT NULL, sent_at TEXT);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox (sent_at, due);
CREATE TABLE IF NOT EXISTS round (game_id INTEGER NOT NULL, round INTEGER NOT NULL,
    record TEXT NOT NULL, PRIMARY KEY (game_id, round));
CREATE TABLE IF NOT EXISTS bench_insert (id INTEGER PRIMARY KEY, note TEXT NOT NULL,
    created_at TEXT NOT NULL);
"""

READ_SEAT = (
    "SELECT g.slug, g.ply, g.state, g.names, s.name FROM game g JOIN seat s"
    " ON s.game_id = g.id WHERE g.id = ? AND s.seat = ? AND s.key = ?"
)
READ_GAME = "SELECT slug, ply, state, names FROM game WHERE id = ?"
READ_PLY = "SELECT ply FROM game WHERE id = ?"
INSERT_MOVE = "INSERT INTO move (game_id, ply, seat, move, at) VALUES (?, ?, ?, ?, ?)"
UPDATE_GAME = "UPDATE game SET state = ?, ply = ply + 1 WHERE id = ? AND ply = ?"
INSERT_OUTBOX = "INSERT INTO outbox (game_id, seat, ply, due) VALUES (?, ?, ?, ?)"
INSERT_ROUND = "INSERT INTO round (game_id, round, record) VALUES (?, ?, ?)"
DUE = (
    "SELECT o.id, o.seat, o.ply, g.id, g.slug, g.names, s.name, s.email, s.key FROM outbox o"
    " JOIN game g ON g.id = o.game_id JOIN seat s ON s.game_id = o.game_id AND s.seat = o.seat"
    " WHERE o.sent_at IS NULL AND o.due <= ? ORDER BY o.due LIMIT ?"
)
MARK_SENT = "UPDATE outbox SET sent_at = ? WHERE id = ? AND sent_at IS NULL"
INSERT_ROW = "INSERT INTO bench_insert (note, created_at) VALUES (?, ?)"

# The page: a header, the seat's view as nested tables (a list's last 12 items, as pbem
# shows the log's last 12 moves), and a form of its legal moves: about the size of pbem's
# Fantasy Business seat page (6.6 and 9.4 KB at ply 0 and 97, against pbem's 8.0 and 21).
PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ slug }} #{{ game_id }}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><header><h1>{{ slug }} #{{ game_id }}, ply {{ ply }}</h1>
<p>{{ name }}, {% if moves %}it is your move.{% else %}the table is waiting.{% endif %}</p>
<p>{% for other in names %}<span class="player">{{ other }}</span>{% endfor %}</p></header>
<main>{% for key, value in view %}<section><h2>{{ key }}</h2>
{% if value is mapping %}<table>{% for k, v in value.items() %}<tr><th>{{ k }}</th>
<td>{{ v }}</td></tr>{% endfor %}</table>{% elif value is iterable and value is not string %}
<ul>{% for item in value[-12:] %}<li>{{ item }}</li>{% endfor %}</ul>{% else %}<p>{{ value }}</p>
{% endif %}</section>{% endfor %}
{% if moves %}<form method="post" action="/p/{{ token }}/move">
<input type="hidden" name="turn" value="{{ turn }}"><input type="hidden" name="csrf"
value="{{ csrf }}">{% for move in moves %}<label><input type="radio" name="move"
value="{{ move }}"> {{ move }}</label>{% endfor %}<button>Send</button></form>{% endif %}
</main></body></html>
"""
MAIL_TEXT = """{{ name }}, it is your move in {{ slug }} #{{ game_id }} (ply {{ ply }}).

Playing: {{ names | join(", ") }}.
Make your move here:
{{ link }}

You get this mail because you play in this game.
"""
MAIL_HTML = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body>
<p><strong>{{ name }}</strong>, it is your move in {{ slug }} #{{ game_id }} (ply {{ ply }}).</p>
<p>Playing: {% for other in names %}<span>{{ other }}</span>{% if not loop.last %}, {% endif %}
{% endfor %}.</p><p><a href="{{ link }}">Make your move</a></p>
<p style="font-size:small">You get this mail because you play in this game.</p></body></html>
"""
TEMPLATES = Environment(
    loader=DictLoader({"page.html": PAGE, "mail.txt": MAIL_TEXT, "mail.html": MAIL_HTML}),
    autoescape=select_autoescape(["html"]),
)


def connect(path: str) -> sqlite3.Connection:
    """A connection in WAL, in autocommit so that BEGIN IMMEDIATE is ours to say."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA busy_timeout=5000")
    return conn


def create_schema(path: str) -> None:
    """Make the floor's tables at `path`."""
    conn = connect(path)
    conn.executescript(SCHEMA)
    conn.close()


def sign(secret: str, message: str) -> str:
    """The HMAC-SHA256 of `message`, hex, cut to 32 characters."""
    return hmac.new(secret.encode(), message.encode(), hashlib.sha256).hexdigest()[:32]


def seat_token(secret: str, game_id: int, seat: int, key: str) -> str:
    """A seat's link token: its game, seat and key, signed."""
    body = f"{game_id}.{seat}.{key}"
    return f"{body}.{sign(secret, 'seat:' + body)}"


def read_link(secret: str, token: str) -> tuple[int, int, str]:
    """(game id, seat, key) of a well-signed token; ValueError otherwise."""
    body, _, mac = token.rpartition(".")
    if not hmac.compare_digest(mac, sign(secret, "seat:" + body)):
        raise ValueError("bad link")
    game_id, seat, key = body.split(".", 2)
    return int(game_id), int(seat), key


def form_token(secret: str, token: str) -> str:
    """The form token of a seat's page: the link, signed for forms."""
    return sign(secret, "form:" + token)


def create_game(path: str, slug: str, names: list[str], seed: int, secret: str) -> list[str]:
    """A started game of `slug` for `names`; each seat's link token."""
    rules = GAMES[slug]
    state = rules.setup(len(names), rules.check_options(len(names), {}), seed)
    conn = connect(path)
    with conn:
        game_id = conn.execute(
            "INSERT INTO game (slug, ply, state, names) VALUES (?, 0, ?, ?)",
            (slug, json.dumps(state), json.dumps(names)),
        ).lastrowid
        assert game_id is not None
        tokens = []
        for seat, name in enumerate(names):
            key = sign(secret, f"key:{seed}:{game_id}:{seat}")[:16]
            email = f"seat{seat}.{game_id}@floor.example"
            conn.execute(
                "INSERT INTO seat (game_id, seat, key, name, email) VALUES (?, ?, ?, ?, ?)",
                (game_id, seat, key, name, email),
            )
            tokens.append(seat_token(secret, game_id, seat, key))
    conn.close()
    return tokens


def create_app(path: str, secret: str, clock: Any) -> Flask:
    """The floor's app on the SQLite file at `path`; `clock()` gives the time of a move."""
    app = Flask("floor")
    conn = connect(path)

    def seat_of(token: str) -> tuple[int, int, str]:
        try:
            return read_link(secret, token)
        except ValueError:
            abort(404)

    @app.get("/p/<token>")
    def page(token: str) -> str:
        """The seat's page from one read."""
        game_id, seat, key = seat_of(token)
        row = conn.execute(READ_SEAT, (game_id, seat, key)).fetchone()
        if row is None:
            abort(404)
        slug, ply, state_json, names_json, name = row
        rules = GAMES[slug]
        state = json.loads(state_json)
        may_act = rules.may_act(state, seat)
        moves = [json.dumps(m) for m in rules.legal_moves(state, seat)] if may_act else []
        return TEMPLATES.get_template("page.html").render(
            slug=slug,
            game_id=game_id,
            ply=ply,
            name=name,
            names=json.loads(names_json),
            # Of a game's history, the current round only (the rules cut it), as a page shows.
            view=list(rules.view(state, seat, rounds=0).items()),
            moves=moves,
            turn=rules.turn_token(state, seat) if may_act else "",
            csrf=form_token(secret, token),
            token=token,
        )

    @app.post("/p/<token>/move")
    def move(token: str) -> Any:
        """Check the links, then one write transaction: read, apply, insert, update, queue."""
        game_id, seat, _ = seat_of(token)
        form = request.form
        if not hmac.compare_digest(form.get("csrf", ""), form_token(secret, token)):
            abort(403)
        the_move = json.loads(form["move"])
        at = clock().isoformat()
        conn.execute("BEGIN IMMEDIATE")
        try:
            slug, ply, state_json, _ = conn.execute(READ_GAME, (game_id,)).fetchone()
            rules = GAMES[slug]
            state = json.loads(state_json)
            if rules.turn_token(state, seat) != form.get("turn"):
                abort(409)
            state = rules.apply(state, seat, the_move)
            # Finished rounds leave the stored state for rows of their own, as pbem's do.
            state, records = rules.release_history(state)
            for record in records:
                conn.execute(INSERT_ROUND, (game_id, record["round"], json.dumps(record)))
            conn.execute(INSERT_MOVE, (game_id, ply, seat, form["move"], at))
            changed = conn.execute(UPDATE_GAME, (json.dumps(state), game_id, ply)).rowcount
            if changed != 1:
                abort(409)
            acting = rules.to_act(state)
            if acting:
                conn.execute(INSERT_OUTBOX, (game_id, acting[0], ply + 1, at))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return redirect(f"/p/{token}?done=1", code=303)

    @app.get("/p/<token>/version")
    def version(token: str) -> Any:
        """How far the game has gone: 304 while it is where the page's copy is."""
        game_id, _, _ = seat_of(token)
        row = conn.execute(READ_PLY, (game_id,)).fetchone()
        if row is None:
            abort(404)
        tag = f'"{row[0]}"'
        if request.headers.get("If-None-Match") == tag:
            return "", 304, {"ETag": tag}
        return {"ply": row[0]}, 200, {"ETag": tag}

    @app.post("/insert")
    def insert_one() -> str:
        """One row, inserted by raw sqlite3."""
        conn.execute(INSERT_ROW, (request.form.get("note", "")[:40], clock().isoformat()))
        return "ok"

    # What every request finds in place is left out of the collector's rounds (a long-lived
    # process's modules and the app), as pbem's processes do once their app is built.
    gc.collect()
    gc.freeze()
    return app


def _words(name: str) -> str:
    """A display name as written in a header: itself in ASCII, else one encoded word."""
    if name.isascii():
        return name
    return f"=?utf-8?b?{base64.b64encode(name.encode()).decode()}?="


def _part(subtype: str, content: str) -> bytes:
    """One text part, UTF-8 in quoted-printable with CR LF line ends."""
    body = binascii.b2a_qp(content.encode(), istext=True).replace(b"\n", b"\r\n")
    head = f'Content-Type: text/{subtype}; charset="utf-8"\r\n'
    return (head + "Content-Transfer-Encoding: quoted-printable\r\n\r\n").encode() + body


def compose(name: str, email: str, subject: str, text: str, html: str, row_id: int) -> bytes:
    """A turn mail's bytes: its headers, then the text and HTML parts as alternatives."""
    boundary = f"==floor{row_id}=="
    head = (
        "From: floor <floor@floor.example>\r\n"
        f"To: {_words(name)} <{email}>\r\n"
        f"Subject: {subject}\r\n"
        f"Message-ID: <{row_id}@floor.example>\r\n"
        "MIME-Version: 1.0\r\n"
        f'Content-Type: multipart/alternative; boundary="{boundary}"\r\n\r\n'
        f"--{boundary}\r\n"
    ).encode()
    middle = f"\r\n--{boundary}\r\n".encode()
    end = f"\r\n--{boundary}--\r\n".encode()
    return b"".join((head, _part("plain", text), middle, _part("html", html), end))


class Drainer:
    """A sender process's drains: the database and SMTP connections opened at the first and
    kept for the next (the SMTP one opened again when the server closed it)."""

    def __init__(self, path: str, secret: str, smtp_host: str, smtp_port: int) -> None:
        self.conn = connect(path)
        self.secret, self.host, self.port = secret, smtp_host, smtp_port
        self.smtp: smtplib.SMTP | None = None
        self.text = TEMPLATES.get_template("mail.txt")
        self.html = TEMPLATES.get_template("mail.html")

    def _server(self) -> smtplib.SMTP:
        if self.smtp is None:
            # A HELO name of its own: without one smtplib asks the resolver for this host's
            # name (socket.getfqdn) on every connection.
            self.smtp = smtplib.SMTP(
                self.host, self.port, timeout=30, local_hostname="floor.example"
            )
        return self.smtp

    def drain(self, now: datetime, batch: int = 500) -> int:
        """Render, build, send and mark every due mail; how many were sent."""
        at = now.isoformat()
        sent = 0
        for row_id, seat, ply, game_id, slug, names, name, email, key in self.conn.execute(
            DUE, (at, batch)
        ).fetchall():
            link = f"http://floor.example/p/{seat_token(self.secret, game_id, seat, key)}"
            context = {
                "name": name,
                "slug": slug,
                "game_id": game_id,
                "ply": ply,
                "names": json.loads(names),
                "link": link,
            }
            data = compose(
                name,
                email,
                f"{slug} #{game_id}: your move",
                self.text.render(context),
                self.html.render(context),
                row_id,
            )
            try:
                self._server().sendmail("floor@floor.example", [email], data)
            except smtplib.SMTPServerDisconnected:
                self.smtp = None
                self._server().sendmail("floor@floor.example", [email], data)
            self.conn.execute(MARK_SENT, (at, row_id))
            sent += 1
        return sent

    def close(self) -> None:
        """Close both connections."""
        if self.smtp is not None:
            self.smtp.quit()
        self.conn.close()


def drain(
    path: str, secret: str, smtp_host: str, smtp_port: int, now: datetime, batch: int = 500
) -> int:
    """One drain on connections of its own: every due mail sent and marked; how many."""
    drainer = Drainer(path, secret, smtp_host, smtp_port)
    try:
        return drainer.drain(now, batch)
    finally:
        drainer.close()
