"""The operator's commands for reports: `pbem reports` lists them, `pbem bar` and `pbem unbar`
bar an account from open tables, leagues and ratings and lift it (its player is told)."""

from __future__ import annotations

from typing import Any

import click
from flask import current_app
from flask.cli import with_appcontext
from sqlalchemy import func
from sqlmodel import Session, select

from pbem.models import Player, is_computer_email
from pbem.players import reports
from pbem.site import Site
from pbem.storage.db import read_session, write_session


def _engine() -> Any:
    return current_app.extensions["pbem"]["engine"]


def _site() -> Site:
    site: Site = current_app.extensions["pbem"]["site"]
    return site


def _one_line(text: str, most: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= most else flat[: most - 1] + "…"


def _player(session: Session, who: str) -> Player:
    """The player named by id or address; a ClickException when none, or a computer."""
    if who.isdigit():
        found = session.get(Player, int(who))
    else:
        found = session.exec(
            select(Player).where(func.lower(Player.email) == who.strip().lower())
        ).first()
    if found is None:
        raise click.ClickException(f"No player {who}.")
    if is_computer_email(found.email):
        raise click.ClickException(f"Player {who} is a computer: it is never rated as a person.")
    return found


@click.command("reports")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1, 10000))
@with_appcontext
def reports_command(limit: int) -> None:
    """List the latest reports, newest first: when, who reported whom (ids), whether the
    reported account is barred, the reason, and the link to the report."""
    with read_session(_engine()) as session:
        listed = reports.listed(session, _site(), limit)
        for r in listed:
            barred = "barred" if reports.is_barred(session, r.reported_id) else "-"
            where = f"game {r.game_id}" if r.game_id is not None else "page"
            click.echo(
                "\t".join(
                    [
                        f"#{r.id}",
                        f"{r.created_at:%Y-%m-%d %H:%M}",
                        f"{r.reporter} ({r.reporter_id}) -> {r.reported} ({r.reported_id})",
                        barred,
                        where,
                        _one_line(r.reason),
                        _site().report_url(r.id),
                    ]
                )
            )
    if not listed:
        click.echo("No reports.")


@click.command("bar")
@click.argument("player")
@click.option("--reason", default="", help="Kept with the bar, for the operators only.")
@with_appcontext
def bar_command(player: str, reason: str) -> None:
    """Bar PLAYER (an id or an address) from open tables, leagues and ratings; they are told
    by mail. Their standing seeks are removed; the games they are in go on."""
    now = current_app.config["CLOCK"]()
    with write_session(_engine()) as session:
        found = _player(session, player)
        done = reports.bar(session, _site(), found, reason, now)
        label = f"{found.name} ({found.id})"
    click.echo(f"{label} is barred; they are told by mail." if done else f"{label} was barred.")


@click.command("unbar")
@click.argument("player")
@with_appcontext
def unbar_command(player: str) -> None:
    """Lift the bar on PLAYER (an id or an address); they are told by mail."""
    now = current_app.config["CLOCK"]()
    with write_session(_engine()) as session:
        found = _player(session, player)
        done = reports.unbar(session, _site(), found, now)
        label = f"{found.name} ({found.id})"
    click.echo(
        f"{label} is no longer barred; they are told by mail."
        if done
        else f"{label} was not barred."
    )
