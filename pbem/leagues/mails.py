"""A league's mails, queued through the outbox: the invitation, "round started" (one a player
a round, listing their new games), the weekly digest and the final standings."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session

from pbem.games import GAMES
from pbem.leagues.rows import Played, members
from pbem.leagues.table import invitation_url, league_url, names_of, standing_lines
from pbem.mailout.notify import queue_player_mail
from pbem.models import League, Player
from pbem.site import Site


def _about(site: Site, league: League) -> dict[str, Any]:
    """What every league mail says of the league."""
    return {
        "league": league.name,
        "league_link": league_url(site, league),
        "game": league.slug,
        "format": league.format,
    }


def queue_invitation(
    session: Session, site: Site, league: League, organiser: Player, player: Player,
    now: datetime,
) -> None:  # fmt: skip
    """Invite `player` to the league by mail, with a signed link to join or decline."""
    extra = {
        **_about(site, league),
        "organiser": organiser.name,
        "join_link": invitation_url(site, league, player.id or 0),
    }
    queue_player_mail(session, site, player, "league_invitation", now, extra)


def _games_listed(
    session: Session, site: Site, played: Played, player_id: int, ids: set[int]
) -> list[dict[str, Any]]:
    """The player's games among `ids`: number, seat link, the others' names."""
    listed = []
    everyone = {s.player_id for _, _, seats in played.games for s in seats}
    names = names_of(session, sorted(everyone))
    for number, game, seats in played.games:
        if game.id not in ids:
            continue
        mine = next((s for s in seats if s.player_id == player_id), None)
        if mine is None:
            continue
        others = [names.get(s.player_id, s.name) for s in seats if s is not mine]
        listed.append(
            {"id": game.id, "round": number, "link": site.seat_url(mine), "others": others}
        )
    return listed


def queue_round(
    session: Session, site: Site, league: League, player_id: int, game_ids: list[int],
    now: datetime,
) -> None:  # fmt: skip
    """The one "round started" mail to a player, listing their new games (or their bye)."""
    player = session.get(Player, player_id)
    if player is None:
        return
    session.flush()
    played = Played(session, league.id or 0)
    games = _games_listed(session, site, played, player_id, set(game_ids))
    extra = {**_about(site, league), "round": league.round, "new_games": games}
    queue_player_mail(session, site, player, "league_round", now, extra)


def queue_digest(session: Session, site: Site, league: League, now: datetime) -> int:
    """The weekly digest to each member still playing: the standings and their games waiting
    for their move; how many were queued."""
    played = Played(session, league.id or 0)
    lines = standing_lines(session, league, played)
    waiting_ids = set()
    for _, game, seats in played.games:
        if game.status == "active" and game.state is not None:
            acting = set(GAMES[game.slug].to_act(game.state))
            waiting_ids |= {(game.id, s.player_id) for s in seats if s.seat in acting}
    sent = 0
    for member in members(session, league.id or 0, "joined"):
        player = session.get(Player, member.player_id)
        if player is None or player.notify == "none":
            continue  # who asked for no mail gets no weekly one (the league page stays)
        ids = {g for g, p in waiting_ids if p == member.player_id and g is not None}
        games = _games_listed(session, site, played, member.player_id, ids)
        extra = {
            **_about(site, league),
            "round": league.round,
            "standings": lines,
            "waiting": games,
        }
        sent += queue_player_mail(session, site, player, "league_digest", now, extra) is not None
    return sent


def queue_final(
    session: Session, site: Site, league: League, player_id: int, now: datetime
) -> None:
    """The final standings, to one who played in the league."""
    player = session.get(Player, player_id)
    if player is None:
        return
    lines = standing_lines(session, league, Played(session, league.id or 0))
    place = next((line["place"] for line in lines if line["player_id"] == player_id), 0)
    extra = {**_about(site, league), "standings": lines, "place": place}
    queue_player_mail(session, site, player, "league_over", now, extra)
