"""What a mail template is given: who, which game, the link, the deadline, what happened."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session

from pbem.games import GAMES, fairdeal
from pbem.mailout.mailrows import Address
from pbem.models import Game, Player, Seat
from pbem.present import presenter
from pbem.present.common import game_title, log_lines, result_names
from pbem.present.mailstate import BOUNCING, COMPLAINED, told_seat
from pbem.present.options import banks_text, option_lines, time_control
from pbem.present.text import join_names, say
from pbem.present.timefmt import deadline_context, format_day, format_when
from pbem.site import Site
from pbem.storage.rounds import viewed_state
from pbem.storage.store import log_of


def player_context(site: Site, player: Player, now: datetime) -> dict[str, Any]:
    """What every mail to a player is given."""
    return {
        "lang": player.lang,
        "name": player.name,
        "notify": player.notify,
        "unsubscribe_link": "",
        "when": lambda moment: format_when(moment, player.tz, player.lang),
        "day": lambda moment: format_day(moment, player.tz, player.lang),
    }


# Turn mails say which other seats pbem can no longer mail (issue 46): they may not know
# it is their turn, and the reader may reach them another way.
TROUBLE_EVENTS = {"your_turn", "reminder", "deadline_warning", "timeout"}


def mail_trouble(
    game: Game, seats: list[Seat], seat: Seat, addresses: list[Address | None]
) -> list[dict[str, Any]]:
    """The other seats of a game being played that pbem can no longer mail (their address
    bounces or complained, `addresses` by seat: pbem.mailout.mailrows): their names, states
    and since when (the template says the day in the reader's zone)."""
    if game.status != "active":
        return []
    return [
        {"name": seats[n].name, "state": found.state, "since": found.since}
        for n, found in enumerate(addresses)
        if found is not None
        and found.state in (BOUNCING, COMPLAINED)
        and n != seat.seat
        and n < len(seats)
        and told_seat(seats[n])
    ]


def mail_context(
    session: Session,
    site: Site,
    game: Game,
    seat: Seat,
    seats: list[Seat],
    player: Player,
    event: str,
    ply: int,
    facts: dict[str, Any],
    now: datetime,
    settings_link: str,
    addresses: list[Address | None],
) -> dict[str, Any]:
    """The template variables for one mail to one seat, as the game stood at `ply`.

    `facts` are what notify.queue recorded of that moment (deadline, who was to act,
    who was absent, from which ply the moves are news); `now` is when it was queued.
    `settings_link` is the mail's settings link (signin.mailed_url); `addresses`, the
    state of each seat's address (pbem.mailout.mailrows).
    """
    lang = player.lang
    names = [s.name for s in seats]
    context = player_context(site, player, now)
    context.update(
        {
            "event": event,
            "slug": game.slug,
            "name": seat.name,
            "game_id": game.id,
            "move_number": ply + 1,
            "title": game_title(game, lang),
            "game_name": game_title(game, lang).rsplit(" #", 1)[0],
            "others": [s.name for s in seats if s.seat != seat.seat],
            "creator": names[game.creator_seat],
            "link": site.seat_url(seat),
            # The settings link signs the player in on that device, then opens the settings.
            "settings_link": settings_link,
            "watch_link": site.watch_url(game),
            "rules_link": site.rules_url(game.slug),
            "about": say(lang, f"lobby.about.{game.slug}"),
            "players_text": join_names(names, lang),
            "option_lines": option_lines(game.slug, game.options, names, lang),
            "time_control": time_control(game, lang),
            # Clocks are public: each seat's banked time, in every mail with a deadline.
            "banks_text": banks_text(game, seats, lang) if game.status == "active" else "",
            "bank_kind": game.clock,
            "since": [],
            "to_act": [],
            "results": None,
            "absent": [names[n] for n in facts["absent"]],
            **deadline_context(facts["deadline"], player, now),
        }
    )
    context.update(deal_sealed="", deal_committed="")
    if game.deal_secret is not None and game.deal_salt is not None:
        # A checkable deal: sealed in the invitations, its seed committed in the first mail.
        if not facts["started"]:
            context["deal_sealed"] = fairdeal.sealed(game.deal_secret, game.deal_salt)
        elif ply == 0:
            context["deal_committed"] = fairdeal.committed(game.seed, game.deal_salt)
    if facts["started"]:
        context["to_act"] = [names[s] for s in facts["to_act"]]
        recent = [
            m
            for m in log_of(session, game, seat.seat, since=facts["since"], until=ply)
            if m.seat != seat.seat or m.source != "web"
        ]
        # A game may say some lines as a part of their own (Fantasy Business: the round's end).
        news = getattr(presenter(game.slug), "mail_news", None)
        context["since"] = [
            " ".join(news(entry, lang) if news else entry["text"])
            + (
                f" ({say(lang, 'play.source.' + entry['source'])})"
                if entry["source"] != "web"
                else ""
            )
            for entry in log_lines(recent, seat.seat, lang, names)
        ]
        context.update(
            _game_blocks(session, game, facts.get("view"), seat.seat, recent, names, lang)
        )
    if facts["over"] and game.outcome is not None:
        context["results"] = presenter(game.slug).results(
            game.outcome, result_names(seats, lang), lang
        )
        context["winners_text"] = join_names(context["results"]["winners"], lang)
        context["i_won"] = seat.seat in _winning_seats(game.outcome)
    if event in TROUBLE_EVENTS:
        context["mail_trouble"] = mail_trouble(game, seats, seat, addresses)
    context["guests"] = [n for n in context["others"] if n != context["creator"]]
    context["guests_text"] = join_names(context["guests"], lang)
    context["others_text"] = join_names(context["others"], lang)
    context["to_act_text"] = join_names(context["to_act"], lang)
    return context


def _game_blocks(
    session: Session,
    game: Game,
    view: dict[str, Any] | None,
    seat: int,
    recent: list[Any],
    names: list[str],
    lang: str,
) -> dict[str, Any]:
    """A game's own parts of a mail, if its presenter has them: what the step asks of the
    seat with the row (`prompt`), the table as it sees it (`turn_table`), and the rounds
    finished since the seat's last mail.

    `view` is the seat's view at the row's ply, recorded by notify.queue (the game may
    have moved on since)."""
    shown = presenter(game.slug)
    blocks: dict[str, Any] = {"prompt": None, "rounds": [], "turn_table": None}
    if view is None or game.state is None:
        return blocks
    ended = 0
    if hasattr(shown, "round_reports"):
        ended = sum(
            1
            for m in recent
            if any(x["key"] == shown.ROUND_END for x in m.lines.get(str(seat), []))
        )
    if hasattr(shown, "mail_view_then"):
        # Only the rounds the mail shows: viewing the whole game made a mail's cost grow
        # with the game's length.
        rounds = None
        if hasattr(shown, "mail_rounds_then"):
            rounds = shown.mail_rounds_then(view, game.state, ended)
        # The rounds the stored state released since are read back (pbem.storage.rounds).
        now = GAMES[game.slug].view(viewed_state(session, game, rounds), seat, rounds=rounds)
        view = shown.mail_view_then(view, now)
    if hasattr(shown, "turn_prompt"):
        blocks["prompt"] = shown.turn_prompt(view, seat, names, lang)
    if hasattr(shown, "turn_table"):
        blocks["turn_table"] = shown.turn_table(view, seat, names, lang)
    if hasattr(shown, "round_reports"):
        blocks["rounds"] = shown.round_reports(view, names, lang, ended)
    return blocks


def _winning_seats(outcome: dict[str, Any]) -> set[int]:
    """The seats ranked first in a stored outcome."""
    return {seat for seat, rank in enumerate(outcome.get("ranks", [])) if rank == 1}


def digest_entry(
    site: Site,
    game: Game,
    seats: list[Seat],
    seat: Seat,
    deadline: datetime | None,
    player: Player,
    now: datetime,
) -> dict[str, Any]:
    """One line of a digest: the game, its players, the link and the deadline."""
    others = [s.name for s in seats if s.seat != seat.seat]
    return {
        "title": game_title(game, player.lang),
        "others_text": join_names(others, player.lang),
        "link": site.seat_url(seat),
        **deadline_context(deadline, player, now),
    }
