"""The `pbem` command: Flask's command group over the application factory."""

from __future__ import annotations

import click
from flask.cli import FlaskGroup

from pbem.app import build_app


@click.group(cls=FlaskGroup, create_app=build_app, add_default_commands=False)
def main() -> None:
    """pbem: a play-by-email server for slow card games."""
