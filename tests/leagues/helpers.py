"""Helpers for the league tests: players, a league made and started, its games played to
their end through the normal move path (the beginner bot's moves, from fixed seeds)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlmodel import select

from pbem.bots import decide
from pbem.clock.computer_play import sweep_computers
from pbem.clock.league_sweeps import sweep_leagues
from pbem.games import GAMES
from pbem.leagues import setup
from pbem.leagues.rows import Played
from pbem.models import Game, League, LeagueGame, LeagueMember, Outbox, Player, Seat
from pbem.moves import submit_move
from pbem.present.forms import TimeControl
from pbem.storage.db import read_session, write_session
from pbem.web.csrf import csrf_token

NAMES = ["Ana", "Bea", "Cleo", "Dan", "Eli", "Fay", "Gus", "Hal"]


def engine_site(app: Any) -> tuple[Any, Any]:
    ext = app.extensions["pbem"]
    return ext["engine"], ext["site"]


def add_players(app: Any, count: int, domain: str = "example.org") -> list[int]:
    """`count` players (Ana, Bea, ...), their ids."""
    engine, _ = engine_site(app)
    now = app.config["CLOCK"]()
    with write_session(engine) as session:
        people = [
            Player(email=f"{name.lower()}@{domain}", name=name, created_at=now)
            for name in NAMES[:count]
        ]
        session.add_all(people)
        session.flush()
        return [p.id for p in people if p.id is not None]


def make_league(
    app: Any, ids: list[int], start: bool = True, timing: TimeControl | None = None, **form: Any
) -> int:
    """A league organised by the first player, everyone else invited and joining; started
    (unless `start` is False) by the organiser; its games' clock `timing` (3 days a move)."""
    engine, site = engine_site(app)
    now = app.config["CLOCK"]()
    with write_session(engine) as session:
        organiser = session.get(Player, ids[0])
        others = [session.get(Player, i) for i in ids[1:]]
        data = {"name": "Autumn league", "game": "colour-bazaar", **form}
        data["invites"] = "\n".join(p.email for p in others if p)
        data.setdefault("most_players", str(len(ids)))
        league = setup.create(
            session, site, organiser, setup.LeagueForm.read(data), timing or TimeControl(), now
        )
        league_id = league.id
    assert league_id is not None
    with write_session(engine) as session:
        for player_id in ids[1:-1] if start else ids[1:]:
            setup.join(session, site, league_id, player_id, now)
    if start:
        with write_session(engine) as session:  # the last one to join fills it: it starts
            setup.join(session, site, league_id, ids[-1], now)
    return league_id


def play_people(app: Any, league_id: int, most: int = 5000, only: set[int] | None = None) -> int:
    """Play every league game's (or those of `only`'s ids) people's turns (the beginner
    bot's choice) until each game is over or waits on a computer; how many moves were made."""
    engine, site = engine_site(app)
    made = 0
    for _ in range(most):
        now = app.config["CLOCK"]()
        with write_session(engine) as session:
            picked = None
            for _, game, seats in Played(session, league_id).games:
                if game.status != "active" or game.state is None:
                    continue
                if only is not None and game.id not in only:
                    continue
                rules = GAMES[game.slug]
                for seat_no in rules.to_act(game.state):
                    if not seats[seat_no].computer:
                        picked = (game, seat_no)
                        break
                if picked:
                    break
            if picked is None:
                return made
            game, seat_no = picked
            rules = GAMES[game.slug]
            move = decide(rules, game.state, seat_no, "beginner", game.seed)
            token = rules.turn_token(game.state, seat_no)
            submit_move(session, site, game.id, seat_no, move, token, now, source="web")
            made += 1
    raise AssertionError("the games did not end")


def play_computers(app: Any, clock: Any) -> int:
    """Let the computers play every seat they owe, as the clock's job does."""
    engine, site = engine_site(app)
    made = 0
    while True:
        clock.advance(seconds=5)
        done = sweep_computers(engine, site, clock(), timedelta(seconds=0))
        made += done
        if not done:
            return made


def play_out(app: Any, clock: Any, league_id: int) -> int:
    """People and computers in turn until no league game waits on either: the computer
    moves made."""
    by_computers = 0
    while True:
        people = play_people(app, league_id)
        computers = play_computers(app, clock)
        by_computers += computers
        if not people and not computers:
            return by_computers


def league_sweep(app: Any) -> dict[str, int]:
    engine, site = engine_site(app)
    return sweep_leagues(engine, site, app.config["CLOCK"]())


def league_key(app: Any, league_id: int) -> str:
    """The key in the league's page's link."""
    return league(app, league_id).join_key


def league(app: Any, league_id: int) -> League:
    engine, _ = engine_site(app)
    with read_session(engine) as session:
        found = session.get(League, league_id)
        assert found is not None
        return found


def member_rows(app: Any, league_id: int) -> list[LeagueMember]:
    engine, _ = engine_site(app)
    with read_session(engine) as session:
        return list(session.exec(select(LeagueMember).where(LeagueMember.league_id == league_id)))


def league_games(app: Any, league_id: int) -> list[tuple[LeagueGame, Game | None, list[Seat]]]:
    engine, _ = engine_site(app)
    with read_session(engine) as session:
        rows = session.exec(select(LeagueGame).where(LeagueGame.league_id == league_id)).all()
        out = []
        for row in rows:
            game = session.get(Game, row.game_id) if row.game_id else None
            seats = (
                list(
                    session.exec(
                        select(Seat).where(Seat.game_id == row.game_id).order_by(Seat.seat)
                    )
                )
                if game
                else []
            )
            out.append((row, game, seats))
        return out


def outbox(app: Any, event: str) -> list[Outbox]:
    engine, _ = engine_site(app)
    with read_session(engine) as session:
        return list(session.exec(select(Outbox).where(Outbox.event == event)))


def post(client: Any, path: str, scope: str, **data: str) -> Any:
    """POST as the page's form does: with its token for the link it was on."""
    with client.application.test_request_context():
        data["csrf"] = csrf_token(scope)
    return client.post(path, data=data, raw=True)
