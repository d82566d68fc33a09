"""A rated game's end moves its players' ratings, once, in the transaction that ends it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import select

from pbem.models import Player, Rating, RatingChange, Seat
from pbem.play import Invitee
from pbem.ratings import COMPUTER_DEVIATION, COMPUTER_RATINGS, shown
from pbem.ratings.glicko2 import Result, Standing, idle, rate
from pbem.ratings.outcomes import rate_game, score
from pbem.seats.leave import leave
from pbem.storage.db import make_engine, read_session, write_session
from tests.ratings.helpers import make_game, play_game, play_out, site

ANA, LEO, ZOE, INES = (
    Invitee(name, f"{name.lower()}@example.org") for name in ("Ana", "Leo", "Zoe", "Ines")
)
LATER = datetime(2026, 6, 1, tzinfo=UTC)
SEED_LEO_WINS = 3  # a game whose random play ranks seat 1 (Leo) first


def ratings_of(engine: object, kind: str) -> dict[str, Rating]:
    """The stored ratings in a kind, by player name."""
    with read_session(engine) as session:  # type: ignore[arg-type]
        rows = session.exec(
            select(Rating, Player).where(Rating.player_id == Player.id, Rating.kind == kind)
        )
        return {player.name: rating for rating, player in rows}


def changes_of(engine: object) -> list[RatingChange]:
    with read_session(engine) as session:  # type: ignore[arg-type]
        return list(session.exec(select(RatingChange).order_by(RatingChange.id)))


def test_pairwise_scores_follow_the_ranks() -> None:
    assert (score(1, 2), score(2, 1), score(2, 2)) == (1.0, 0.0, 0.5)


def test_a_rated_colour_bazaar_game_moves_both_ratings_by_its_result(database_url: str) -> None:
    engine = make_engine(database_url)
    game_id, outcome = play_game(engine, "colour-bazaar", [ANA, LEO])
    ranks = outcome["ranks"]
    rated = ratings_of(engine, "colour-bazaar")
    assert set(rated) == {"Ana", "Leo"}
    # Both started at 1500/350: the Glicko-2 update of one game between them, by the ranks.
    for seat, name in enumerate(("Ana", "Leo")):
        expected = rate(
            Standing(1500, 350, 0.06), [Result(1500, 350, score(ranks[seat], ranks[1 - seat]))]
        )
        assert rated[name].rating == pytest.approx(expected.rating)
        assert rated[name].deviation == pytest.approx(expected.deviation)
        assert rated[name].games == 1
    winner = "Ana" if ranks[0] < ranks[1] else "Leo"
    if ranks[0] != ranks[1]:
        assert rated[winner].rating > 1500 > min(r.rating for r in rated.values())
    history = changes_of(engine)
    assert [(c.game_id, c.kind, c.before) for c in history] == [
        (game_id, "colour-bazaar", 1500.0)
    ] * 2
    with read_session(engine) as session:
        ids = [p.id or 0 for p in session.exec(select(Player).order_by(Player.id))]
        assert {s.games for s in shown(session, ids, "colour-bazaar").values()} == {1}

    # Rating the game again (a retry, a second host) changes nothing.
    before = {name: (r.rating, r.deviation, r.games) for name, r in rated.items()}
    with write_session(engine) as session:
        rate_game(session, game_id, LATER)
    again = {
        name: (r.rating, r.deviation, r.games)
        for name, r in ratings_of(engine, "colour-bazaar").items()
    }
    assert again == before and len(changes_of(engine)) == 2


def test_a_fantasy_business_game_of_four_rates_each_against_every_other(database_url: str) -> None:
    engine = make_engine(database_url)
    _, outcome = play_game(engine, "fantasy-business", [ANA, LEO, ZOE, INES])
    ranks = outcome["ranks"]
    rated = ratings_of(engine, "fantasy-business")
    names = ["Ana", "Leo", "Zoe", "Ines"]
    for seat, name in enumerate(names):
        results = [
            Result(1500, 350, score(ranks[seat], ranks[other]))
            for other in range(4)
            if other != seat
        ]
        assert rated[name].rating == pytest.approx(rate(Standing(1500, 350, 0.06), results).rating)
    best = min(range(4), key=lambda s: ranks[s])
    worst = max(range(4), key=lambda s: ranks[s])
    assert rated[names[best]].rating > 1500 > rated[names[worst]].rating
    assert len(changes_of(engine)) == 4
    assert ratings_of(engine, "colour-bazaar") == {}  # one kind per game


def test_an_unrated_game_changes_no_rating(database_url: str) -> None:
    engine = make_engine(database_url)
    play_game(engine, "colour-bazaar", [ANA, LEO], rated=False)
    assert ratings_of(engine, "colour-bazaar") == {} and changes_of(engine) == []


def test_a_game_against_the_computer_rates_the_person_only(database_url: str) -> None:
    engine = make_engine(database_url)
    robot = Invitee("Robot", "", computer="casual")
    _, outcome = play_game(engine, "colour-bazaar", [ANA, robot])
    rated = ratings_of(engine, "colour-bazaar")
    assert list(rated) == ["Ana"]
    fixed = COMPUTER_RATINGS["colour-bazaar"]["casual"]
    result = Result(fixed, COMPUTER_DEVIATION, score(outcome["ranks"][0], outcome["ranks"][1]))
    assert rated["Ana"].rating == pytest.approx(rate(Standing(1500, 350, 0.06), [result]).rating)
    # The computer's account shows its level's fixed rating, never moved.
    with read_session(engine) as session:
        computer = session.exec(select(Seat.player_id).where(Seat.computer == "casual")).one()
        assert shown(session, [computer], "colour-bazaar")[computer].rating == round(fixed)
        assert shown(session, [computer], "fantasy-business")[computer].rating == round(
            COMPUTER_RATINGS["fantasy-business"]["casual"]
        )


def test_a_rating_left_idle_for_months_is_less_sure_at_the_next_game(database_url: str) -> None:
    engine = make_engine(database_url)
    play_game(engine, "colour-bazaar", [ANA, LEO], seed=5)
    first = ratings_of(engine, "colour-bazaar")
    # Ana's last rated game was a year before this one's end; Leo's, hours before.
    with write_session(engine) as session:
        row = session.get(Rating, first["Ana"].id)
        assert row is not None
        row.updated_at = row.updated_at - timedelta(days=365)
        session.add(row)
    ana = Standing(first["Ana"].rating, first["Ana"].deviation, first["Ana"].volatility)
    leo = Standing(first["Leo"].rating, first["Leo"].deviation, first["Leo"].volatility)
    _, outcome = play_game(engine, "colour-bazaar", [ANA, LEO], seed=6)
    ranks = outcome["ranks"]
    wider = idle(ana, 12)  # twelve whole idle periods of 30 days in 365 days
    assert wider.deviation > ana.deviation
    expected = rate(wider, [Result(leo.rating, leo.deviation, score(ranks[0], ranks[1]))])
    after = ratings_of(engine, "colour-bazaar")
    assert after["Ana"].rating == pytest.approx(expected.rating)
    assert after["Ana"].deviation == pytest.approx(min(expected.deviation, 350.0))
    # Leo played hours ago: no idle period widens his.
    leo_expected = rate(leo, [Result(ana.rating, wider.deviation, score(ranks[1], ranks[0]))])
    assert after["Leo"].rating == pytest.approx(leo_expected.rating)


def test_a_player_who_left_scores_a_loss_whatever_place_the_computer_made(
    database_url: str,
) -> None:
    engine = make_engine(database_url)
    game_id = make_game(engine, "colour-bazaar", [ANA, LEO], seed=SEED_LEO_WINS)
    with write_session(engine) as session:  # Leo leaves before his first move
        leave(session, site(), game_id, 1, datetime(2026, 3, 2, 10, tzinfo=UTC))
    ranks = play_out(engine, game_id, seed=SEED_LEO_WINS)["ranks"]
    assert ranks[1] < ranks[0]  # the computer won Leo's seat for him...
    rated = ratings_of(engine, "colour-bazaar")
    # ...but leaving resigns: Leo is rated as a person who lost, Ana as the winner.
    assert set(rated) == {"Ana", "Leo"}
    for name, result in (("Ana", 1.0), ("Leo", 0.0)):
        expected = rate(Standing(1500, 350, 0.06), [Result(1500, 350, result)])
        assert rated[name].rating == pytest.approx(expected.rating)
    assert rated["Leo"].rating < 1500 < rated["Ana"].rating


def test_leaving_a_game_against_the_strong_computer_earns_no_points(database_url: str) -> None:
    engine = make_engine(database_url)
    strong = Invitee("Robot", "", computer="strong")
    for game_no, seed in enumerate((SEED_LEO_WINS, 11, 12)):
        game_id = make_game(engine, "colour-bazaar", [ANA, strong], seed=seed)
        with write_session(engine) as session:
            leave(session, site(), game_id, 0, datetime(2026, 3, 2, 10, tzinfo=UTC))
        play_out(engine, game_id, seed=seed)
        assert ratings_of(engine, "colour-bazaar")["Ana"].games == game_no + 1
    # Three games never played, three losses: down, never up.
    assert [c.after < c.before for c in changes_of(engine)] == [True] * 3


def test_a_seat_the_server_played_most_of_scores_a_loss(database_url: str) -> None:
    engine = make_engine(database_url)
    game_id = make_game(engine, "colour-bazaar", [ANA, LEO], seed=SEED_LEO_WINS)
    # Leo timed out on every move: the server played his whole seat.
    ranks = play_out(
        engine, game_id, seed=SEED_LEO_WINS, server=lambda seat, ply: "timeout" * (seat == 1)
    )["ranks"]
    assert ranks[1] < ranks[0]
    rated = ratings_of(engine, "colour-bazaar")
    assert rated["Leo"].rating < 1500 < rated["Ana"].rating


def test_a_few_timeouts_keep_the_place_the_player_made(database_url: str) -> None:
    engine = make_engine(database_url)
    game_id = make_game(engine, "colour-bazaar", [ANA, LEO], seed=SEED_LEO_WINS)
    # Leo's first move only was a timeout: he made the fair share of his seat's moves.
    ranks = play_out(
        engine, game_id, seed=SEED_LEO_WINS, server=lambda seat, ply: "timeout" * (ply == 1)
    )["ranks"]
    assert ranks[1] < ranks[0]
    rated = ratings_of(engine, "colour-bazaar")
    assert rated["Leo"].rating > 1500 > rated["Ana"].rating


def test_a_fantasy_business_seat_left_loses_to_every_seat_played(database_url: str) -> None:
    engine = make_engine(database_url)
    game_id = make_game(engine, "fantasy-business", [ANA, LEO, ZOE], seed=5)
    with write_session(engine) as session:
        leave(session, site(), game_id, 0, datetime(2026, 3, 2, 10, tzinfo=UTC))
    ranks = play_out(engine, game_id, seed=5)["ranks"]
    rated = ratings_of(engine, "fantasy-business")
    for seat, name in ((1, "Leo"), (2, "Zoe")):
        other = 3 - seat
        results = [
            Result(1500, 350, 1.0),  # Ana left: a win, whatever her seat's place
            Result(1500, 350, score(ranks[seat], ranks[other])),
        ]
        assert rated[name].rating == pytest.approx(rate(Standing(1500, 350, 0.06), results).rating)
    two_losses = [Result(1500, 350, 0.0)] * 2
    assert rated["Ana"].rating == pytest.approx(rate(Standing(1500, 350, 0.06), two_losses).rating)
