"""pbem on several hosts (issue 33), each a real process on one PostgreSQL, through PgBouncer
in transaction mode where Debian's pgbouncer is installed: two gunicorn web hosts behind a
proxy that sets X-Forwarded-For, two clocks, two `pbem computers` workers and one `pbem
inbound` listener. Twenty people play whole Colour Bazaar games (through the proxy, and one
game by mail replies), four of them against computer players, while one web host and one
clock are killed (SIGKILL) and started again. Every move is applied once, every mail
arrives once, every computer decision is made once, and rate limits are per client.
"""

from __future__ import annotations

import http.client
import os
import re
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy.engine import make_url
from sqlmodel import col, func, select

from pbem.devservers import HOST, PgBouncer, free_port, pgbouncer_bin, serves
from pbem.models import Game, Move, Outbox, Seat, Webhook, WebhookDelivery
from pbem.play import Invitee, create_game, join
from pbem.storage.db import read_session, write_session
from pbem.storage.ratelimit import SIGN_INS
from pbem.storage.store import seats_of
from tests.live.hosts import PBEM, HookSink, Host, Proxy, listens, wait_until
from tests.live.server import Browser, procfile_options, turn_form
from tests.mailin.helpers import answer, example_in, send
from tests.settings import PG_URL, process_env
from tests.web.helpers import headline

WEB_GAMES = 7  # two people each, through the proxy
COMPUTER_GAMES = 4  # one person and two beginner computers each
REPLY_DOMAIN = "in.pbem.test"
PLAYING = 240.0  # seconds a game may take before the test calls it stalled
_CSRF = re.compile(r'name="csrf" value="([^"]+)"')


@pytest.fixture
def database(database_url: str) -> Iterator[tuple[str, str]]:
    """(URL, pooler) the hosts use: through a throwaway PgBouncer when installed."""
    if not PG_URL:
        pytest.skip("PostgreSQL only (PBEM_TEST_DATABASE_URL): several hosts share one server")
    program = pgbouncer_bin()
    if program is None:
        yield PG_URL, "none"
        return
    server = make_url(PG_URL)
    assert server.port is not None and server.database is not None
    bouncer = PgBouncer(program, server.port, pool_size=10)
    bouncer.start()
    try:
        yield bouncer.url(server.database), "transaction"
    finally:
        bouncer.stop()


@pytest.fixture
def chat() -> Iterator[HookSink]:
    """A chat server that counts the webhook events posted to it."""
    with HookSink() as sink:
        yield sink


def new_games(app: Any, hook_url: str) -> dict[str, list[tuple[int, list[str]]]]:
    """The games, started at the real time the hosts run on (fixed seeds): per kind, each
    game's id and its seats' paths. The first game's table has a webhook to `hook_url`."""
    ext = app.extensions["pbem"]
    now = datetime.now(UTC)
    made: dict[str, list[tuple[int, list[str]]]] = {"web": [], "mail": [], "computer": []}
    kinds = ["web"] * WEB_GAMES + ["mail"] + ["computer"] * COMPUTER_GAMES
    with write_session(ext["engine"]) as session:
        for n, kind in enumerate(kinds):
            people = [Invitee(f"A{n}", f"a{n}@example.org")]
            if kind == "computer":
                people += [Invitee("", "", computer="beginner")] * 2
            else:
                people.append(Invitee(f"B{n}", f"b{n}@example.org"))
            game = create_game(
                session, ext["site"], "colour-bazaar", people, {}, now, seed=3300 + n
            )
            if n == 0:
                # As its creator would add it on the game's page (allowed on loopback here).
                session.add(Webhook(player_id=seats_of(session, game)[0].player_id,
                                    game_id=game.id, kind="generic", url=hook_url,
                                    secret="0" * 64, created_at=now))  # fmt: skip
                session.flush()
            if kind != "computer":
                join(session, ext["site"], game.id, 1, now)
            paths = [ext["site"].seat_url(s).split("pbem.test")[1] for s in seats_of(session, game)]
            made[kind].append((game.id, paths))
    return made


