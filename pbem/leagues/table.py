"""What a league shows: its standings with names and points in words, each player's games,
its links. Public facts only: names, results, whose move; never an address or a hand."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from pbem.games import GAMES
from pbem.leagues.rows import Played, members
from pbem.leagues.standings import Standing, standings
from pbem.models import League, Player
from pbem.players.links import Site, make_token


def league_url(site: Site, league: League) -> str:
    """The league's page: its key is in the link (a league not open is not listed)."""
    return f"{site.base_url.rstrip('/')}/leagues/{league.join_key}"


def invitation_url(site: Site, league: League, player_id: int) -> str:
    """The signed link an invited player joins (or declines) by."""
    token = make_token(site.secret, "league", [league.id or 0, player_id, league.join_key])
    return f"{site.base_url.rstrip('/')}/leagues/invited/{token}"


def points_text(points: float) -> str:
    """Points as a table shows them: halves as ½, other fractions to two places."""
    whole, half = divmod(round(points * 2, 6), 2)
    if half in (0, 1) and abs(points * 2 - round(points * 2)) < 1e-6:
        return (f"{int(whole)}" if whole or not half else "") + ("½" if half else "")
    return f"{points:.2f}"


def names_of(session: Session, ids: list[int]) -> dict[int, str]:
    """The players' names by id."""
    if not ids:
        return {}
    rows = session.exec(select(Player.id, Player.name).where(col(Player.id).in_(ids)))
    return {pid: name for pid, name in rows if pid is not None}


def standing_lines(session: Session, league: League, played: Played) -> list[dict[str, Any]]:
    """The standings table as plain facts: place, name, points, played, won, tiebreak."""
    everyone = members(session, league.id or 0, "joined", "dropped")
    names = names_of(session, [m.player_id for m in everyone])
    dropped = {m.player_id for m in everyone if m.status == "dropped"}
    order = sorted(names, key=lambda p: (names[p].casefold(), p))
    table: list[Standing] = standings(order, played.results(), played.bye_players())
    return [
        {
            "place": line.place,
            "player_id": line.player_id,
            "name": names[line.player_id],
            "points": line.points,
            "points_text": points_text(line.points),
            "played": line.played,
            "playing": line.playing,
            "won": line.won,
            "byes": line.byes,
            "tiebreak": round(line.tiebreak, 3),
            "tiebreak_text": points_text(line.tiebreak),
            "dropped": line.player_id in dropped,
        }
        for line in table
    ]


def games_of(site: Site, played: Played, names: dict[int, str]) -> list[dict[str, Any]]:
    """Every league game as the public sees it: round, players, status, result, watch link."""
    out = []
    for number, game, seats in played.games:
        rules = GAMES[game.slug]
        acting = set(rules.to_act(game.state)) if game.status == "active" and game.state else set()
        ranks = game.outcome["ranks"] if game.status == "over" and game.outcome else None
        out.append(
            {
                "id": game.id,
                "round": number,
                "status": game.status,
                "watch_link": site.watch_url(game),
                "players": [
                    {
                        "player_id": s.player_id,
                        "name": names.get(s.player_id, s.name),
                        "left": s.left,
                        "to_act": s.seat in acting,
                        "rank": ranks[s.seat] if ranks else None,
                    }
                    for s in seats
                ],
            }
        )
    return out
