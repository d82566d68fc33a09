"""Command line: migrate, serve locally, run the clock and computer workers, start games,
list, log, check replays, back up and restore, list the addresses whose mail bounces."""

from __future__ import annotations

import re
import signal
import sys
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import click
import orjson
from flask import Flask, current_app
from flask.cli import with_appcontext
from sqlalchemy import func, or_
from sqlmodel import col, select
from werkzeug.serving import run_simple

from pbem import play
from pbem.bounces.state import OK
from pbem.clock.scheduler import (
    computer_moves,
    drain_outbox,
    make_scheduler,
    prune_old,
    sweep_due,
)
from pbem.clock.workers import run_computers
from pbem.config import ConfigError, Settings, settings_of, start_logging
from pbem.errors import PlayError
from pbem.games import GAMES, fairdeal
from pbem.games.message import Message
from pbem.live.serve import InThread
from pbem.live.serve import serve as serve_live
from pbem.mailin.command import inbound_command
from pbem.mailout.dkim import record_name, record_value, zone_line
from pbem.mailout.dkimkey import dkim_key
from pbem.models import Game, MailAddress, Player, Seat
from pbem.players.computers import LEVELS
from pbem.players.reports_cli import bar_command, reports_command, unbar_command
from pbem.present.forms import TimeControl
from pbem.present.text import render, say
from pbem.storage import backup
from pbem.storage.db import migrate as run_migrations
from pbem.storage.db import read_session, write_session
from pbem.storage.store import moves_of, seats_of
from pbem.takeback import consent
from pbem.watch.doctor import examine


def _engine() -> Any:
    return current_app.extensions["pbem"]["engine"]


def _app() -> Flask:
    """The application behind the `current_app` proxy (the clock keeps it beyond the context)."""
    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
    return app


@click.command("migrate")
@with_appcontext
def migrate_command() -> None:
    """Apply the database migrations."""
    site = current_app.extensions["pbem"]["site"]
    run_migrations(settings_of(current_app).database_url, thread_domain=site.domain)
    click.echo("Database is up to date.")


@click.command("serve")
@click.option("--host", default="127.0.0.1")
@click.option("--port", default=5000, type=int)
@click.option("--live-port", type=int, help="the live pages' streams (default: the next port)")
@with_appcontext
def serve_command(host: str, port: int, live_port: int | None) -> None:
    """Run the web server, the clock and the live pages' streams in one process, for local
    use."""
    start_logging()
    app = _app()
    settings, site = settings_of(app), app.extensions["pbem"]["site"]
    run_migrations(settings.database_url, thread_domain=site.domain)
    scheduler = make_scheduler(app, blocking=False)
    scheduler.start()
    streams = _live_beside(app, host, live_port or port + 1)
    if "devmail" in app.blueprints:
        click.echo(f"pbem on http://{host}:{port}/  (local mailbox: http://{host}:{port}/mailbox/)")
    else:
        click.echo(f"pbem on http://{host}:{port}/")
    try:
        # app.run() refuses to run inside a flask command; serve through werkzeug directly.
        run_simple(host, port, app, threaded=True, use_reloader=False)
    finally:
        if streams is not None:
            streams.stop()
        scheduler.shutdown(wait=False)


def _live_beside(app: Flask, host: str, port: int) -> InThread | None:
    """The live pages' streams in a thread on `port`, the pages pointed at them; none when
    PBEM_LIVE_URL is off or names a `pbem live` of its own."""
    settings = settings_of(app)
    if settings.live_url != Settings.model_fields["live_url"].default:
        return None
    try:
        streams = InThread(app, host, port).start()
    except (ConfigError, RuntimeError) as exc:
        click.echo(f"No live streams (the pages poll instead): {exc}", err=True)
        return None
    # The page's host, as the links in mail name it (a host of 0.0.0.0 is no address).
    name = urlsplit(settings.base_url).hostname or host
    settings.live_url = f"http://{name}:{port}/live/"
    return streams


