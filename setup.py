"""The build: pbem's Python packages, with the top-level folders the server reads at run time
mapped inside the package (pbem/templates, pbem/mail, ...: see pbem/resources.py), and the
gettext catalogues compiled, so that an installed wheel needs nothing from the checkout.

The project's metadata is in pyproject.toml; only what it cannot say is here.
"""

from __future__ import annotations

from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

# As pbem.resources.FOLDERS (the build cannot import the package it builds).
FOLDERS = ("templates", "mail", "static", "translations", "migrations")


class BuildWithCatalogues(build_py):
    """build_py, then every translations/*/LC_MESSAGES/*.po compiled to its .mo beside it."""

    def run(self) -> None:
        super().run()
        for po in sorted(Path(self.build_lib, "pbem", "translations").glob("*/LC_MESSAGES/*.po")):
            with po.open("rb") as source:
                catalog = read_po(source)
            with po.with_suffix(".mo").open("wb") as target:
                write_mo(target, catalog)


def data_packages() -> dict[str, str]:
    """Each folder and subfolder of FOLDERS as the package it becomes: name -> source folder.

    Every subfolder is named (not only the top one with a ** glob): setuptools warns about a
    folder Python could import (migrations/versions, templates/game) that no package lists."""
    found = {}
    for top in FOLDERS:
        for path in sorted([Path(top), *Path(top).rglob("*")]):
            if path.is_dir() and path.name != "__pycache__":
                found[".".join(("pbem", *path.parts))] = path.as_posix()
    return found


DATA = data_packages()

setup(
    packages=[*find_packages(include=["pbem", "pbem.*"]), *DATA],
    package_dir=DATA,
    # The compiled .mo files are made by BuildWithCatalogues from the .po, never taken as found.
    package_data={name: ["*"] for name in DATA},
    exclude_package_data={name: ["*.pyc", "*.mo"] for name in DATA},
    cmdclass={"build_py": BuildWithCatalogues},
)
