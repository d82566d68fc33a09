"""Standings: points by rank (shared places share), byes, and the tiebreaks in order."""

from __future__ import annotations

import pytest

from pbem.leagues.setup import LeagueForm
from pbem.leagues.standings import Result, points_by_rank, standings
from pbem.leagues.table import points_text


def test_points_by_rank_for_two_and_for_more_players() -> None:
    assert points_by_rank([1, 2]) == [1.0, 0.0]
    assert points_by_rank([1, 1]) == [0.5, 0.5]  # a draw
    assert points_by_rank([2, 1, 3]) == [0.5, 1.0, 0.0]
    # Two share first of four: they share 1 and 2/3; the last two share 1/3 and 0.
    assert points_by_rank([1, 1, 3, 3]) == pytest.approx([5 / 6, 5 / 6, 1 / 6, 1 / 6])


def test_standings_break_ties_by_sonneborn_berger_then_games_won() -> None:
    a, b, c, d = 1, 2, 3, 4
    results = [
        Result((a, b), (1, 2)),  # a beats b
        Result((c, d), (1, 2)),  # c beats d
        Result((a, c), (1, 1)),  # a and c draw
        Result((b, d), (1, 2)),  # b beats d
        Result((a, d), None),  # still being played
    ]
    table = standings([d, c, b, a], results, byes=[])
    assert [(s.player_id, s.points) for s in table] == [(a, 1.5), (c, 1.5), (b, 1.0), (d, 0.0)]
    # a beat b (1 point) and drew c (1.5): 1 + 0.75; c beat d (0) and drew a: 0.75.
    assert [round(s.tiebreak, 3) for s in table[:2]] == [1.75, 0.75]
    assert table[0].playing == 1 and table[0].place == 1 and table[1].place == 2


def test_a_bye_is_worth_a_point_and_equal_lines_share_a_place() -> None:
    table = standings([1, 2, 3], [], byes=[3])
    assert [(s.player_id, s.points, s.place) for s in table] == [(3, 1.0, 1), (1, 0, 2), (2, 0, 2)]


def test_points_read_as_halves_or_two_places() -> None:
    assert [points_text(p) for p in (0, 0.5, 1, 2.5, 2 / 3)] == ["0", "½", "1", "2½", "0.67"]


def test_invitations_read_a_name_with_an_address() -> None:
    form = LeagueForm.read(
        {"name": "L", "game": "colour-bazaar", "invites": "Zed <ZED@example.org>, bob@example.org"}
    )
    assert form.invites == ["zed@example.org", "bob@example.org"]
    assert form.names == {"zed@example.org": "Zed"}