@click.command("live")
@click.option("--host", default=None, help="default: PBEM_LIVE_HOST (127.0.0.1)")
@click.option("--port", default=None, type=int, help="default: PBEM_LIVE_PORT (8001)")
@with_appcontext
def live_command(host: str | None, port: int | None) -> None:
    """Serve the live pages' streams (Server-Sent Events) for nginx's /live/."""
    start_logging()
    app = _app()
    host = host or settings_of(app).live_host
    port = port or settings_of(app).live_port
    click.echo(f"pbem live on http://{host}:{port}/live/")
    try:
        serve_live(app, host, port)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None


@click.command("clock")
@with_appcontext
def clock_command() -> None:
    """Run the clock process: outbox sender and the other timed jobs."""
    start_logging()
    app = _app()
    click.echo("pbem clock running.")
    make_scheduler(app, blocking=True).start()


@click.command("computers")
@click.option("--once", is_flag=True, help="make the moves and reviews due now, then stop")
@with_appcontext
def computers_command(once: bool) -> None:
    """Run a computer worker: claim the computer seats due and make their moves, then the
    game reviews players asked for."""
    app = _app()
    if once:
        click.echo(f"{computer_moves(app)} computer moves and reviews (with their mails).")
        return
    start_logging()
    stop = threading.Event()
    # A stop finishes the move under way; a seat claimed but not moved waits out its lease.
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    click.echo("pbem computers running.")
    run_computers(app, stop)


@click.command("sweep")
@with_appcontext
def sweep_command() -> None:
    """Handle the timeouts, reminders, digests, vacation ends, unstarted games and bounce
    reports due, once."""
    result = sweep_due(_app())
    click.echo(", ".join(f"{count} {kind}" for kind, count in result.items()))


@click.command("send-mail")
@with_appcontext
def send_mail_command() -> None:
    """Send the mail that is due, once."""
    result = drain_outbox(_app())
    click.echo(f"{result['sent']} sent, {result['failed']} failed.")


@click.command("prune")
@with_appcontext
def prune_command() -> None:
    """Delete the sent mail, webhook deliveries and received mail past PBEM_KEEP_DAYS that
    nothing reads any more; drop the text of the sent mail kept."""
    days = settings_of(current_app).keep_days
    if days <= 0:
        click.echo("PBEM_KEEP_DAYS is 0: everything is kept, nothing pruned.")
        return
    result = prune_old(_app(), since=None)  # the whole history, not the clock's last week
    click.echo(
        f"Pruned after {days} days: deleted {result['mails']} sent mails,"
        f" {result['webhooks']} webhook deliveries, {result['received']} received mails,"
        f" {result['bounces']} bounce reports;"
        f" emptied {result['emptied']} sent mails kept for now."
    )


_PLAYER = re.compile(r"^\s*(?P<name>[^<]+?)\s*<(?P<email>[^>]+)>\s*$")


@click.command("new-game")
@click.option("--game", "slug", type=click.Choice(sorted(GAMES)), default="colour-bazaar")
@click.option(
    "--player",
    "players",
    multiple=True,
    required=True,
    help='"Name <email>"; the first is the creator.',
)
@click.option(
    "--computer",
    "computers",
    multiple=True,
    type=click.Choice(LEVELS),
    help="a computer player of this level in the next seat after the players",
)
@click.option(
    "--takeover",
    type=click.Choice([*LEVELS, "none"]),
    default="casual",
    help="the computer level that plays an absent player's seat (none: timeout moves)",
)
@click.option("--option", "opts", multiple=True, help="name=value, e.g. courts=true")
@click.option("--seed", type=int, default=None)
@with_appcontext
def new_game_command(
    slug: str,
    players: tuple[str, ...],
    computers: tuple[str, ...],
    takeover: str,
    opts: tuple[str, ...],
    seed: int | None,
) -> None:
    """Start a game and invite its players by mail (a game with computers only starts now)."""
    invitees = []
    for text in players:
        match = _PLAYER.match(text)
        if not match:
            raise click.BadParameter(f'expected "Name <email>", got {text!r}')
        invitees.append(play.Invitee(match["name"], match["email"]))
    for level in computers:
        invitees.append(play.Invitee("", "", computer=level))
    options: dict[str, Any] = {}
    for text in opts:
        name, _, raw = text.partition("=")
        options[name] = {"true": True, "false": False}.get(
            raw.lower(), int(raw) if raw.isdecimal() else raw
        )
    app = current_app
    try:
        with write_session(_engine()) as session:
            game = play.create_game(
                session,
                app.extensions["pbem"]["site"],
                slug,
                invitees,
                options,
                app.config["CLOCK"](),
                seed=seed,
                timing=TimeControl(takeover=None if takeover == "none" else takeover),
            )
            click.echo(f"Game #{game.id} created; invitations queued.")
    except (PlayError, ValueError) as exc:
        raise click.ClickException(str(getattr(exc, "params", "") or exc)) from None


