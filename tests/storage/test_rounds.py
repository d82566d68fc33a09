"""Finished Fantasy Business rounds leave the stored state for rows of their own: the state a
move, page or mail decodes holds the last rounds only, and whatever shows more (every round,
the outcome, the replay check) reads the rows back and finds the game as the rules made it."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlmodel import col, delete, select

from pbem.games import GAMES
from pbem.mailout.mailer import make_templates
from pbem.mailout.notify import OutboxMail
from pbem.models import Game, GameRound
from pbem.moves import submit_move
from pbem.play import Invitee, create_game, join, replay_problem
from pbem.site import Site
from pbem.storage.db import make_engine, read_session, write_session
from pbem.storage.rounds import viewed_state

SLUG = "fantasy-business"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
RULES = GAMES[SLUG]


def _as_stored(data: Any) -> Any:
    """Plain data as a JSON column gives it back."""
    return json.loads(json.dumps(data))


class Table:
    """A four-player game in the database, played by seeded random legal moves through the
    one move path, its state followed in memory by the rules alone."""

    def __init__(self, database_url: str, seed: int) -> None:
        self.engine = make_engine(database_url)
        self.site = Site(
            secret="test-rounds",
            base_url="http://pbem.test",
            mail_templates=make_templates(),
            mail=OutboxMail(),
        )
        self.rng = random.Random(seed)
        self.state = RULES.setup(4, RULES.check_options(4, {}), seed)
        self.ply = 0
        with write_session(self.engine) as session:
            people = [Invitee(n, f"{n.lower()}@example.org") for n in ("Ana", "Leo", "Zoe", "Ines")]
            game = create_game(session, self.site, SLUG, people, {}, START, seed=seed)
            self.game_id = game.id or 0
            for seat in range(1, 4):
                join(session, self.site, self.game_id, seat, START)

    def play(self) -> bool:
        """One move by the first seat due; False when the game is over."""
        if not RULES.to_act(self.state):
            return False
        seat = RULES.to_act(self.state)[0]
        move = self.rng.choice(RULES.legal_moves(self.state, seat))
        token = RULES.turn_token(self.state, seat)
        self.ply += 1
        with write_session(self.engine) as session:
            moment = START + timedelta(hours=self.ply)
            submit_move(session, self.site, self.game_id, seat, move, token, moment)
        self.state = RULES.apply(self.state, seat, move)
        return True

    def game(self) -> Game:
        with read_session(self.engine) as session:
            game = session.get(Game, self.game_id)
            assert game is not None
            session.expunge(game)
            return game

    def rows(self) -> list[int]:
        """The numbers of the game's released rounds, as stored."""
        with read_session(self.engine) as session:
            query = select(GameRound.round).where(GameRound.game_id == self.game_id)
            return sorted(session.exec(query))

    def whole(self) -> dict[str, Any]:
        """The stored state with every round read back, and the replay check's answer."""
        with read_session(self.engine) as session:
            game = session.get(Game, self.game_id)
            assert game is not None
            return {"state": viewed_state(session, game), "replay": replay_problem(session, game)}


def test_finished_rounds_leave_the_state_and_come_back_whole(database_url: str) -> None:
    table = Table(database_url, seed=23)
    sizes: dict[int, int] = {}
    try:
        while table.play():
            stored = table.game().state
            assert stored is not None
            held = [record["round"] for record in stored["history"]]
            # The current round and the one finished before it; the others are rows.
            assert held == list(range(max(1, table.state["round"] - 1), table.state["round"] + 1))
            assert table.rows() == list(range(1, held[0]))
            sizes[table.ply] = len(json.dumps(stored))
            if table.ply % 25 == 0:
                read = table.whole()
                assert read["state"] == _as_stored(table.state)
                assert read["replay"] is None
        read = table.whole()
        assert read["state"] == _as_stored(table.state)
        assert read["replay"] is None  # the replay check holds the rows to the log too
        # The outcome breaks down every round, those the state released as well.
        outcome = RULES.outcome(table.state)
        assert outcome is not None
        assert table.game().outcome == _as_stored(
            {"scores": outcome.scores, "ranks": outcome.ranks, "breakdown": outcome.breakdown}
        )
        assert len(outcome.breakdown["rounds"]) == table.state["rounds"]
    finally:
        table.engine.dispose()
    # The state decoded by every move stays small: late in the game it holds two rounds, as
    # early on, where the whole history grew with each round.
    assert max(sizes.values()) < 3 * len(json.dumps(RULES.release_history(table.state)[0]))
    assert len(json.dumps(table.state)) > 2 * max(sizes.values())


def test_a_game_stored_with_its_whole_history_releases_it_at_its_next_move(
    database_url: str,
) -> None:
    table = Table(database_url, seed=5)
    try:
        while table.state["round"] < 5:
            table.play()
        # As a game under way when the server was upgraded: its whole history in its state,
        # and no rows.
        with write_session(table.engine) as session:
            session.exec(delete(GameRound).where(col(GameRound.game_id) == table.game_id))  # type: ignore[call-overload]
            game = session.get(Game, table.game_id)
            assert game is not None
            game.state = _as_stored(table.state)
            session.add(game)
        read = table.whole()
        assert read["state"] == _as_stored(table.state) and read["replay"] is None
        table.play()
        stored = table.game().state
        assert stored is not None and len(stored["history"]) == 2
        assert table.rows() == list(range(1, stored["history"][0]["round"]))
        read = table.whole()
        assert read["state"] == _as_stored(table.state) and read["replay"] is None
    finally:
        table.engine.dispose()
