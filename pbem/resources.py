"""The folders the server reads at run time: templates, mail, static, translations, migrations.

In a checkout they sit at the top level beside `pbem/`; the build (setup.py) maps each into
the package, so an installed wheel finds them inside `pbem/`. Every reader asks here, and
nothing else in pbem/ knows where they are.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

FOLDERS = ("templates", "mail", "static", "translations", "migrations")
# The checkout's top level, for a run from the source tree (an editable install or a plain
# PYTHONPATH), where the folders are not inside the package.
_CHECKOUT = Path(__file__).resolve().parent.parent


def packaged(path: Path) -> bool:
    """Whether `path` lies in the installed package: read-only to the server (a wheel's files
    belong to whoever installed it, and pbem never writes there)."""
    return Path(str(files("pbem"))).resolve() in path.resolve().parents


def folder(name: str) -> Path:
    """The folder `name` (one of FOLDERS): inside the installed package, else the checkout's."""
    if name not in FOLDERS:
        raise ValueError(f"no run-time folder {name!r}")
    packaged = Path(str(files("pbem") / name))
    return packaged if packaged.is_dir() else _CHECKOUT / name