@click.command("games")
@with_appcontext
def games_command() -> None:
    """List the games."""
    with read_session(_engine()) as session:
        for game in session.exec(select(Game).order_by(col(Game.id))):
            names = ", ".join(s.name for s in seats_of(session, game))
            click.echo(f"#{game.id}\t{game.slug}\t{game.status}\tply {game.ply}\t{names}")


@click.command("log")
@click.argument("game_id", type=int)
@with_appcontext
def log_command(game_id: int) -> None:
    """Print a game's move log as a spectator reads it."""
    with read_session(_engine()) as session:
        game = session.get(Game, game_id)
        if game is None:
            raise click.ClickException(f"No game #{game_id}.")
        names = [s.name for s in seats_of(session, game)]
        found = consent.allowed(session, game) if game.takebacks else []
        undone = sorted(found, key=lambda t: (t.ply, t.id or 0))

        def taken_back(before: int) -> None:
            # A move taken back is gone from the log: its take back is told at its ply.
            while undone and undone[0].ply < before:
                t = undone.pop(0)
                at = f"{t.answered_at:%Y-%m-%d %H:%M}" if t.answered_at else "?"
                who, by = names[t.seat], names[t.to_seat]
                click.echo(f"{t.ply + 1:>3} {at} [takeback] {who} took back a move ({by} agreed)")

        for move in moves_of(session, game):
            taken_back(move.ply + 1)
            for line in move.lines.get("watch", []):
                text = render(Message.from_json(line), "en", names)
                click.echo(
                    f"{move.ply + 1:>3} {move.created_at:%Y-%m-%d %H:%M} [{move.source}] {text}"
                )
        taken_back(game.ply + 1)


@click.command("mail-status")
@click.option("--all", "everything", is_flag=True, help="Also the addresses with a score.")
@with_appcontext
def mail_status_command(everything: bool) -> None:
    """List the addresses whose mail bounces or that complained, one line each: state, score,
    since, last bounce and its kind, seats in active games, the last reason given."""
    # The seats each address holds in games still played: who is waiting on its mail.
    seats = (
        select(Player.email, func.count().label("seats"))
        .join(Seat, col(Seat.player_id) == col(Player.id))
        .join(Game, col(Game.id) == col(Seat.game_id))
        .where(Game.status == "active")
        .group_by(col(Player.email))
        .subquery()
    )
    shown = [col(MailAddress.state) != OK] + ([col(MailAddress.score) > 0] if everything else [])
    query = (
        select(MailAddress, func.coalesce(seats.c.seats, 0))
        .outerjoin(seats, seats.c.email == col(MailAddress.address))
        .where(or_(*shown))
        .order_by(col(MailAddress.state), col(MailAddress.last_bounce_at).desc().nulls_last())
    )
    with read_session(_engine()) as session:
        for row, held in session.exec(query):
            click.echo(
                "\t".join(
                    [
                        row.address,
                        row.state,
                        f"score {row.score}",
                        f"since {_when(row.since)}",
                        f"last {_when(row.last_bounce_at)} {row.last_kind or '-'}",
                        f"{held} active seat{'' if held == 1 else 's'}",
                        row.last_reason or "-",
                    ]
                )
            )


