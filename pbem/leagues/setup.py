"""Making a league and filling it: the organiser's form, invitations by address, joining
(an open league: anyone signed in; otherwise the invited), declining, and the start.

Every function takes the session it works in and `now`; the caller owns the transaction."""

from __future__ import annotations

from datetime import datetime
from email.utils import parseaddr
from typing import Any

from pydantic import Field, field_validator
from sqlmodel import Session

from pbem.errors import Gone, PlayError
from pbem.games import GAMES, GameError
from pbem.leagues import rounds
from pbem.leagues.mails import queue_invitation
from pbem.leagues.rows import least_at_table, lock_league, member_of, members
from pbem.models import League, LeagueMember, Player
from pbem.play import Invitee, player_for, read_share
from pbem.players.invitations import count_invitations
from pbem.players.reports import refuse_barred
from pbem.present.forms import EMAIL, Form, TimeControl, clean_name
from pbem.site import Site, new_key
from pbem.storage.versions import league_changed

MOST_PLAYERS = 32  # the largest league: its round robin makes 496 games
MOST_INVITES = 32  # addresses read from one form
MOST_ROUNDS = 31
NAME_MAX = 80


class LeagueForm(Form):
    """The organiser's new-league form."""

    name: str
    game: str
    format: str = "round_robin"
    table_size: int = Field(default=2, ge=2, le=8)
    most_players: int = Field(default=8, ge=2, le=MOST_PLAYERS)
    rounds: int = Field(default=0, ge=0, le=MOST_ROUNDS)
    is_open: bool = False
    rated: bool = False
    invites: list[str] = Field(default_factory=list, max_length=MOST_INVITES)
    names: dict[str, str] = Field(default_factory=dict)  # the name given with an address
    # The organiser's share of each game's deal, made by their browser (static/deal.js).
    share: str = ""
    refusals = {
        "name": ("league.error.name", {}),
        "game": ("lobby.error.no_such_game", {}),
        "format": ("league.error.format", {}),
        "table_size": ("league.error.table_size", {}),
        "most_players": ("league.error.most_players", {"most": MOST_PLAYERS}),
        "rounds": ("league.error.rounds", {"most": MOST_ROUNDS}),
        "invites": ("league.error.invites", {"most": MOST_INVITES}),
        "is_open": ("league.error.format", {}),
        "rated": ("league.error.format", {}),
    }

    @classmethod
    def posted(cls, data: dict[str, Any]) -> dict[str, Any]:
        """Ticked boxes as booleans, the invitations' lines as addresses and names."""
        for box in ("is_open", "rated"):
            data[box] = data.get(box) in ("on", "1", "true", True)
        text = data.get("invites", "")
        if isinstance(text, str):
            # One address a line (or separated by commas), "Bea <bea@example.org>" or the
            # address alone; capped before it is split up.
            parts = text[: MOST_INVITES * 260].replace(",", "\n").split("\n")
            lines = [p.strip() for p in parts if p.strip()]
            found = [parseaddr(line) for line in lines]
            data["invites"] = [
                (address or line).strip().lower()
                for line, (_, address) in zip(lines, found, strict=True)
            ]
            data["names"] = {
                address.strip().lower(): clean_name(name)[:60]
                for name, address in found
                if address and clean_name(name)
            }
        for number in ("table_size", "most_players", "rounds"):
            if data.get(number) in ("", None):
                data.pop(number, None)
        return data

    @field_validator("name", mode="before")
    @classmethod
    def _name(cls, value: Any) -> str:
        name = clean_name(str(value))[:NAME_MAX]
        if not name:
            raise ValueError("no name")
        return name

    @field_validator("game")
    @classmethod
    def _game(cls, value: str) -> str:
        if value not in GAMES:
            raise ValueError("no such game")
        return value

    @field_validator("format")
    @classmethod
    def _format(cls, value: str) -> str:
        if value not in ("round_robin", "swiss"):
            raise ValueError("no such format")
        return value

    @field_validator("share", mode="before")
    @classmethod
    def _share(cls, value: Any) -> str:
        return read_share(str(value))

    @field_validator("invites")
    @classmethod
    def _addresses(cls, value: list[str]) -> list[str]:
        for address in value:
            if len(address) > 254 or not EMAIL.match(address):
                raise PlayError("league.error.address", address=address[:80])
        return list(dict.fromkeys(value))


