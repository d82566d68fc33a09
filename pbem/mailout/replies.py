"""What a turn mail says about answering by mail: the Reply-To address and an example move."""

from __future__ import annotations

from typing import Any

from pbem.games import GAMES, ahead
from pbem.models import Game, Seat
from pbem.players.reply_address import make_address
from pbem.present import text_presenter
from pbem.site import Site

# The mails that ask a seat for its move, and so carry a Reply-To that plays it.
# The take-back question goes to the seat whose turn it is: a reply allows or refuses.
TURN_MAILS = frozenset(
    {"your_turn", "reminder", "deadline_warning", "move_refused", "takeback_asked"}
)
MAX_LISTED = 60  # legal moves listed in an answer to a refused reply


def offers_reply(site: Site, event: str) -> bool:
    """Whether a mail for `event` may carry a reply address (pbem inbound is set up)."""
    return bool(getattr(site, "reply_domain", "")) and event in TURN_MAILS


def reply_context(
    site: Site,
    game: Game,
    seat: Seat,
    event: str,
    lang: str,
    names: list[str],
    state: dict[str, Any] | None = None,
    active: bool | None = None,
) -> dict[str, str]:
    """The reply address and an example from the seat's own hand; empty when not offered
    (a computer seat gets no mail, so no address to answer either).

    `state` and `active` are the game as it stood when the mail was queued (the sender
    renders later); by default, the game as it stands."""
    state = game.state if state is None else state
    active = game.status == "active" if active is None else active
    empty = {"reply_address": "", "reply_example": "", "reply_plan": "", "reply_standing": ""}
    if not offers_reply(site, event) or state is None or not active:
        return empty
    if seat.computer:
        return empty
    rules = GAMES[game.slug]
    if not rules.may_act(state, seat.seat):
        return empty
    address = make_address(
        site.secret,
        site.reply_domain,
        game.id or 0,
        seat.seat,
        rules.turn_token(state, seat.seat),
        seat.link_key,
    )
    example = text_presenter(game.slug).example(state, seat.seat, lang, names)
    # Two players: the reply may leave a plan ahead too (pbem.plans.plan_text).
    plan = "1" if game.slug == ahead.SLUG and state["n"] == 2 else ""
    # Fantasy Business: the reply may set standing orders too (pbem.plans.orders_text).
    standing = "1" if game.slug == "fantasy-business" else ""
    return {
        "reply_address": address,
        "reply_example": example,
        "reply_plan": plan,
        "reply_standing": standing,
    }


def refusal_moves(
    game: Game, state: dict[str, Any] | None, active: bool, seat: int, lang: str, names: list[str]
) -> dict[str, Any]:
    """What an answer to a refused reply lists: the seat's legal moves as text, when it may act."""
    moves: list[str] = []
    if active and state is not None and GAMES[game.slug].may_act(state, seat):
        texts = text_presenter(game.slug).legal_texts(state, seat, lang, names)
        moves = list(dict.fromkeys(entry["text"] for entry in texts))
    return {"moves": moves[:MAX_LISTED], "more_moves": max(len(moves) - MAX_LISTED, 0)}


def page_moves(
    site: Site, game: Game, seat: Seat | None, lang: str, names: list[str]
) -> dict[str, Any] | None:
    """For the seat's page: each legal move's text form, and the address replies go to.

    None when replies to turn mails are not set up (no reply domain): the page would
    invite a reply that nothing reads."""
    if seat is None or game.state is None or game.status != "active":
        return None
    if not offers_reply(site, "your_turn"):
        return None
    rules = GAMES[game.slug]
    if not rules.may_act(game.state, seat.seat):
        return None
    texts = text_presenter(game.slug).legal_texts(game.state, seat.seat, lang, names)
    if not texts:
        return None
    address = reply_context(site, game, seat, "your_turn", lang, names)["reply_address"]
    return {
        "address": address,
        "moves": list(dict.fromkeys(entry["text"] for entry in texts)),
        "sample": game.slug == "fantasy-business",
    }