def _when(moment: Any) -> str:
    """A time as the operator reads it, in UTC; "-" for none."""
    return f"{moment:%Y-%m-%d %H:%M}" if moment is not None else "-"


@click.command("check")
@with_appcontext
def check_command() -> None:
    """Replay every game from its seed and log; report any that differs from its stored state."""
    bad = 0
    with read_session(_engine()) as session:
        # Every game: one still forming has no state (stored as JSON null, not SQL NULL).
        for game in session.exec(select(Game).order_by(col(Game.id))):
            problem = play.replay_problem(session, game)
            if problem:
                bad += 1
                click.echo(f"#{game.id}: {problem}")
    click.echo("All games replay exactly." if not bad else f"{bad} game(s) differ.")
    if bad:
        sys.exit(1)


@click.command("backup")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="replace FILE if it exists")
@with_appcontext
def backup_command(file: Path, force: bool) -> None:
    """Write a consistent copy of the database to FILE, while pbem runs."""
    try:
        done = backup.backup(_engine(), file, force)
    except backup.BackupError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"Wrote {done.describe()}.")


@click.command("restore")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@with_appcontext
def restore_command(file: Path) -> None:
    """Copy the backup FILE into the database of PBEM_DATABASE_URL, which must be empty."""
    try:
        done = backup.restore(_engine(), file)
    except backup.BackupError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"Restored {done.describe()}.")
    click.echo(backup.migration_advice(done.contents.revision))


VERIFY_MAX = 2 * 1024 * 1024  # bytes of an export read by `pbem verify`, as /verify


@click.command("verify")
@click.argument("export", type=click.File("rb"))
@click.option("--lang", default="en", help="The language of the report (en or fr).")
def verify_command(export: Any, lang: str) -> None:
    """Check a finished game's exported log (JSON): its sealed deal, every move, the result."""
    raw = export.read(VERIFY_MAX + 1)
    if len(raw) > VERIFY_MAX:
        raise click.ClickException(f"the export is larger than {VERIFY_MAX} bytes")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        data = {}
    checks = fairdeal.check(data if isinstance(data, dict) else {})
    for check in checks:
        mark = "ok " if check.ok else "NO "
        click.echo(mark + say(lang, check.say.key, **check.say.params))
    if not all(check.ok for check in checks):
        sys.exit(1)


@click.command("dkim-record")
@with_appcontext
def dkim_record_command() -> None:
    """Print the DNS TXT record that publishes the DKIM key pbem signs its mail with."""
    key = dkim_key(settings_of(current_app))  # checked when the app was made
    if key is None:
        raise click.ClickException(
            "pbem does not sign its mail: set PBEM_DKIM_SELECTOR and PBEM_DKIM_KEY_FILE."
        )
    click.echo(f"Publish this TXT record ({key.algorithm}, {key.bits} bits):")
    click.echo(f"  name:  {record_name(key)}")
    click.echo(f"  value: {record_value(key)}")
    click.echo("or, in a zone file:")
    click.echo(zone_line(key))


@click.command("doctor")
def doctor_command() -> None:
    """Check this deployment's settings and services: one line each, with what to do."""
    lines, passed = examine()
    for line in lines:
        click.echo(line)
    if not passed:
        sys.exit(1)


COMMANDS = [
    migrate_command,
    serve_command,
    live_command,
    clock_command,
    computers_command,
    sweep_command,
    send_mail_command,
    prune_command,
    new_game_command,
    games_command,
    log_command,
    check_command,
    verify_command,
    backup_command,
    restore_command,
    inbound_command,
    dkim_record_command,
    mail_status_command,
    reports_command,
    bar_command,
    unbar_command,
]


def register(app: Flask) -> None:
    """Add the pbem commands to `flask`."""
    for command in COMMANDS:
        app.cli.add_command(command)
