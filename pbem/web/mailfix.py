"""Mail that no longer goes out, on the pages (issue 46): the notices a table's pages show,
the prompt a bouncing player gets, and its two actions, a test mail and a new address
(confirmed by a link mailed to it: opening it shows a button, pressing it changes the
address). From a seat link (/p/<token>/mail) or signed in (/me/mail)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from flask import Blueprint, g, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from pbem.bounces.state import states
from pbem.errors import PlayError
from pbem.mailfix import fix
from pbem.models import Player, Seat
from pbem.present.mailstate import own_prompt, table_notes
from pbem.site import ADDRESS_TTL, BadLink
from pbem.storage.db import read_session
from pbem.storage.store import player_of, seat_of
from pbem.web import bad_link, engine, now, site
from pbem.web.seats import seat_from
from pbem.web.signin import signed_in_player

bp = Blueprint("mailfix", __name__)


def seat_urls(token: str) -> dict[str, str]:
    """Where a seat's pages send the prompt's two forms, and its page of its own."""
    return {
        "test": url_for("mailfix.seat_test", token=token),
        "address": url_for("mailfix.seat_address", token=token),
        "page": url_for("mailfix.seat_page", token=token),
    }


def my_urls() -> dict[str, str]:
    """The same for a signed-in player's pages (/me)."""
    return {
        "test": url_for("mailfix.my_test"),
        "address": url_for("mailfix.my_address"),
        "page": url_for("mailfix.my_page"),
    }


def table_context(
    session: Any,
    table: Sequence[tuple[Seat, Player, Any]],
    seat_no: int | None,
    status: str,
    tz: str,
    lang: str,
    token: str,
) -> dict[str, Any]:
    """What a game's page shows of its players' mail: the other seats that pbem can no
    longer mail, and, on a seat's own page, the prompt if its own mail no longer goes out."""
    rows = states(session, [player.email for _, player, _ in table])
    context: dict[str, Any] = {
        "mail_notes": table_notes(table, rows, seat_no, status, tz, lang),
        "mail_prompt": {},
    }
    if seat_no is not None:
        player = table[seat_no][1]
        context["mail_prompt"] = own_prompt(player, rows.get(player.email), tz, lang)
        context["mail_urls"] = seat_urls(token)
    return context


def prompt_context(session: Any, player: Player, lang: str, urls: dict[str, str]) -> dict[str, Any]:
    """The prompt of a player's own pages (/me, the settings), if their mail no longer goes."""
    row = states(session, [player.email]).get(player.email)
    return {"mail_prompt": own_prompt(player, row, player.tz, lang), "mail_urls": urls}


def _page(player_id: int, urls: dict[str, str], back: str, status: int = 200, **extra: Any) -> Any:
    """The player's mail page: the prompt (or that all is well), and both forms."""
    with read_session(engine()) as session:
        player = session.get(Player, player_id)
        if player is None:
            bad_link()
        if "lang" not in request.args:
            g.lang = player.lang
        context = prompt_context(session, player, g.lang, urls)
    mine = back == url_for("me.home")  # from /me, else from a seat's page
    context.update(email=player.email, back=back, from_me=mine, days=ADDRESS_TTL.days, **extra)
    return render_template("mailfix/page.html", **context), status


def _seat_player(token: str) -> int:
    game_id, seat_no = seat_from(token)
    with read_session(engine()) as session:
        return player_of(session, seat_of(session, game_id, seat_no)).id or 0


def _done(page: str, what: str) -> Response:
    return redirect(f"{page}?done={what}", code=303)


def _act(player_id: int, urls: dict[str, str], back: str, action: str) -> Any:
    """Carry out the form posted (a test mail, or a new address), then show the page."""
    try:
        if action == "test":
            fix.send_test(engine(), site(), player_id, now())
        else:
            fix.ask_address(engine(), site(), player_id, request.form.get("email", ""), now())
    except PlayError as exc:
        typed = request.form.get("email", "")[:254]
        return _page(player_id, urls, back, status=exc.status, error=exc, typed=typed)
    return _done(urls["page"], action)


def _shown(player_id: int, urls: dict[str, str], back: str) -> Any:
    done = request.args.get("done")
    return _page(player_id, urls, back, done=done if done in ("test", "address") else None)


@bp.get("/p/<token>/mail")
def seat_page(token: str) -> Any:
    """The seat's player's mail: whether it goes out, a test, a new address."""
    back = url_for("game.seat_page", token=token)
    return _shown(_seat_player(token), seat_urls(token), back)


@bp.post("/p/<token>/mail/test")
def seat_test(token: str) -> Any:
    """Mail me a test, and turn my mail back on."""
    back = url_for("game.seat_page", token=token)
    return _act(_seat_player(token), seat_urls(token), back, "test")


@bp.post("/p/<token>/mail/address")
def seat_address(token: str) -> Any:
    """Mail a link confirming a new address to that address."""
    back = url_for("game.seat_page", token=token)
    return _act(_seat_player(token), seat_urls(token), back, "address")


@bp.get("/me/mail")
def my_page() -> Any:
    """The signed-in player's mail, as seat_page."""
    return _shown(signed_in_player(), my_urls(), url_for("me.home"))


@bp.post("/me/mail/test")
def my_test() -> Any:
    """As seat_test, signed in."""
    return _my_act("test")


@bp.post("/me/mail/address")
def my_address() -> Any:
    """As seat_address, signed in."""
    return _my_act("address")


def _my_act(action: str) -> Any:
    """_act for the signed-in player, from /me; without one, the way to sign in."""
    return _act(signed_in_player(), my_urls(), url_for("me.home"), action)


def _confirm_page(token: str, status: int = 200, **extra: Any) -> tuple[str, int]:
    return render_template("mailfix/confirm.html", token=token, **extra), status


@bp.get("/address/<token>")
def confirm_page(token: str) -> tuple[str, int]:
    """The opened link shows a button: a GET changes nothing (mail scanners open links)."""

    def read() -> fix.Change:
        with read_session(engine()) as session:
            return fix.read_link(session, site(), token, now())

    return _confirm_shown(token, read)


@bp.post("/address/<token>")
def confirm(token: str) -> tuple[str, int]:
    """The button pressed: the player's address is the new one from now on."""
    return _confirm_shown(
        token, lambda: replace(fix.confirm(engine(), site(), token, now()), done=True)
    )


def _confirm_shown(token: str, change_of: Callable[[], fix.Change]) -> tuple[str, int]:
    """The link's page for the change `change_of` reads or makes, or for its refusal."""
    try:
        change = change_of()
    except BadLink:
        bad_link()
    except PlayError as exc:
        return _confirm_page(token, exc.status, error=exc)
    if "lang" not in request.args:
        g.lang = change.player.lang
    return _confirm_page(token, name=change.player.name, email=change.email, done=change.done)
