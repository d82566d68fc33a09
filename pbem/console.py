"""The `pbem` command: Flask's command group over the application factory."""

from __future__ import annotations

import click
from flask import Flask
from flask.cli import FlaskGroup

from pbem.app import build_app
from pbem.cli import COMMANDS, doctor_command
from pbem.config import ConfigError


def _build() -> Flask:
    """The app the commands run in; settings it cannot run with are told in one line (the
    key, a bad number, a pooler not named...), not as a traceback."""
    try:
        return build_app()
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None


class _Commands(FlaskGroup):
    """Flask's group, whose list of pbem's commands needs no app: `pbem --help` (or a
    command's --help) lists them even where the settings would not let the app start. Each
    command builds the app when it runs (with_appcontext): a bad setting is told then."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command's name, the app's not loaded."""
        mine = {command.name for command in COMMANDS if command.name}
        return sorted({*click.Group.list_commands(self, ctx), *mine})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """pbem's command by name without building the app; any other as Flask finds it."""
        for command in COMMANDS:
            if command.name == cmd_name:
                return command
        return super().get_command(ctx, cmd_name)


@click.group(cls=_Commands, create_app=_build, add_default_commands=False)
def main() -> None:
    """pbem: a play-by-email server for slow card games."""


# Not one of the app's commands: it reports on settings the app would refuse to start with.
main.add_command(doctor_command)
