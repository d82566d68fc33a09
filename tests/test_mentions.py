"""Names in prose are true: every pbem module, function or file that the README, a docstring,
a comment or a template names exists (a module moved or renamed leaves no stale mention)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# pbem.x.y in prose, less the names that are not modules: hosts (pbem.test, pbem.example.org),
# files (pbem.css, pbem.sqlite3, pbem.env), logger and key names (pbem.beats, pbem.drains).
NOT_MODULES = {"test", "example", "css", "sqlite3", "env", "conf", "local", "reply", "bounce"}
NOT_MODULES |= {"beats", "drains", "csrf", "seat", "__file__", "a", "b", "x"}
# A test's own made-up module (a game part that is missing on purpose); the installed
# package's catalogue folder (the wheel test reads it in site-packages).
MADE_UP = {"pbem.present.third_game", "pbem/translations/fr/LC_MESSAGES/"}
DOTTED = re.compile(r"(?<![\w./-])(pbem(?:\.[A-Za-z_]\w*)+)")
# pbem/x/y.py or pbem/x/ in prose.
PATH = re.compile(r"(?<![\w./-])(pbem/[\w/]*\w(?:\.py|/))")
PLACES = ("README.md", "pbem/**/*.py", "tests/**/*.py", "templates/**/*.html", "mail/**/*.*")
# The worked example of "Adding a game": files the reader makes.
EXAMPLES = {"pbem/games/my_game.py", "pbem/present/my_game.py"} | MADE_UP


def _module_file(dotted: str) -> Path | None:
    """The file of module `dotted` (pbem.a.b), if there is one: found, not imported (some
    modules act when imported: gunicorn's settings make a folder)."""
    base = ROOT.joinpath(*dotted.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _top_level_names(path: Path) -> set[str]:
    """What a module defines or imports at its top level."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _resolves(name: str) -> bool | None:
    """Whether pbem.a.b.c names a module or a top-level name of one (c.d: d is not looked
    at); None for the names that are not modules' (NOT_MODULES, MADE_UP)."""
    parts = name.split(".")
    if parts[1] in NOT_MODULES or name in MADE_UP:
        return None
    for cut in range(len(parts), 0, -1):
        path = _module_file(".".join(parts[:cut]))
        if path is not None:
            return cut == len(parts) or parts[cut] in _top_level_names(path)
    return False


def stale_mentions() -> list[str]:
    """Every mention of a pbem module, attribute or file that does not exist, as file:line."""
    stale = []
    for pattern in PLACES:
        for path in sorted(ROOT.glob(pattern)):
            lines = path.read_text(encoding="utf-8").splitlines()
            if path == Path(__file__).resolve():
                continue  # its own examples
            for number, line in enumerate(lines, 1):
                where = f"{path.relative_to(ROOT)}:{number}"
                for match in DOTTED.finditer(line):
                    if _resolves(match[1]) is False:
                        stale.append(f"{where}: {match[1]}")
                for match in PATH.finditer(line):
                    if match[1] not in EXAMPLES and not (ROOT / match[1]).exists():
                        stale.append(f"{where}: {match[1]}")
    return stale


def test_every_module_named_in_prose_exists() -> None:
    assert stale_mentions() == []


def test_a_stale_mention_is_found(tmp_path: Path) -> None:
    """The checker itself: a moved module and a missing attribute are caught, a host not."""
    assert _resolves("pbem.moves.write_move") is True
    assert _resolves("pbem.create_app") is True
    assert _resolves("pbem.seat_choices.leave") is False
    assert _resolves("pbem.moves.no_such_thing") is False
    assert _resolves("pbem.test") is None
