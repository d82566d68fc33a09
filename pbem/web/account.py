"""A player's settings page (from any of their seat links, or signed in at /settings) and
one-click unsubscribe."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, abort, g, redirect, render_template, request, url_for
from sqlmodel import Session
from werkzeug.wrappers import Response

from pbem.errors import PlayError
from pbem.models import Player
from pbem.players import account, blocks, signin
from pbem.players.profile import blocked_names
from pbem.present.forms import MAX_VACATION_DAYS, VacationForm
from pbem.present.timefmt import format_when, zones
from pbem.storage.db import read_session, write_session
from pbem.storage.store import id_of, player_of, seat_of
from pbem.web import bad_link, engine, now, signed_pair, site
from pbem.web.game import remember_language
from pbem.web.mailfix import my_urls, prompt_context, seat_urls
from pbem.web.seats import seat_from
from pbem.web.signin import recheck_session, signed_in_player
from pbem.webhooks.shown import settings_webhooks

bp = Blueprint("account", __name__)

# The settings page is reached two ways, with the same page and forms: from a seat link
# (/p/<token>/settings: "Back to the game", and the table's webhooks to its creator), or
# signed in (/settings, linked from the header and /me). Each form's endpoint, both ways.
_ENDPOINTS = {
    "page": ("account.settings", "account.my_settings"),
    "save": ("account.save", "account.my_save"),
    "unblock": ("account.unblock", "account.my_unblock"),
    "vacation": ("account.vacation", "account.my_vacation"),
    "vacation_end": ("account.vacation_end", "account.my_vacation_end"),
    "sign_out": ("account.sign_out_everywhere", "account.my_sign_out_everywhere"),
    "webhook_add": ("webhooks.add", "webhooks.my_add"),
    "webhook_remove": ("webhooks.remove", "webhooks.my_remove"),
}
# The signed-in routes' `token`: none (a route of no seat link; the form token's scope).
SIGNED_IN = {"token": ""}


@dataclass(frozen=True)
class Owner:
    """Whose settings a request is about: a seat link's player, or the signed-in player's."""

    token: str  # the seat link; "" at /settings
    game_id: int | None = None
    seat_no: int | None = None
    player_id: int | None = None

    def link(self, form: str, **args: Any) -> str:
        """The address of the page or of one of its forms, the way this owner came in."""
        seat_endpoint, my_endpoint = _ENDPOINTS[form]
        if self.token:
            return url_for(seat_endpoint, token=self.token, **args)
        return url_for(my_endpoint, **args)

    def player(self, session: Session) -> Player:
        """The owner's player row, read in `session`."""
        if self.game_id is not None and self.seat_no is not None:
            return player_of(session, seat_of(session, self.game_id, self.seat_no))
        player = session.get(Player, self.player_id)
        if player is None:
            bad_link()
        return player


def owner_of(token: str) -> Owner:
    """The seat link's player; at /settings the signed-in player (a visitor is sent to sign in)."""
    if token:
        game_id, seat_no = seat_from(token)
        return Owner(token, game_id, seat_no)
    return Owner("", player_id=signed_in_player())


def settings_page(owner: Owner, status: int = 200, **extra: Any) -> tuple[str, int]:
    """The settings page (the answer to a refused form too), in the language asked for."""
    moment = now()
    # The EN/FR switch of a POST's answer leads to this page (pbem.app's _lang_link).
    g.form_page = owner.link("page")
    with read_session(engine()) as session:
        player = owner.player(session)
        if "lang" not in request.args:
            g.lang = player.lang
        elif g.lang != player.lang and request.method == "GET":
            remember_language(player.id, g.lang)  # as the seat page's switch does
        vacation = account.current_vacation(session, player, moment)
        used = account.days_used(session, player, moment.year)
        mail_urls = seat_urls(owner.token) if owner.token else my_urls()
        context = {
            "owner": owner,
            "player": player,
            "zones": zones(),
            "choices": account.NOTIFY_CHOICES,
            "vacation": vacation,
            "away_from": format_when(vacation.starts_at, player.tz, g.lang) if vacation else "",
            "away_to": format_when(vacation.ends_at, player.tz, g.lang) if vacation else "",
            "days_left": max(player.vacation_days - used, 0),
            "max_days": MAX_VACATION_DAYS,
            "webhooks": settings_webhooks(session, player, owner.game_id, owner.seat_no),
            "blocked": blocked_names(session, id_of(player)),
            **prompt_context(session, player, g.lang, mail_urls),
            **extra,
        }
    return render_template("account/settings.html", **context), status


