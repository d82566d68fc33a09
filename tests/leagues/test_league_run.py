"""A league run to its end: a Swiss league of 6 with a dropout, a round robin started all at
once, the round and digest sweeps doing each thing once however often they run."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pbem.leagues import rounds, setup
from pbem.leagues.standings import Result, standings
from pbem.models import Player
from pbem.players import blocks
from pbem.storage.db import write_session
from tests.clock.helpers import moves, parallel
from tests.leagues.helpers import (
    add_players,
    engine_site,
    league,
    league_games,
    league_sweep,
    make_league,
    member_rows,
    outbox,
    play_out,
    play_people,
)


def test_a_swiss_league_of_six_runs_to_its_end_with_a_dropout(app: Any, clock: Any) -> None:
    ids = add_players(app, 6)
    league_id = make_league(app, ids, format="swiss", rounds="3")
    assert league(app, league_id).status == "running" and league(app, league_id).round == 1
    games = league_games(app, league_id)
    assert len(games) == 3 and all(g.status == "active" for _, g, _ in games if g)
    # Everyone joined every seat: no invitation mails for the games, one round mail each.
    assert not outbox(app, "invitation") and not outbox(app, "started")
    assert Counter(r.player_id for r in outbox(app, "league_round")) == Counter(ids)

    # Round 1 played; the sweep starts round 2, once, however many sweeps run at once.
    play_people(app, league_id)
    results = parallel(lambda: league_sweep(app), times=3)
    assert sum(r["league rounds"] for r in results) == 1
    assert league(app, league_id).round == 2
    assert len(outbox(app, "league_round")) == 12
    # Nobody meets again the one they met in round 1.
    played = [frozenset(s.player_id for s in seats) for _, g, seats in league_games(app, league_id)]
    assert len(set(played)) == len(played) == 6

    # Fay leaves during round 2: the computer finishes her game; she gets no new games.
    fay = ids[5]
    engine, site = engine_site(app)
    with write_session(engine) as session:
        rounds.drop_out(session, site, league_id, fay, fay, clock())
    assert {m.player_id: m.status for m in member_rows(app, league_id)}[fay] == "dropped"
    fays = [
        (g, s)
        for _, g, seats in league_games(app, league_id)
        for s in seats
        if g and s.player_id == fay
    ]
    assert len(fays) == 2 and fays[1][1].left and fays[1][1].computer
    assert play_out(app, clock, league_id) > 0
    left_moves = [m for m in moves(app, source="left") if m.game_id == fays[1][0].id]
    assert left_moves and all(m.seat == fays[1][1].seat for m in left_moves)
    clock.advance(minutes=2)
    assert league_sweep(app)["league rounds"] == 1
    third = [(r, g, s) for r, g, s in league_games(app, league_id) if r.round == 3]
    # Five left: two games and a bye, and Fay in none of them.
    assert len([g for _, g, _ in third if g]) == 2
    assert all(fay not in {s.player_id for s in seats} for _, _, seats in third)
    byes = [r.bye_player_id for r, _, _ in third if r.bye_player_id]
    assert len(byes) == 1 and byes[0] != fay

    play_people(app, league_id)
    clock.advance(minutes=2)
    assert league_sweep(app)["league rounds"] == 1
    assert league(app, league_id).status == "finished"
    clock.advance(minutes=2)
    assert league_sweep(app) == {"league rounds": 0, "league digests": 0}

    # Every game is over; the standings are the points of the games' ranks, plus the bye.
    all_games = league_games(app, league_id)
    assert all(g.status == "over" for _, g, _ in all_games if g)
    results = [
        Result(tuple(s.player_id for s in seats), tuple(g.outcome["ranks"]))
        for _, g, seats in all_games
        if g
    ]
    expected = {s.player_id: s.points for s in standings(ids, results, byes)}
    assert {m.player_id: m.points for m in member_rows(app, league_id)} == expected
    assert sum(expected.values()) == 9  # eight games, one point each, and a bye
    # The final standings went once to each of the six, Fay too.
    assert Counter(r.player_id for r in outbox(app, "league_over")) == Counter(ids)
    assert len(outbox(app, "league_round")) == 12 + 5


def test_a_round_robin_starts_every_game_at_once_and_ends_when_all_are_over(
    app: Any, clock: Any
) -> None:
    ids = add_players(app, 4)
    league_id = make_league(app, ids)
    games = league_games(app, league_id)
    assert len(games) == 6 and {r.round for r, _, _ in games} == {1, 2, 3}
    assert all(g.status == "active" for _, g, _ in games if g)
    # One round mail each, listing their three games.
    mails = outbox(app, "league_round")
    assert Counter(r.player_id for r in mails) == Counter(ids)
    assert all(len(r.extra["extra"]["new_games"]) == 3 for r in mails)
    play_people(app, league_id)
    clock.advance(minutes=2)
    assert league_sweep(app)["league rounds"] == 1
    assert league(app, league_id).status == "finished"
    assert sum(m.points for m in member_rows(app, league_id)) == 6


def test_the_weekly_digest_goes_once_to_each_member(app: Any, clock: Any) -> None:
    ids = add_players(app, 4)
    make_league(app, ids)
    engine, _ = engine_site(app)
    with write_session(engine) as session:  # the fourth asked for no mail at all
        quiet = session.get(Player, ids[3])
        assert quiet is not None
        quiet.notify = "none"
    assert league_sweep(app)["league digests"] == 0
    clock.advance(days=7)
    results = parallel(lambda: league_sweep(app), times=2)
    assert sum(r["league digests"] for r in results) == 1
    digests = outbox(app, "league_digest")
    assert Counter(r.player_id for r in digests) == Counter(ids[:3])
    waiting = {r.player_id: len(r.extra["extra"]["waiting"]) for r in digests}
    assert sum(waiting.values()) >= 4  # each game waits on someone (some on the quiet one)
    assert league_sweep(app)["league digests"] == 0


def test_a_blocked_pair_never_sits_together_and_their_game_is_not_played(
    app: Any, clock: Any
) -> None:
    ids = add_players(app, 4)
    engine, _ = engine_site(app)
    with write_session(engine) as session:
        blocks.block(session, ids[1], ids[0], clock())
    league_id = make_league(app, ids)
    tables = [{s.player_id for s in seats} for _, _, seats in league_games(app, league_id)]
    assert len(tables) == 5 and {ids[0], ids[1]} not in tables
    play_people(app, league_id)
    clock.advance(minutes=2)
    assert league_sweep(app)["league rounds"] == 1
    lines = {m.player_id: m.points for m in member_rows(app, league_id)}
    assert sum(lines.values()) == 5


def test_a_league_of_three_player_games_seats_tables_and_scores_by_rank(
    app: Any, clock: Any
) -> None:
    ids = add_players(app, 4)
    league_id = make_league(app, ids, table_size="3", rounds="2")
    games = league_games(app, league_id)
    # Four players at tables of three: one table a round, someone else sits out each time.
    assert [len(seats) for _, _, seats in games] == [3, 3]
    assert {s.player_id for s in games[0][2]} != {s.player_id for s in games[1][2]}
    play_people(app, league_id)
    clock.advance(minutes=2)
    assert league_sweep(app)["league rounds"] == 1
    points = sorted(m.points for m in member_rows(app, league_id))
    # Each game gives 1 + 1/2 + 0 (ranks shared share): three points in all.
    assert sum(points) == 3


def test_a_swiss_league_plays_one_round_less_than_its_players_unless_told(
    app: Any, clock: Any
) -> None:
    ids = add_players(app, 4)
    league_id = make_league(app, ids, start=False, format="swiss", most_players="8")
    assert league(app, league_id).status == "forming"
    engine, site = engine_site(app)
    with write_session(engine) as session:
        setup.start_by(session, site, league_id, ids[0], clock())
    assert league(app, league_id).rounds == 3 and league(app, league_id).round == 1