def create(
    session: Session, site: Site, organiser: Player, form: LeagueForm, timing: TimeControl,
    now: datetime,
) -> League:  # fmt: skip
    """A new league, its organiser its first member; each address invited by mail."""
    refuse_barred(session, organiser.id or 0)
    rules = GAMES[form.game]
    if not rules.min_players <= form.table_size <= rules.max_players:
        raise PlayError("league.error.table_size", low=rules.min_players, high=rules.max_players)
    if form.most_players < form.table_size:
        raise PlayError("league.error.too_few", count=form.table_size)
    try:
        options = rules.check_options(form.table_size, {})
    except GameError as exc:
        raise PlayError(exc.msg.key, **exc.msg.params) from None
    several = form.format == "swiss" or form.table_size > 2
    league = League(
        name=form.name,
        organiser_id=organiser.id or 0,
        slug=form.game,
        options=options,
        days_per_move=timing.days_per_move,
        clock=timing.clock,
        clock_add=timing.clock_add,
        clock_cap=timing.clock_cap,
        takeover=timing.takeover,
        format=form.format,
        # Swiss, and tables of several, play a set number of rounds (0: one less than the
        # players at the start, enough for each to meet about everyone once).
        rounds=form.rounds if several else 0,
        table_size=form.table_size,
        rated=form.rated,
        is_open=form.is_open,
        join_key=new_key(),
        most_players=form.most_players,
        created_at=now,
    )
    session.add(league)
    session.flush()
    session.add(_member(league, organiser, "joined", now, form.share))
    addresses = [a for a in form.invites if a != organiser.email]
    if len(addresses) + 1 > form.most_players:
        raise PlayError("league.error.too_many", most=form.most_players)
    invited = []
    for address in addresses:
        # A new address gets the name given with it, or is named after its part before the @.
        name = form.names.get(address) or clean_name(address.split("@")[0]) or address[:60]
        invited.append(player_for(session, Invitee(name[:60], address, organiser.lang), now))
    count_invitations(session, organiser, invited, now)  # issue 48: no mail cannon
    for player in invited:
        session.add(_member(league, player, "invited", now))
        queue_invitation(session, site, league, organiser, player, now)
    session.flush()
    return league


def _member(
    league: League, player: Player, status: str, now: datetime, share: str = ""
) -> LeagueMember:
    joined = now if status == "joined" else None
    return LeagueMember(
        league_id=league.id or 0,
        player_id=player.id or 0,
        status=status,
        joined_at=joined,
        share=share,
    )


def join(
    session: Session, site: Site, league_id: int, player_id: int, now: datetime, share: str = ""
) -> League:
    """The player joins, giving `share` to the deal of each game the league seats them at:
    an open league takes anyone, another only those invited; it starts once full. Joining
    twice does nothing more (the first share stays)."""
    share = read_share(share)
    league = lock_league(session, league_id)
    member = member_of(session, league_id, player_id)
    if member is not None and member.status == "joined":
        return league
    refuse_barred(session, player_id)
    if league.status != "forming":
        raise Gone("league.error.not_forming")
    if member is None or member.status != "invited":
        if not league.is_open:
            raise PlayError("league.error.not_invited")
        player = session.get(Player, player_id)
        if player is None:
            raise Gone("league.error.none")
        if member is None:
            member = _member(league, player, "joined", now)
    if len(members(session, league_id, "joined")) >= league.most_players:
        raise Gone("league.error.full")
    member.status, member.joined_at, member.share = "joined", now, share
    session.add(member)
    league_changed(session, league_id)  # its open pages show the new member
    if len(members(session, league_id, "joined")) >= league.most_players:
        start(session, site, league, now)
    return league


def decline(session: Session, league_id: int, player_id: int) -> None:
    """An invited player says no (or a member leaves a league not started yet)."""
    league = lock_league(session, league_id)
    member = member_of(session, league_id, player_id)
    if member is None or league.status != "forming" or member.status == "declined":
        return
    if player_id == league.organiser_id:
        raise PlayError("league.error.organiser_stays")
    member.status = "declined"
    session.add(member)
    league_changed(session, league_id)


def start_by(session: Session, site: Site, league_id: int, player_id: int, now: datetime) -> League:
    """The organiser starts the league with those who have joined."""
    league = lock_league(session, league_id)
    if player_id != league.organiser_id:
        raise PlayError("league.error.not_organiser")
    if league.status != "forming":
        raise Gone("league.error.not_forming")
    start(session, site, league, now)
    return league


def start(session: Session, site: Site, league: League, now: datetime) -> None:
    """Start the league (locked by the caller): those invited who did not answer are left
    out, and the first round's games (a round robin: all its games) begin."""
    needed = least_at_table(league)
    if len(members(session, league.id or 0, "joined")) < needed:
        raise PlayError("league.error.too_few", count=needed)
    for member in members(session, league.id or 0, "invited"):
        member.status = "declined"
        session.add(member)
    if league.rounds == 0 and (league.format == "swiss" or league.table_size > 2):
        league.rounds = max(1, len(members(session, league.id or 0, "joined")) - 1)
    league.status = "running"
    league.started_at = now
    league.next_digest_at = now + rounds.DIGEST_EVERY
    session.add(league)
    session.flush()
    rounds.start_games(session, site, league, now)
