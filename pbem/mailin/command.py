"""The `pbem inbound` command: run the reply listener until stopped."""

from __future__ import annotations

import signal
import threading

import click
from flask import current_app
from flask.cli import with_appcontext

from pbem.config import settings_of, start_logging
from pbem.mailin.server import make_controller
from pbem.watch.beats import beating


@click.command("inbound")
@click.option("--host", default=None, help="Address to listen on (PBEM_INBOUND_HOST).")
@click.option("--port", default=None, type=int, help="Port (PBEM_INBOUND_PORT).")
@click.option("--lmtp", is_flag=True, help="Speak LMTP (for Postfix's lmtp transport).")
@with_appcontext
def inbound_command(host: str | None, port: int | None, lmtp: bool) -> None:
    """Take replies to turn mails (the MTA hands the reply domain to this) and play them."""
    start_logging()  # its verdicts are INFO lines (pbem.mailin.server)
    settings = settings_of(current_app)
    site = current_app.extensions["pbem"]["site"]
    if not site.reply_domain:
        raise click.ClickException("Set PBEM_REPLY_DOMAIN: the domain replies are sent to.")
    host = host or settings.inbound_host
    port = port or settings.inbound_port
    controller = make_controller(
        current_app.extensions["pbem"]["engine"],
        site,
        settings,
        host,
        port,
        lmtp,
        current_app.config["CLOCK"],
    )
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    controller.start()
    kind = "LMTP" if lmtp else "SMTP"
    click.echo(f"pbem inbound: {kind} on {host}:{port} for @{site.reply_domain}")
    try:
        with beating(current_app._get_current_object(), "inbound"):  # type: ignore[attr-defined]
            stop.wait()
    finally:
        controller.stop()
