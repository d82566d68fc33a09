"""The `pbem` command: Flask's command group over the application factory."""

from __future__ import annotations

import click
from flask import Flask
from flask.cli import FlaskGroup

from pbem.app import build_app
from pbem.cli import doctor_command
from pbem.config import ConfigError


def _build() -> Flask:
    """The app the commands run in; settings it cannot run with are told in one line (the
    key, a bad number, a pooler not named...), not as a traceback."""
    try:
        return build_app()
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None


@click.group(cls=FlaskGroup, create_app=_build, add_default_commands=False)
def main() -> None:
    """pbem: a play-by-email server for slow card games."""


# Not one of the app's commands: it reports on settings the app would refuse to start with.
main.add_command(doctor_command)