@bp.get("/p/<token>/settings")
@bp.get("/settings", endpoint="my_settings", defaults=SIGNED_IN)
def settings(token: str) -> Response | tuple[str, int]:
    """The player's settings: language, time zone, mails, vacation, blocks, webhooks."""
    owner = owner_of(token)
    args = request.args
    return settings_page(owner, saved=args.get("saved"), signed_out=args.get("signed_out"))


def _act(token: str, action: Any) -> Response | tuple[str, int]:
    owner = owner_of(token)
    try:
        with write_session(engine()) as session:
            action(session, owner.player(session))
    except PlayError as exc:
        return settings_page(owner, status=exc.status, error=exc)
    return redirect(owner.link("page", saved=1), code=303)


@bp.post("/p/<token>/settings")
@bp.post("/settings", endpoint="my_save", defaults=SIGNED_IN)
def save(token: str) -> Response | tuple[str, int]:
    """Save language, time zone, mail choice and automatic vacation."""
    form = request.form
    return _act(
        token,
        lambda session, player: account.save_settings(
            session,
            player,
            form.get("lang", ""),
            form.get("tz", ""),
            form.get("notify", ""),
            now(),
            # A checkbox sends nothing when not ticked: the settings form always has it.
            auto_vacation=form.get("auto_vacation") == "1",
            page_public=form.get("page_public") == "1",
        ),
    )


@bp.post("/p/<token>/unblock")
@bp.post("/settings/unblock", endpoint="my_unblock", defaults=SIGNED_IN)
def unblock(token: str) -> Response | tuple[str, int]:
    """Lift the player's block of another, from the settings page's list."""
    raw = request.form.get("player", "")
    if not raw.isdigit() or len(raw) > 12:
        abort(400)
    return _act(token, lambda session, player: blocks.unblock(session, id_of(player), int(raw)))


@bp.post("/p/<token>/vacation")
@bp.post("/settings/vacation", endpoint="my_vacation", defaults=SIGNED_IN)
def vacation(token: str) -> Response | tuple[str, int]:
    """Start a vacation of some days from now."""
    return _act(
        token,
        lambda session, player: account.start_vacation(
            session, site(), player, VacationForm.read(request.form).days, now()
        ),
    )


@bp.post("/p/<token>/vacation/end")
@bp.post("/settings/vacation/end", endpoint="my_vacation_end", defaults=SIGNED_IN)
def vacation_end(token: str) -> Response | tuple[str, int]:
    """End the vacation under way."""
    return _act(token, lambda session, player: account.end_vacation(session, player, now()))


@bp.post("/p/<token>/signout/everywhere")
@bp.post("/settings/signout/everywhere", endpoint="my_sign_out_everywhere", defaults=SIGNED_IN)
def sign_out_everywhere(token: str) -> Response:
    """End the player's session on every device (a lost phone, a borrowed computer)."""
    owner = owner_of(token)
    with write_session(engine()) as session:
        signin.end_sessions(session, id_of(owner.player(session)))
    recheck_session()  # this device's cookie, if it was the player's, ends with the others
    if not owner.token:
        # Signed out here as well: /settings would only ask to sign in again.
        return redirect(url_for("signin.ask_page", out=1), code=303)
    return redirect(owner.link("page", signed_out=1), code=303)


def _unsubscriber(token: str) -> int:
    player_id, key = signed_pair("unsubscribe", token)
    with read_session(engine()) as session:
        player = session.get(Player, player_id)
        valid = (
            player is not None
            and bool(player.unsubscribe_key)
            and secrets.compare_digest(player.unsubscribe_key, key)
        )
        if valid and player is not None:
            g.lang = player.lang
    if not valid:
        bad_link()
    return player_id


@bp.get("/u/<token>")
def unsubscribe_page(token: str) -> str:
    """Ask before unsubscribing: a GET changes nothing (mail scanners open links)."""
    _unsubscriber(token)
    return render_template("account/unsubscribe.html", token=token, done=False)


@bp.post("/u/<token>")
def unsubscribe(token: str) -> str:
    """Unsubscribe, from the page's button or a mail client's one-click POST (RFC 8058)."""
    player_id = _unsubscriber(token)
    with write_session(engine()) as session:
        player = session.get(Player, player_id)
        assert player is not None
        account.unsubscribe(session, player)
    return render_template("account/unsubscribe.html", token=token, done=True)
