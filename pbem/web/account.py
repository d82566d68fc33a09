"""A player's settings page (reached from any of their seat links) and one-click unsubscribe."""

from __future__ import annotations

import secrets
from typing import Any

from flask import Blueprint, abort, g, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from pbem.errors import PlayError
from pbem.models import Player
from pbem.players import account, blocks, signin
from pbem.players.page import blocked_names
from pbem.present.forms import MAX_VACATION_DAYS, VacationForm
from pbem.present.timefmt import format_when, zones
from pbem.storage.db import read_session, write_session
from pbem.storage.store import id_of, player_of, seat_of
from pbem.web import bad_link, engine, now, signed_pair, site
from pbem.web.mailfix import prompt_context, seat_urls
from pbem.web.seats import seat_from
from pbem.web.signin import recheck_session
from pbem.webhooks.page import settings_webhooks

bp = Blueprint("account", __name__)


def _settings_page(token: str, status: int = 200, **extra: Any) -> tuple[str, int]:
    game_id, seat_no = seat_from(token)
    moment = now()
    with read_session(engine()) as session:
        player = player_of(session, seat_of(session, game_id, seat_no))
        g.lang = player.lang
        vacation = account.current_vacation(session, player, moment)
        used = account.days_used(session, player, moment.year)
        context = {
            "token": token,
            "player": player,
            "zones": zones(),
            "choices": account.NOTIFY_CHOICES,
            "vacation": vacation,
            "away_from": format_when(vacation.starts_at, player.tz, player.lang)
            if vacation
            else "",
            "away_to": format_when(vacation.ends_at, player.tz, player.lang) if vacation else "",
            "days_left": max(player.vacation_days - used, 0),
            "max_days": MAX_VACATION_DAYS,
            "webhooks": settings_webhooks(session, player, game_id, seat_no),
            "blocked": blocked_names(session, id_of(player)),
            **prompt_context(session, player, player.lang, seat_urls(token)),
            **extra,
        }
    return render_template("account/settings.html", **context), status


@bp.get("/p/<token>/settings")
def settings(token: str) -> tuple[str, int]:
    """The player's settings: language, time zone, mails, vacation."""
    args = request.args
    return _settings_page(token, saved=args.get("saved"), signed_out=args.get("signed_out"))


def _act(token: str, action: Any) -> Response | tuple[str, int]:
    game_id, seat_no = seat_from(token)
    try:
        with write_session(engine()) as session:
            action(session, player_of(session, seat_of(session, game_id, seat_no)))
    except PlayError as exc:
        return _settings_page(token, status=exc.status, error=exc)
    return redirect(url_for("account.settings", token=token, saved=1), code=303)


@bp.post("/p/<token>/settings")
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
def unblock(token: str) -> Response | tuple[str, int]:
    """Lift the player's block of another, from the settings page's list."""
    raw = request.form.get("player", "")
    if not raw.isdigit() or len(raw) > 12:
        abort(400)
    return _act(token, lambda session, player: blocks.unblock(session, id_of(player), int(raw)))


@bp.post("/p/<token>/vacation")
def vacation(token: str) -> Response | tuple[str, int]:
    """Start a vacation of some days from now."""
    return _act(
        token,
        lambda session, player: account.start_vacation(
            session, site(), player, VacationForm.read(request.form).days, now()
        ),
    )


@bp.post("/p/<token>/vacation/end")
def vacation_end(token: str) -> Response | tuple[str, int]:
    """End the vacation under way."""
    return _act(token, lambda session, player: account.end_vacation(session, player, now()))


@bp.post("/p/<token>/signout/everywhere")
def sign_out_everywhere(token: str) -> Response:
    """End the player's session on every device (a lost phone, a borrowed computer)."""
    game_id, seat_no = seat_from(token)
    with write_session(engine()) as session:
        signin.end_sessions(session, id_of(player_of(session, seat_of(session, game_id, seat_no))))
    recheck_session()  # this device's cookie, if it was the player's, ends with the others
    return redirect(url_for("account.settings", token=token, signed_out=1), code=303)


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
