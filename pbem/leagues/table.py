"""What a league shows: its standings with names and points in words, each player's games,
its links. Public facts only: names, results, whose move; never an address or a hand."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from pbem.games import GAMES
from pbem.leagues.rows import Played, least_at_table, members
from pbem.leagues.standings import Standing, standings
from pbem.models import League, LeagueMember, Player
from pbem.site import Site, make_token

KEY_MAX = 40  # a league's key is 16 characters: anything much longer is no key


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
    # A private member is named, as at their tables, but never linked (SECURITY.md "Privacy").
    public = set(
        session.exec(
            select(Player.id).where(col(Player.id).in_(list(names)), col(Player.page_public))
        )
    )
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
            "public": line.player_id in public,
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


def rounds_of(league: League, played: Played) -> tuple[int, int | None]:
    """(rounds over, rounds in all): every game of a round over counts it; in all, the rounds
    planned (a round robin's schedule, the Swiss rounds set), or those it had once over (a
    Swiss league short of players ends early); None while forming with none set (the number
    of players decides it at the start)."""
    if league.status == "forming":
        return 0, league.rounds or None
    if league.status == "finished" or league.format == "round_robin":
        total = league.round  # a round robin starts its whole schedule at once
    else:
        total = max(league.rounds, league.round)
    over = sum(1 for number in range(1, league.round + 1) if played.round_over(number))
    return over, total


def league_view(
    session: Session, site: Site, league: League, viewer_id: int | None
) -> dict[str, Any]:
    """Everything the league's page (and its API answer) shows, and what the viewer may do."""
    played = Played(session, league.id or 0)
    everyone = members(session, league.id or 0)
    names = names_of(session, [m.player_id for m in everyone])
    mine = next((m for m in everyone if m.player_id == viewer_id), None)
    joined = [m for m in everyone if m.status == "joined"]
    forming = league.status == "forming"
    organiser = viewer_id is not None and viewer_id == league.organiser_id
    rounds_played, rounds_total = rounds_of(league, played)
    return {
        "id": league.id,
        "name": league.name,
        "slug": league.slug,
        "format": league.format,
        "status": league.status,
        "round": league.round,
        "rounds": league.rounds,
        "rounds_played": rounds_played,
        "rounds_total": rounds_total,
        # The time control each of its games gets (as a game's).
        "days_per_move": league.days_per_move,
        "clock": league.clock,
        "clock_add": league.clock_add,
        "clock_cap": league.clock_cap,
        "table_size": league.table_size,
        "most_players": league.most_players,
        "is_open": league.is_open,
        "rated": league.rated,
        "organiser": names.get(league.organiser_id, ""),
        "joined": [names[m.player_id] for m in joined],
        "invited": [names[m.player_id] for m in everyone if m.status == "invited"],
        "standings": standing_lines(session, league, played),
        "games": games_of(site, played, names),
        "mine": mine.status if mine else None,
        "organiser_viewing": organiser,
        "may_join": forming
        and viewer_id is not None
        and (mine.status == "invited" if mine else league.is_open)
        and len(joined) < league.most_players,
        "may_leave": mine is not None
        and mine.status == "joined"
        and not (forming and organiser)
        and league.status != "finished",
        "may_start": organiser and forming and len(joined) >= least_at_table(league),
        "may_drop": [
            {"player_id": m.player_id, "name": names[m.player_id]}
            for m in joined
            if organiser and league.status == "running" and m.player_id != viewer_id
        ],
    }


def league_by_key(session: Session, key: str) -> League | None:
    """The league whose page's link holds `key` (a key is 16 characters: a long one is none)."""
    if len(key) > KEY_MAX:
        return None
    return session.exec(select(League).where(League.join_key == key)).first()


def league_json(view: dict[str, Any]) -> dict[str, Any]:
    """The API's answer for a league (pbem.web.apimodels.League) from its page's view."""
    keys = (
        "name", "slug", "format", "status", "round", "rounds", "rounds_played", "rounds_total",
        "days_per_move", "clock", "clock_add", "clock_cap", "table_size", "organiser",
    )  # fmt: skip
    line_keys = ("place", "name", "points", "played", "playing", "won", "byes", "tiebreak")
    return {
        **{key: view[key] for key in keys},
        "joined": view["joined"],
        "standings": [
            {**{key: line[key] for key in line_keys}, "dropped": line["dropped"]}
            for line in view["standings"]
        ],
        "games": [
            {
                "id": game["id"],
                "round": game["round"],
                "status": game["status"],
                "watch_link": game["watch_link"],
                "players": [
                    {key: p[key] for key in ("name", "left", "to_act", "rank")}
                    for p in game["players"]
                ],
            }
            for game in view["games"]
        ],
    }


def open_leagues(session: Session, most: int = 50) -> list[League]:
    """Open leagues still taking players, newest first."""
    query = (
        select(League)
        .where(League.status == "forming", col(League.is_open).is_(True))
        .order_by(col(League.id).desc())
        .limit(most)
    )
    return list(session.exec(query))


def leagues_of(session: Session, player_id: int, most: int = 20) -> list[tuple[League, str]]:
    """The player's leagues (and their membership), newest first."""
    query = (
        select(League, LeagueMember.status)
        .join(LeagueMember, col(LeagueMember.league_id) == col(League.id))
        .where(LeagueMember.player_id == player_id, LeagueMember.status != "declined")
        .order_by(col(League.id).desc())
        .limit(most)
    )
    return [(league, status) for league, status in session.exec(query)]
