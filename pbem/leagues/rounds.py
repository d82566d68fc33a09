"""A running league: its games made and started round by round, the next Swiss round once
a round is over, the end, and dropouts (whose games the takeover computer plays on).

A round robin starts every game of its schedule at once: each player plays several games
at the same time. A Swiss league starts one round at a time, each player in one game."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import datetime, timedelta

from sqlmodel import Session

from pbem.errors import Gone, PlayError
from pbem.leagues import pairing
from pbem.leagues.mails import queue_final, queue_round
from pbem.leagues.rows import Played, least_at_table, lock_league, member_of, members
from pbem.leagues.standings import standings
from pbem.models import Game, League, LeagueGame, Player
from pbem.play import Invitee, create_game, join
from pbem.players.blocks import apart
from pbem.present.forms import TimeControl
from pbem.seats.leave import leave
from pbem.site import Site
from pbem.storage.store import id_of
from pbem.storage.versions import league_changed

DIGEST_EVERY = timedelta(days=7)


def timing_of(league: League) -> TimeControl:
    """The time control each of the league's games gets."""
    return TimeControl(
        days_per_move=league.days_per_move,
        clock=league.clock,
        clock_add=league.clock_add,
        clock_cap=league.clock_cap,
        takeover=league.takeover,
    )


def start_games(session: Session, site: Site, league: League, now: datetime) -> None:
    """Make and start the league's next games (a round robin: all of them; Swiss: the next
    round), then mail each player once, listing their new games."""
    league_id = league.id or 0
    joined = members(session, league_id, "joined")
    players = [m.player_id for m in joined]
    shares = {m.player_id: m.share for m in joined}
    blocked = apart(session, players)
    least = least_at_table(league)
    played = Played(session, league_id)
    rounds: list[tuple[int, list[pairing.Table]]] = []
    if league.format == "round_robin":
        schedule = pairing.round_robin(players, league.table_size, league.rounds, blocked, least)
        rounds = list(enumerate(schedule, start=1))
        league.round = len(schedule)
    else:
        league.round += 1
        rounds = [(league.round, _swiss_round(session, league, players, blocked, played))]
    session.add(league)
    new: dict[int, list[int]] = defaultdict(list)  # player -> the new games' ids
    for number, tables in rounds:
        for table in tables:
            game = _make_game(session, site, league, number, table, shares, now)
            for player in table:
                new[player].append(id_of(game))
    for player_id in players:
        queue_round(session, site, league, player_id, new[player_id], now)
    league_changed(session, league_id)  # a round made: its open pages show the new games


def _swiss_round(
    session: Session, league: League, players: list[int], blocked: set[pairing.Pair],
    played: Played,
) -> list[pairing.Table]:  # fmt: skip
    """The next Swiss round's tables, players ranked by the standings so far."""
    ranking = [s.player_id for s in standings(players, played.results(), played.bye_players())]
    byes = Counter(played.bye_players())
    if league.table_size > 2:
        met: Counter[pairing.Pair] = Counter()
        for result in played.results():
            met.update(pairing.pairs_of(result.players))
        return pairing.swiss_tables(
            ranking, league.table_size, least_at_table(league), met, blocked, byes
        )
    met_once = {frozenset(r.players) for r in played.results()}
    tables, bye = pairing.swiss_pairs(ranking, met_once, blocked, byes)
    if bye is not None:
        session.add(LeagueGame(league_id=league.id or 0, round=league.round, bye_player_id=bye))
    return tables


def _make_game(
    session: Session, site: Site, league: League, number: int, table: pairing.Table,
    shares: dict[int, str], now: datetime,
) -> Game:  # fmt: skip
    """One league game, made through the lobby's path; every member joins it at once (they
    agreed by joining the league), giving the share they gave the league, so it starts now."""
    invitees = []
    for player_id in table:
        player = session.get(Player, player_id)
        if player is None:
            raise Gone("league.error.none")
        invitees.append(Invitee(player.name, player.email, player.lang))
    game = create_game(
        session, site, league.slug, invitees, league.options, now,
        timing=timing_of(league), invite=False, rated=league.rated, share=shares[table[0]],
    )  # fmt: skip
    session.add(LeagueGame(league_id=league.id or 0, round=number, game_id=id_of(game)))
    for seat_no, player_id in enumerate(table[1:], start=1):
        join(session, site, id_of(game), seat_no, now, share=shares[player_id], started_mail=False)
    return game


def advance(session: Session, site: Site, league: League, now: datetime) -> str | None:
    """With the league (locked by the caller) running and its round over: start the next
    Swiss round ("round"), or end the league ("over"); None when its games go on."""
    if league.status != "running":
        return None
    played = Played(session, league.id or 0)
    if not played.round_over(league.round if league.format == "swiss" else 0):
        return None
    joined = members(session, league.id or 0, "joined")
    more = league.format == "swiss" and league.round < league.rounds
    if more and len(joined) >= least_at_table(league):
        start_games(session, site, league, now)
        return "round"
    finish(session, site, league, played, now)
    return "over"


def keep_points(session: Session, league: League, played: Played) -> None:
    """Write each member's points as the standings give them."""
    everyone = members(session, league.id or 0)
    table = {
        s.player_id: s
        for s in standings([m.player_id for m in everyone], played.results(), played.bye_players())
    }
    for member in everyone:
        member.points = table[member.player_id].points
        session.add(member)


def finish(session: Session, site: Site, league: League, played: Played, now: datetime) -> None:
    """The league is over: the final standings kept and mailed to everyone who played."""
    league.status = "finished"
    league.finished_at = now
    league.next_digest_at = None
    session.add(league)
    keep_points(session, league, played)
    for member in members(session, league.id or 0, "joined", "dropped"):
        queue_final(session, site, league, member.player_id, now)
    league_changed(session, league.id or 0)


def drop_out(
    session: Session, site: Site, league_id: int, player_id: int, by: int, now: datetime
) -> None:
    """The player leaves the league (`by` themselves, or by its organiser): the takeover
    computer plays their games not over yet; their finished games stand; no new games."""
    league = lock_league(session, league_id)
    if by not in (player_id, league.organiser_id):
        raise PlayError("league.error.not_organiser")
    member = member_of(session, league_id, player_id)
    if member is None or member.status != "joined":
        return
    if league.status == "forming":
        if player_id == league.organiser_id:
            raise PlayError("league.error.organiser_stays")
        member.status = "declined"
        session.add(member)
        league_changed(session, league_id)
        return
    member.status = "dropped"
    session.add(member)
    league_changed(session, league_id)
    if league.status != "running":
        return
    for _, game, seats in Played(session, league_id).games:
        if game.status != "active":
            continue
        for seat in seats:
            if seat.player_id == player_id and not seat.left:
                leave(session, site, id_of(game), seat.seat, now)