def whose_turn(engine: Any, game_id: int) -> int | None:
    """The seat to move, None once the game is over."""
    with read_session(engine) as session:
        game = session.get(Game, game_id)
        assert game is not None
        return game.state["turn"] if game.status == "active" else None


def browser(port: int, address: str) -> Browser:
    """A player's browser on its own address, as the proxy sees it."""
    made = Browser(port)
    made.conn = http.client.HTTPConnection(HOST, port, timeout=60, source_address=(address, 0))
    return made


def play_web(engine: Any, port: int, game: tuple[int, list[str]], number: int,
             humans: int, statuses: Counter[int]) -> None:  # fmt: skip
    """Play a game's human seats through the proxy until it is over; a page or a move lost
    with a killed host is asked for again, as a person would."""
    game_id, paths = game
    browsers = [browser(port, f"127.0.1.{2 * number + seat + 1}") for seat in range(humans)]
    give_up = time.monotonic() + PLAYING
    while time.monotonic() < give_up and (turn := whose_turn(engine, game_id)) is not None:
        if turn >= humans:
            time.sleep(0.05)  # a computer's turn: the workers make it
            continue
        try:
            status, page = browsers[turn].get(paths[turn])
            statuses[status] += 1
            if status != 200:
                continue
            try:
                fields = turn_form(page)
            except (ValueError, KeyError):
                statuses[-1] += 1  # a seat page without its move form: the assert says so
                continue
            statuses[browsers[turn].post(f"{paths[turn]}/move", fields)] += 1
        except (OSError, http.client.HTTPException):
            statuses[0] += 1  # the connection to the proxy dropped: a new one
            browsers[turn].conn.close()


def play_mail(engine: Any, sink: Any, listener: Any, game: tuple[int, list[str]],
              number: int, codes: Counter[int]) -> None:  # fmt: skip
    """Play a game by answering each "your move" mail once, through `pbem inbound`."""
    game_id, _ = game
    answered: set[str] = set()
    give_up = time.monotonic() + PLAYING
    while time.monotonic() < give_up and whose_turn(engine, game_id) is not None:
        mails = sink.to(f"a{number}@example.org") + sink.to(f"b{number}@example.org")
        fresh = [
            m
            for m in mails
            if str(m["Message-ID"]) not in answered and headline(m).startswith("your move")
        ]
        for mail in fresh:
            answered.add(str(mail["Message-ID"]))
            code, _ = send(listener, answer(mail, example_in(mail)))
            codes[code] += 1
        time.sleep(0.05)


def sign_in_asks(port: int, address: str, times: int) -> list[int]:
    """Ask for a sign-in link `times` from one client; the statuses."""
    client = browser(port, address)
    status, page = client.get("/signin")
    assert status == 200
    csrf = _CSRF.search(page)
    assert csrf is not None
    return [client.post("/signin", {"csrf": csrf.group(1), "email": "a0@example.org"})
            for _ in range(times)]  # fmt: skip


def count(engine: Any, *where: Any, of: Any = Move) -> int:
    """How many rows of `of` match."""
    with read_session(engine) as session:
        return int(session.exec(select(func.count()).select_from(of).where(*where)).one())


