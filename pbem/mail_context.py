"""What a mail template is given: who, which game, the link, and what happened since."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from pbem.games import GAMES
from pbem.i18n import t
from pbem.models import Game, Seat
from pbem.present import presenter


def mail_context(
    session: Session,
    site: Any,
    game: Game,
    seat: Seat,
    seats: list[Seat],
    lang: str,
    event: str,
) -> dict[str, Any]:
    """The template variables for one mail to one seat."""
    from pbem.play import game_title, log_lines, moves_of

    names = [s.name for s in seats]
    rules = GAMES[game.slug]
    context: dict[str, Any] = {
        "event": event,
        "slug": game.slug,
        "lang": lang,
        "name": seat.name,
        "game_id": game.id,
        "move_number": game.ply + 1,
        "title": game_title(game, lang),
        "game_name": game_title(game, lang).rsplit(" #", 1)[0],
        "others": [s.name for s in seats if s.seat != seat.seat],
        "creator": names[game.creator_seat],
        "link": site.seat_url(seat),
        "watch_link": site.watch_url(game),
        "since": [],
        "to_act": [],
        "results": None,
    }
    if game.state is not None:
        context["to_act"] = [names[s] for s in rules.to_act(game.state)]
        recent = [m for m in moves_of(session, game, since=seat.told_ply) if m.seat != seat.seat]
        context["since"] = [
            line for entry in log_lines(recent, seat.seat, lang, names) for line in entry["text"]
        ]
    if game.outcome is not None:
        context["results"] = presenter(game.slug).results(game.outcome, names, lang)
        context["winners_text"] = join_names(context["results"]["winners"], lang)
    context["guests"] = [n for n in context["others"] if n != context["creator"]]
    context["guests_text"] = join_names(context["guests"], lang)
    context["others_text"] = join_names(context["others"], lang)
    context["to_act_text"] = join_names(context["to_act"], lang)
    return context


def join_names(names: list[str], lang: str) -> str:
    """Names joined as a sentence says them: "Ana, Léo and Zoé"."""
    if len(names) < 2:
        return "".join(names)
    return ", ".join(names[:-1]) + t(lang, "list.and") + names[-1]