def test_several_hosts_apply_every_move_and_mail_once(
    app: Any, smtpd: Any, chat: HookSink, tmp_path: Path, database: tuple[str, str]
) -> None:
    url, pooler = database
    engine = app.extensions["pbem"]["engine"]
    inbound_port = free_port()
    settings = process_env(
        app, DATABASE_URL=url, DATABASE_POOLER=pooler, DATABASE_POOL_SIZE=2,
        DATABASE_MAX_OVERFLOW=4, TRUSTED_PROXIES=HOST, TURN_MAIL_DELAY=0,
        SENDER_INTERVAL=0.2, COMPUTER_DELAY=0, COMPUTER_INTERVAL=0.1, CLOCK_COMPUTERS=0,
        SMTP_TIMEOUT=2, WEBHOOK_TIMEOUT=2, WEBHOOK_ALLOW_LOOPBACK=1, REPLY_DOMAIN=REPLY_DOMAIN,
        INBOUND_PORT=inbound_port,
    )  # fmt: skip
    env = {**os.environ, **settings, "PYTHONUNBUFFERED": "1"}
    ports = [free_port(), free_port()]
    gunicorn = [sys.executable, "-m", "gunicorn", *procfile_options()]
    webs = [
        Host(
            f"web{n}", [*gunicorn, "--bind", f"{HOST}:{port}", "pbem:create_app()"], env, tmp_path
        )  # fmt: skip
        for n, port in enumerate(ports)
    ]
    clocks = [Host(f"clock{n}", [*PBEM, "clock"], env, tmp_path) for n in range(2)]
    workers = [Host(f"computers{n}", [*PBEM, "computers"], env, tmp_path) for n in range(2)]
    inbound = Host("inbound", [*PBEM, "inbound"], env, tmp_path)
    hosts = [*webs, *clocks, *workers, inbound]
    statuses: Counter[int] = Counter()
    replies: Counter[int] = Counter()
    try:
        for host in hosts:
            host.start()
        for port, web in zip(ports, webs, strict=True):
            wait_until(f"{web.name} answers", lambda p=port, w=web: w.alive() and serves(p))
        wait_until("inbound listens", lambda: inbound.alive() and listens(inbound_port))
        for host in [*clocks, *workers]:
            wait_until(f"{host.name} runs", lambda h=host: h.alive() and "running" in h.text())
        games = new_games(app, chat.url)
        every = [game for kind in games.values() for game in kind]
        listener = SimpleNamespace(hostname=HOST, port=inbound_port)
        with Proxy(ports) as proxy:
            players = [
                threading.Thread(target=play_web, args=(engine, proxy.port, game, n, 2, statuses))
                for n, game in enumerate(games["web"])
            ] + [
                threading.Thread(
                    target=play_web, args=(engine, proxy.port, game, n + 20, 1, statuses)
                )  # fmt: skip
                for n, game in enumerate(games["computer"])
            ]
            players.append(threading.Thread(
                target=play_mail, args=(engine, smtpd, listener, games["mail"][0], WEB_GAMES,
                                        replies)))  # fmt: skip
            for player in players:
                player.start()
            # A web host dies a quarter of the way, a clock halfway: both come back.
            wait_until("a quarter of the moves", lambda: count(engine) >= 90, PLAYING)
            webs[0].kill()
            webs[0].start()
            wait_until("web0 answers again", lambda: webs[0].alive() and serves(ports[0]))
            wait_until("half of the moves", lambda: count(engine) >= 180, PLAYING)
            clocks[0].kill()
            # The mail a killed sender had sent but not yet marked goes again once its lease
            # is past, with its Message-ID: at most these, which were in flight.
            with read_session(engine) as session:
                in_flight = set(session.exec(select(Outbox.message_id).where(
                    col(Outbox.sent_at).is_(None), col(Outbox.claimed_until).is_not(None)
                )).all())  # fmt: skip
                hooks_in_flight = set(session.exec(select(WebhookDelivery.event_id).where(
                    col(WebhookDelivery.sent_at).is_(None),
                    col(WebhookDelivery.claimed_until).is_not(None),
                )).all())  # fmt: skip
            clocks[0].start()
            # One client past its sign-in limit is held back; another behind the same proxy
            # is not.
            limited = sign_in_asks(proxy.port, "127.0.2.1", SIGN_INS.count + 1)
            other = sign_in_asks(proxy.port, "127.0.2.2", 1)
            for player in players:
                player.join(PLAYING)
            bad_gateways = proxy.bad_gateways
        ids = [game_id for game_id, _ in every]
        wait_until(
            "every game over",
            lambda: count(engine, col(Game.status) == "over", of=Game) == len(ids),
            PLAYING,
        )  # fmt: skip
        unsent = col(Outbox.sent_at).is_(None)
        wait_until("every mail sent", lambda: count(engine, unsent, of=Outbox) == 0)
        # A webhook event claimed by the killed clock waits out its lease (36 s here).
        waiting = col(WebhookDelivery.sent_at).is_(None)
        wait_until("every webhook posted", lambda: count(engine, waiting, of=WebhookDelivery) == 0)
        sent = count(engine, col(Outbox.sent_at).is_not(None), of=Outbox)
        wait_until("every mail received", lambda: len(smtpd.messages) >= sent)
        for host in hosts:
            host.alive()  # none of them fell over by itself
    finally:
        for host in hosts:
            host.stop()

    # Each killed host came back: two starts in its log.
    assert webs[0].text().count("Listening at") == 2
    assert clocks[0].text().count("pbem clock running") == 2
    assert limited == [200] * SIGN_INS.count + [429] and other == [200]
    assert set(statuses) <= {200, 303, 409, 502, 0}, statuses
    assert set(replies) == {250}, replies
    with read_session(engine) as session:
        logged = session.exec(select(Move.game_id, Move.ply, Move.seat, Move.source)).all()
        plies = {g.id: g.ply for g in session.exec(select(Game))}
        rows = session.exec(select(Outbox.game_id, Outbox.event, Outbox.message_id)).all()
        deliveries = session.exec(select(WebhookDelivery.event_id, WebhookDelivery.given_up)).all()
        computers = {(s.game_id, s.seat) for s in session.exec(select(Seat)) if s.computer}
    # Every move applied once: one per (game, ply), the game's ply the moves logged.
    per_ply = Counter((game_id, ply) for game_id, ply, _, _ in logged)
    assert max(per_ply.values()) == 1
    assert Counter(game_id for game_id, _, _, _ in logged) == Counter(plies)
    assert all(sorted(p for g, p, _, _ in logged if g == game_id) == list(range(plies[game_id]))
               for game_id in ids)  # fmt: skip
    # Computer seats moved by the workers only, each decision once: what the workers say
    # they made is what the log holds.
    by_computer = [(g, s) for g, _, s, source in logged if source == "computer"]
    assert set(by_computer) == computers and all(
        source == ("computer" if (g, s) in computers else "mail" if g == games["mail"][0][0]
                   else "web") for g, _, s, source in logged
    )  # fmt: skip
    texts = "".join(worker.text() for worker in workers)
    made = sum(int(n) for n in re.findall(r"computer moves: (\d+)", texts))
    assert made == len(by_computer)
    # Every mail arrived, once; only a mail in flight when its clock was killed may have
    # gone twice (at-least-once delivery, with its one Message-ID).
    received = Counter(str(m["Message-ID"]) for m in smtpd.messages)
    twice = {mid for mid, n in received.items() if n > 1}
    assert max(received.values()) <= 2 and twice <= in_flight, twice
    assert set(received) == {mid for _, _, mid in rows}
    # Every webhook event posted once, the same way.
    posted = Counter(chat.received)
    hooked_twice = {event for event, n in posted.items() if n > 1}
    assert deliveries and not any(given_up for _, given_up in deliveries)
    assert set(posted) == {event for event, _ in deliveries}
    assert max(posted.values()) <= 2 and hooked_twice <= hooks_in_flight, hooked_twice
    # Each person got a "your move" mail for each turn: one as the game starts, then one
    # per move that did not end it (two-person games).
    turns = Counter(game_id for game_id, event, _ in rows if event == "your_turn")
    for game_id, _ in games["web"] + games["mail"]:
        assert turns[game_id] == plies[game_id], game_id
    print(
        f"\nseveral hosts ({pooler} pooler): {len(ids)} games over, {len(logged)} moves"
        f" ({len(by_computer)} by computer workers, {replies[250]} by mail), no (game, ply)"
        f" twice; {len(received)} mails received, {len(twice)} twice (in flight at the"
        f" clock's kill: {len(in_flight)}); {len(posted)} webhook events posted,"
        f" {len(hooked_twice)} twice (in flight: {len(hooks_in_flight)});"
        f" {sum(turns.values())} turn mails; sign-in"
        f" {limited[-1]} for the client past its limit, {other[0]} for another; through the"
        f" proxy {dict(statuses)}, {bad_gateways} bad gateways"
    )
